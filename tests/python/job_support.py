"""Helpers for the job-level tests: generated multi-rank jobs and the CLI's `job` object."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
GEN_JOB = REPO / "bench" / "gen_job.py"
# A small real trace from the repository (an H100 float32 GEMM loop): the generator takes its
# kernels' names and durations.
SMALL_SOURCE = REPO / "tests" / "data" / "h100" / "fp32_gemm.pt.trace.json.gz"


def stepscope_command() -> str:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    assert command, "pip install . puts stepscope on PATH (or set STEPSCOPE_CLI)"
    return command


def run_stepscope(*arguments: str | Path, cwd: Path | None = None) -> str:
    """Runs the CLI; fails the test with its stderr when it fails. Returns stdout."""
    process = subprocess.run(
        [stepscope_command(), *map(str, arguments)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )
    assert process.returncode == 0, f"stepscope {arguments}: {process.stderr}"
    return process.stdout


def make_job(
    folder: Path,
    ranks: int,
    *,
    straggler: int | None = None,
    slowdown: float = 1.35,
    events_per_step: int = 60,
    steps: int = 6,
    seed: int = 0,
    extra: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Writes a generated job (bench/gen_job.py) into `folder`; returns its manifest."""
    command = [
        sys.executable,
        str(GEN_JOB),
        "--out",
        str(folder),
        "--ranks",
        str(ranks),
        "--source",
        str(SMALL_SOURCE),
        "--events-per-step",
        str(events_per_step),
        "--steps",
        str(steps),
        "--seed",
        str(seed),
        *extra,
    ]
    if straggler is not None:
        command += ["--straggler", str(straggler), "--slowdown", str(slowdown)]
    process = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert process.returncode == 0, process.stderr
    manifest: dict[str, Any] = json.loads(process.stdout)
    return manifest


def analyze_job_object(folder: Path, *extra: str, cwd: Path | None = None) -> dict[str, Any]:
    """The `job` object of `stepscope analyze FOLDER --json -`."""
    document = json.loads(run_stepscope("analyze", folder, "--json", "-", *extra, cwd=cwd))
    assert "job" in document, "analyze FOLDER gives a top-level `job` object"
    job: dict[str, Any] = document["job"]
    return job
