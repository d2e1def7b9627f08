"""Small Kineto traces written by the tests themselves, and where the shared real traces are."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


def shared_traces_dir() -> Path:
    """The real traces recorded on GPUs, never copied into the repository.

    One setting for every test, C++ and Python alike: the environment variable
    STEPSCOPE_SHARED_TRACES, else ../shared/traces beside the repository.
    """
    overridden = os.environ.get("STEPSCOPE_SHARED_TRACES")
    return Path(overridden) if overridden else REPO.parent / "shared" / "traces"


SHARED_TRACES = shared_traces_dir()


def require_shared_traces() -> Path:
    """The shared traces folder, or a skip that says what did not run and how to point at it."""
    if not SHARED_TRACES.is_dir():
        pytest.skip(
            f"the shared traces folder {SHARED_TRACES} is absent (set STEPSCOPE_SHARED_TRACES "
            "to where it is): checks on real traces did not run"
        )
    return SHARED_TRACES


BASE_US = 1_700_000_000_000_000
CPU_PID = 4242
CPU_TID = 4242


def kineto_trace(steps: int = 3, rank: int = 0) -> dict[str, Any]:
    """A trace with `steps` ProfilerStep# spans, each with an op that launches one kernel."""
    events: list[dict[str, Any]] = []
    for step in range(steps):
        start = BASE_US + step * 10_000
        correlation = step + 1
        external = 2000 + step
        events += [
            {
                "ph": "X",
                "cat": "user_annotation",
                "name": f"ProfilerStep#{step}",
                "pid": CPU_PID,
                "tid": CPU_TID,
                "ts": start,
                "dur": 9_000,
                "args": {"External id": 1000 + step},
            },
            {
                "ph": "X",
                "cat": "cpu_op",
                "name": "aten::linear",
                "pid": CPU_PID,
                "tid": CPU_TID,
                "ts": start + 100,
                "dur": 2_000,
                "args": {
                    "External id": external,
                    "Input Dims": [[64, 128], [256, 128], [256]],
                    "Input type": ["float", "float", "float"],
                },
            },
            {
                "ph": "X",
                "cat": "cuda_runtime",
                "name": "cudaLaunchKernel",
                "pid": CPU_PID,
                "tid": CPU_TID,
                "ts": start + 500,
                "dur": 20,
                "args": {"External id": external, "correlation": correlation, "cbid": 211},
            },
            {
                "ph": "X",
                "cat": "kernel",
                "name": "ampere_sgemm_128x64_tn",
                "pid": 0,
                "tid": 7,
                "ts": start + 600,
                "dur": 5_000,
                "args": {
                    "External id": external,
                    "correlation": correlation,
                    "device": 0,
                    "stream": 7,
                    "grid": [8, 4, 1],
                    "block": [128, 1, 1],
                    "registers per thread": 90,
                    "shared memory": 16384,
                    "warps per SM": 1.2,
                    "est. achieved occupancy %": 12,
                },
            },
            {
                "ph": "s",
                "id": correlation,
                "pid": CPU_PID,
                "tid": CPU_TID,
                "ts": start + 500,
                "cat": "ac2g",
                "name": "ac2g",
            },
            {
                "ph": "f",
                "id": correlation,
                "pid": 0,
                "tid": 7,
                "ts": start + 600,
                "cat": "ac2g",
                "name": "ac2g",
                "bp": "e",
            },
        ]
    events.append(
        {"ph": "M", "name": "process_name", "pid": CPU_PID, "tid": 0, "args": {"name": "python"}}
    )
    return {
        "schemaVersion": 1,
        "deviceProperties": [
            {
                "id": 0,
                "name": "NVIDIA A100-SXM4-80GB",
                "totalGlobalMem": 85899345920,
                "computeMajor": 8,
                "computeMinor": 0,
                "numSms": 108,
                "warpSize": 32,
                "maxThreadsPerMultiprocessor": 2048,
                "regsPerMultiprocessor": 65536,
                "sharedMemPerMultiprocessor": 167936,
            }
        ],
        "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
        "traceEvents": events,
        "traceName": "test.json",
        "displayTimeUnit": "ms",
    }


def write_trace(path: Path, trace: dict[str, Any]) -> Path:
    text = json.dumps(trace).encode()
    path.write_bytes(gzip.compress(text) if path.name.endswith(".gz") else text)
    return path


@pytest.fixture
def trace_file(tmp_path: Path) -> Path:
    return write_trace(tmp_path / "small_trace.json", kineto_trace())


@pytest.fixture
def trace_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "job"
    folder.mkdir()
    for rank in (0, 1):
        write_trace(folder / f"worker{rank}.json.gz", kineto_trace(rank=rank))
    return folder
