"""The shell recipes of docs/many-ranks.md: `xargs -P` and the Slurm job array.

Both map `stepscope summarize` over a generated job's traces and reduce with `stepscope merge`;
the merged `job` object must be exactly what `stepscope analyze FOLDER` gives. There is no Slurm
here: the array script's per-task body runs with SLURM_ARRAY_TASK_ID / _COUNT set by the test,
as Slurm would set them, and the merge script after all tasks, as --dependency=afterok does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from job_support import REPO, analyze_job_object, make_job, stepscope_command

# Exactly as in docs/many-ranks.md (checked below), run from the folder that holds traces/.
XARGS_RECIPE = """\
mkdir -p summaries
find traces -maxdepth 1 -type f \\( -name '*.json' -o -name '*.json.gz' \\) -print0 |
  xargs -0 -P 8 -n 1 sh -c 'stepscope summarize "$1" -o "summaries/${1##*/}.summary.json"' sh
stepscope merge summaries/*.summary.json --json job.json
"""

SLURM = REPO / "examples" / "slurm"
ARRAY_SCRIPT = SLURM / "stepscope_job_array.sh"
MERGE_SCRIPT = SLURM / "stepscope_merge.sh"


def shell_environment() -> dict[str, str]:
    """The environment with the `stepscope` under test first on PATH."""
    environment = dict(os.environ)
    folder = str(Path(stepscope_command()).resolve().parent)
    environment["PATH"] = folder + os.pathsep + environment.get("PATH", "")
    return environment


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 4-rank job with a straggler; two files renamed the way real files are named (spaces,
    several dots, a plain .json beside .json.gz), since the rank comes from distributedInfo."""
    root = tmp_path_factory.mktemp("xargs_job")
    traces = root / "traces"
    make_job(traces, 4, straggler=2, extra=("--gzip",))
    files = sorted(traces.iterdir())
    files[1].rename(traces / "worker 1 (node a).pt.trace.json.gz")
    files[3].rename(traces / "host-b.1234.5678.pt.trace.json.gz")
    return root


def test_docs_show_the_tested_recipe() -> None:
    page = (REPO / "docs" / "many-ranks.md").read_text(encoding="utf-8")
    assert XARGS_RECIPE in page


def test_xargs_recipe_merge_equals_analyze_folder(job: Path) -> None:
    shutil.rmtree(job / "summaries", ignore_errors=True)
    process = subprocess.run(
        ["bash", "-o", "errexit", "-o", "pipefail", "-c", XARGS_RECIPE],
        cwd=job,
        env=shell_environment(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert process.returncode == 0, process.stderr
    summaries = sorted(path.name for path in (job / "summaries").iterdir())
    traces = sorted(path.name for path in (job / "traces").iterdir())
    assert summaries == [name + ".summary.json" for name in traces]
    merged: dict[str, Any] = json.loads((job / "job.json").read_text(encoding="utf-8"))
    assert merged["job"] == analyze_job_object(Path("traces"), cwd=job)
    assert [s["rank"] for s in merged["job"]["stragglers"]][:1] == [2]


def test_slurm_scripts_parse() -> None:
    for script in (ARRAY_SCRIPT, MERGE_SCRIPT):
        process = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert process.returncode == 0, process.stderr
        assert "#SBATCH" in script.read_text(encoding="utf-8")


@pytest.mark.parametrize("tasks", [4, 3])
def test_slurm_array_tasks_then_merge_equal_analyze_folder(
    job: Path, tmp_path: Path, tasks: int
) -> None:
    """Array tasks 0..tasks-1 (one file per task, or some tasks with two), then the merge."""
    summaries = tmp_path / "summaries"
    environment = shell_environment()
    environment.update(TRACE_DIR=str(job / "traces"), SUMMARY_DIR=str(summaries))
    for task in range(tasks):
        environment.update(SLURM_ARRAY_TASK_ID=str(task), SLURM_ARRAY_TASK_COUNT=str(tasks))
        process = subprocess.run(
            ["bash", str(ARRAY_SCRIPT)],
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert process.returncode == 0, process.stderr
    assert len(list(summaries.glob("*.summary.json"))) == 4
    environment["OUT"] = str(tmp_path / "job report")
    process = subprocess.run(
        ["bash", str(MERGE_SCRIPT)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert process.returncode == 0, process.stderr
    merged = json.loads((tmp_path / "job report.json").read_text(encoding="utf-8"))
    assert (tmp_path / "job report.html").stat().st_size > 0
    assert merged["job"] == analyze_job_object(job / "traces")


def test_slurm_array_task_without_traces_fails_with_a_message(tmp_path: Path) -> None:
    environment = shell_environment()
    environment.update(
        TRACE_DIR=str(tmp_path), SUMMARY_DIR=str(tmp_path / "s"), SLURM_ARRAY_TASK_ID="0"
    )
    process = subprocess.run(
        ["bash", str(ARRAY_SCRIPT)], env=environment, capture_output=True, text=True, check=False
    )
    assert process.returncode == 2
    assert str(tmp_path) in process.stderr


def test_merge_takes_a_folder_a_list_file_and_standard_input(job: Path, tmp_path: Path) -> None:
    """More ranks than a command line holds: the same job from every way of naming summaries."""
    summaries = tmp_path / "summaries"
    summaries.mkdir()
    for index, trace in enumerate(sorted((job / "traces").iterdir())):
        out = summaries / f"rank{index}.summary.json"
        subprocess.run(
            [stepscope_command(), "summarize", str(trace), "-o", str(out)],
            check=True,
            capture_output=True,
        )
    (summaries / "notes.txt").write_text("not a summary\n", encoding="utf-8")
    files = sorted(str(path) for path in summaries.glob("*.summary.json"))
    listing = tmp_path / "list.txt"
    listing.write_text("\n".join(files) + "\n\n", encoding="utf-8")
    ways: dict[str, tuple[list[str], str | None]] = {
        "files": (files, None),
        "folder": ([str(summaries)], None),
        "list": ([f"@{listing}"], None),
        "stdin": (["-"], "\n".join(files) + "\n"),
    }
    jobs = {}
    for way, (arguments, stdin) in ways.items():
        out = tmp_path / f"{way}.json"
        process = subprocess.run(
            [stepscope_command(), "merge", *arguments, "--json", str(out), "-q"],
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
        )
        assert process.returncode == 0, (way, process.stderr)
        jobs[way] = json.loads(out.read_text(encoding="utf-8"))["job"]
    assert all(found == jobs["files"] for found in jobs.values())
    assert len(jobs["files"]["ranks"]) == 4
    empty = tmp_path / "empty"
    empty.mkdir()
    refused = subprocess.run(
        [stepscope_command(), "merge", str(empty)], capture_output=True, text=True, check=False
    )
    assert refused.returncode == 2
    assert "no *.summary.json files" in refused.stderr
