"""bench/gen_job.py: the generated job has the properties the job-level tests rely on."""

from __future__ import annotations

import gzip
import itertools
import json
import statistics
from pathlib import Path
from typing import Any

import pytest
from job_support import make_job


def load(path: str) -> dict[str, Any]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as stream:
        trace: dict[str, Any] = json.load(stream)
    return trace


def collectives(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(
        (e for e in trace["traceEvents"] if e.get("cat") == "kernel" and "nccl" in e["name"]),
        key=lambda e: e["ts"],
    )


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("gen") / "job"
    manifest = make_job(folder, 3, straggler=1, slowdown=1.5, extra=("--gzip",))
    manifest["traces"] = [load(path) for path in manifest["files"]]
    return manifest


def test_ranks_world_size_and_hosts(job: dict[str, Any]) -> None:
    infos = [trace["distributedInfo"] for trace in job["traces"]]
    assert [info["rank"] for info in infos] == [0, 1, 2]
    assert {info["world_size"] for info in infos} == {3}
    assert len({trace["host_name"] for trace in job["traces"]}) == 3
    assert all(Path(path).name.endswith(".pt.trace.json.gz") for path in job["files"])


def test_collectives_line_up_and_end_together_in_true_time(job: dict[str, Any]) -> None:
    offsets = [entry["offset_us"] for entry in job["clock_offsets_us"]]
    assert offsets[0] == 0 and len(set(offsets)) == 3
    per_rank = [collectives(trace) for trace in job["traces"]]
    count = job["steps"] * job["collectives_per_step"]
    assert [len(kernels) for kernels in per_rank] == [count] * 3
    for k in range(count):
        same = [kernels[k] for kernels in per_rank]
        assert {e["args"]["Seq"] for e in same} == {k + 1}
        assert {e["args"]["Process Group Name"] for e in same} == {"0"}
        assert {e["args"]["Collective name"] for e in same} == {"allreduce"}
        ends = [e["ts"] + e["dur"] - offset for e, offset in zip(same, offsets, strict=True)]
        assert max(ends) - min(ends) < 0.01  # µs: one moment in the true clock
        # The straggler arrives last, so its all_reduce is the shortest: the others wait in it.
        assert min(range(3), key=lambda r: same[r]["dur"]) == 1


def test_straggler_computes_longer_and_the_others_wait(job: dict[str, Any]) -> None:
    def compute_us(trace: dict[str, Any]) -> float:
        return float(
            sum(
                e["dur"]
                for e in trace["traceEvents"]
                if e.get("cat") == "kernel" and "nccl" not in e["name"]
            )
        )

    compute = [compute_us(trace) for trace in job["traces"]]
    assert compute[1] > 1.3 * statistics.mean([compute[0], compute[2]])
    waits = [sum(e["dur"] for e in collectives(trace)) for trace in job["traces"]]
    assert waits[0] > waits[1] and waits[2] > waits[1]


def test_without_straggler_no_rank_is_always_last(tmp_path: Path) -> None:
    manifest = make_job(tmp_path / "even", 4, steps=8, extra=("--jitter", "0.05"))
    per_rank = [collectives(load(path)) for path in manifest["files"]]
    last = [min(range(4), key=lambda r: per_rank[r][k]["dur"]) for k in range(16)]
    assert len(set(last)) > 1


def test_steps_do_not_overlap_and_launches_precede_kernels(job: dict[str, Any]) -> None:
    trace = job["traces"][0]
    steps = sorted(
        (e for e in trace["traceEvents"] if e["name"].startswith("ProfilerStep#")),
        key=lambda e: e["ts"],
    )
    assert len(steps) == job["steps"]
    for before, after in itertools.pairwise(steps):
        assert before["ts"] + before["dur"] <= after["ts"]
    launches = {
        e["args"]["correlation"]: e
        for e in trace["traceEvents"]
        if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})
    }
    kernels = [e for e in trace["traceEvents"] if e.get("cat") == "kernel"]
    assert kernels
    for kernel in kernels:
        launch = launches[kernel["args"]["correlation"]]
        assert launch["ts"] + launch["dur"] <= kernel["ts"]
