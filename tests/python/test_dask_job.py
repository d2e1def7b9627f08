"""stepscope.dask.analyze_job on a real dask.distributed LocalCluster with worker processes.

The per-rank summaries are made in two worker processes and merged here; the job report must be
exactly the `job` object of `stepscope analyze FOLDER` on the same generated job.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from job_support import analyze_job_object, make_job

distributed = pytest.importorskip("distributed")

from stepscope.dask import analyze_job, trace_paths  # noqa: E402


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("dask_job") / "traces"
    make_job(folder, 4, straggler=1)
    return folder


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    cluster = distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    )
    with cluster, distributed.Client(cluster) as connected:
        yield connected


def summarize_tasks(stream: Any) -> list[dict[str, Any]]:
    return [task for task in stream.data if str(task["key"]).startswith("stepscope-summarize")]


def test_analyze_job_on_worker_processes_equals_cli(job: Path, client: Any) -> None:
    with distributed.get_task_stream(client) as stream:
        report = analyze_job(job, client=client)
    tasks = summarize_tasks(stream)
    assert len(tasks) == 4  # one summarize per rank, run by the workers
    worker_pids = set(client.run(os.getpid).values())
    assert len(worker_pids) == 2 and os.getpid() not in worker_pids
    assert report.job == analyze_job_object(job)
    assert [s["rank"] for s in report.job["stragglers"]][:1] == [1]


def test_paths_and_the_current_client(job: Path, client: Any) -> None:
    """A list of files (any order) and no client argument: the current client does the work."""
    files = list(reversed(trace_paths(job)))
    with distributed.get_task_stream(client) as stream:
        report = analyze_job(files)
    assert len(summarize_tasks(stream)) == 4
    assert report.job == analyze_job_object(job)


def test_trace_paths_lists_a_folder_sorted_and_absolute(tmp_path: Path) -> None:
    for name in ("b.json.gz", "a.json", ".hidden.json", "notes.txt"):
        (tmp_path / name).write_text("{}", encoding="utf-8")
    assert trace_paths(tmp_path) == [str(tmp_path / "a.json"), str(tmp_path / "b.json.gz")]
    assert trace_paths(["s3://bucket/rank0.json"]) == ["s3://bucket/rank0.json"]


def test_no_trace_files_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no trace files"):
        analyze_job(tmp_path)
