"""`stepscope diff` when the fix renames the op it fixes: adding DataLoader workers turns
`_SingleProcessDataLoaderIter.__next__` into `_MultiProcessingDataLoaderIter.__next__`. Both
runs are recorded here with torch.profiler (CPU); the diff must list the renamed iterator as
vanished and appeared, and put the input-bound finding's predicted gain beside the measured
change (the calibration line)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

SLOW_ITEM_SECONDS = 0.02
SINGLE = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
MULTI = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"


class Batches:
    """Eight ready-made batches; `delay` seconds of sleep per batch stand for slow decoding."""

    def __init__(self, delay: float) -> None:
        generator = torch.Generator().manual_seed(0)
        self.delay = delay
        self.inputs = torch.randn(8, 64, 128, generator=generator)
        self.targets = torch.randn(8, 64, 1, generator=generator)

    def __len__(self) -> int:
        return 8

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        if self.delay:
            time.sleep(self.delay)
        return self.inputs[index], self.targets[index]


def record(path: Path, *, delay: float, workers: int) -> Path:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = torch.utils.data.DataLoader(Batches(delay), batch_size=None, num_workers=workers)
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU],
        schedule=torch.profiler.schedule(wait=1, warmup=1, active=5),
        on_trace_ready=lambda profiler: profiler.export_chrome_trace(str(path)),
    ) as profiler:
        for inputs, targets in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(inputs), targets).backward()
            optimizer.step()
            profiler.step()
    assert path.exists()
    return path


def stepscope_command() -> str:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    assert command, "pip install . puts stepscope on PATH (or set STEPSCOPE_CLI)"
    return command


def run_diff(before: Path, after: Path) -> tuple[dict[str, Any], str]:
    done = subprocess.run(
        [stepscope_command(), "diff", str(before), str(after), "--json", "-"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    text = subprocess.run(
        # Wide: the test reads words and names, which a 100-column layout would cut or wrap.
        [stepscope_command(), "diff", str(before), str(after), "--width", "1000"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    ).stdout
    document: dict[str, Any] = json.loads(done.stdout)
    return document, text


@pytest.fixture(scope="module")
def diff(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    folder = tmp_path_factory.mktemp("renamed")
    before = record(folder / "single.json", delay=SLOW_ITEM_SECONDS, workers=0)
    after = record(folder / "workers.json", delay=0.0, workers=2)
    return run_diff(before, after)


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    """The slow loader against the same loop with the delay removed: input-bound resolved."""
    folder = tmp_path_factory.mktemp("fixed")
    before = record(folder / "slow.json", delay=SLOW_ITEM_SECONDS, workers=0)
    after = record(folder / "fixed.json", delay=0.0, workers=0)
    return run_diff(before, after)


def test_renamed_iterator_vanishes_and_appears(diff: tuple[dict[str, Any], str]) -> None:
    document, text = diff
    ops = document["ops"]
    vanished = {row["name"]: row for row in ops["vanished"]["rows"]}
    appeared = {row["name"]: row for row in ops["appeared"]["rows"]}
    assert SINGLE in vanished and SINGLE not in appeared
    assert MULTI in appeared and MULTI not in vanished
    # The single-process iterator waited for every slow batch in the before run.
    assert vanished[SINGLE]["before_self_cpu_ms_per_step"] > SLOW_ITEM_SECONDS * 1000 * 0.5
    assert vanished[SINGLE]["after_calls_per_step"] == 0
    assert appeared[MULTI]["before_calls_per_step"] == 0
    assert appeared[MULTI]["after_calls_per_step"] == pytest.approx(1)
    assert SINGLE not in {row["name"] for row in ops["rows"]}
    assert "Ops that vanished" in text and "_SingleProcessDataLoaderIter" in text
    assert "Ops that appeared" in text and "_MultiProcessingDataLoaderIter" in text


def test_calibration_of_the_resolved_input_bound_finding(
    fixed: tuple[dict[str, Any], str],
) -> None:
    document, text = fixed
    assert document["step_time"]["verdict"] == "faster"
    resolved = {f["id"] for f in document["findings"]["resolved"]}
    assert "input-bound" in resolved
    rows = {row["id"]: row for row in document["calibration"]}
    row = rows["input-bound"]
    assert row["predicted_likely_ms_per_step"] > 0
    assert row["predicted_bound_ms_per_step"] >= row["predicted_likely_ms_per_step"]
    # Measured: the mean step time fell, as step_time says.
    assert row["measured_ms_per_step"] == pytest.approx(-document["step_time"]["change_ms"])
    low, high = row["measured_ms_per_step_ci"]
    assert low <= row["measured_ms_per_step"] <= high
    assert row["measured_over_predicted"] == pytest.approx(
        row["measured_ms_per_step"] / row["predicted_likely_ms_per_step"]
    )
    assert "calibration: input-bound" in text
