"""thread-oversubscription on traces recorded with stepscope.torch.profile and real PyTorch: the
profile writes the host's conditions under ``stepscope_host``, and the rule reads them.

Oversubscription is simulated honestly on a small machine: LOCAL_WORLD_SIZE=8 says eight
processes of the job share this host, each with torch.set_num_threads(2), which asks for 16
threads of a machine with fewer cores (the test skips on a machine with 16 or more). One process
of one thread fits any machine. DataLoader workers are the profiled process's children, one
thread each.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

# Steps of a millisecond are noisy; the profile's timing warnings are not what is tested here.
pytestmark = pytest.mark.filterwarnings("ignore:stepscope.torch.profile:UserWarning")

from stepscope import torch as sst  # noqa: E402


@pytest.fixture
def threads() -> Iterator[None]:
    """Restores torch's intra-op thread count after the test."""
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def cores() -> int:
    return len(os.sched_getaffinity(0))


def record(out: Path) -> sst.Profile:
    """Three recorded steps of a small MLP's training step on the CPU."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    inputs, targets = torch.randn(64, 256), torch.randn(64, 1)
    with sst.profile(steps=3, out=out, wait=2, warmup=1) as prof:
        for _ in range(6):
            optimizer.zero_grad(set_to_none=True)
            torch.nn.functional.mse_loss(model(inputs), targets).backward()
            optimizer.step()
            prof.step()
    return prof


def host_metadata(prof: sst.Profile) -> dict[str, Any]:
    assert prof.trace_file is not None
    trace: dict[str, Any] = json.loads(prof.trace_file.read_text())
    assert "stepscope_host" in trace, sorted(k for k in trace if k != "traceEvents")
    host: dict[str, Any] = trace["stepscope_host"]
    return host


def test_eight_processes_of_two_threads_are_oversubscribed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threads: None
) -> None:
    if cores() >= 16:
        pytest.skip("16 threads fit this machine's cores")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "8")
    torch.set_num_threads(2)
    prof = record(tmp_path / "traces")
    host = host_metadata(prof)
    assert host["cores_available"] == cores()
    assert host["cpu_count"] == os.cpu_count()
    assert host["intra_op_threads"] == 2
    assert host["inter_op_threads"] == torch.get_num_interop_threads()
    assert host["local_processes"] == 8
    assert host["local_processes_source"] == "LOCAL_WORLD_SIZE"
    assert host["dataloader_workers"] == 0
    found = {f.id: f for f in prof.report.findings}
    assert "thread-oversubscription" in found, sorted(found)
    finding = found["thread-oversubscription"]
    asked, available = finding.evidence[0], finding.evidence[1]
    assert (asked.value, asked.unit) == (16, "threads")  # 8 processes x 2 threads + 0 workers
    assert (available.value, available.unit) == (cores(), "cores")
    assert f"torch.set_num_threads({max(1, cores() // 8)})" in finding.fix
    assert 0 < finding.expected_gain.likely_us_per_step <= finding.expected_gain.bound_us_per_step


def test_one_process_of_one_thread_is_not_oversubscribed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threads: None
) -> None:
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "1")
    torch.set_num_threads(1)
    prof = record(tmp_path / "traces")
    host = host_metadata(prof)
    assert host["intra_op_threads"] == 1
    assert host["local_processes"] == 1
    found = {f.id for f in prof.report.findings}
    assert "thread-oversubscription" not in found, sorted(found)


def test_without_local_world_size_one_process_is_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threads: None
) -> None:
    monkeypatch.delenv("LOCAL_WORLD_SIZE", raising=False)
    host = host_metadata(record(tmp_path / "traces"))
    assert host["local_processes"] == 1
    assert host["local_processes_source"] == "default"


def test_dataloader_workers_are_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threads: None
) -> None:
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "1")
    torch.set_num_threads(1)
    data = torch.utils.data.TensorDataset(torch.randn(64, 8))
    loader = torch.utils.data.DataLoader(data, batch_size=4, num_workers=2)
    with sst.profile(steps=2, out=tmp_path / "traces", wait=1, warmup=1) as prof:
        for _, (batch,) in zip(range(4), loader, strict=False):
            batch.sum()
            prof.step()
    host = host_metadata(prof)
    assert host["dataloader_workers"] == 2
    # 1 process x 1 thread + 2 workers: oversubscribed only on a machine of fewer than 3 cores.
    found = {f.id for f in prof.report.findings}
    assert ("thread-oversubscription" in found) == (cores() < 3), sorted(found)


def test_multiprocessing_helpers_are_not_workers() -> None:
    """The resource tracker that multiprocessing leaves running (after a Dask cluster, a
    shared-memory tensor, ...) is a child process, but no DataLoader worker."""
    from multiprocessing import resource_tracker

    from stepscope.torch._profile import _child_processes, host_conditions

    resource_tracker.ensure_running()
    tracker_pid = getattr(resource_tracker._resource_tracker, "_pid", None)  # no public accessor
    if tracker_pid is None or tracker_pid not in _child_processes():
        pytest.skip("the resource tracker is not a child of this process here")
    assert host_conditions()["dataloader_workers"] == 0
