"""The inference rules on loops recorded with real PyTorch on the CPU: each fires on the loop
recorded with the mistake and stays silent on the corrected loop."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")


def cli() -> str:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    if not command:
        pytest.skip("no stepscope command: set STEPSCOPE_CLI or pip install .")
    return command


def record(path: Path, *, grad: bool, train: bool) -> Path:
    """Four profiled steps of inference on a 12-block MLP with dropout."""
    blocks = [
        torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Dropout(0.1))
        for _ in range(12)
    ]
    model = torch.nn.Sequential(*blocks)
    model.train(train)
    example = torch.randn(16, 64)
    from torch.profiler import ProfilerActivity, profile, schedule

    def mode() -> contextlib.AbstractContextManager[Any]:
        return contextlib.nullcontext() if grad else torch.inference_mode()

    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=0, warmup=1, active=3, repeat=1),
        on_trace_ready=lambda p: p.export_chrome_trace(str(path)),
    ) as profiler:
        for _ in range(4):
            with mode():
                model(example)
            profiler.step()
    return path


def finding_ids(trace: Path) -> Iterator[str]:
    done = subprocess.run(
        [cli(), "analyze", str(trace), "--json", "-"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    for finding in json.loads(done.stdout)["ranks"][0]["diagnosis"]["findings"]:
        yield finding["id"]


def test_autograd_and_dropout_left_on_are_found(tmp_path: Path) -> None:
    ids = set(finding_ids(record(tmp_path / "mistake.json", grad=True, train=True)))
    assert {"autograd-in-inference", "dropout-in-inference"} <= ids


def test_the_corrected_loop_has_neither(tmp_path: Path) -> None:
    ids = set(finding_ids(record(tmp_path / "fixed.json", grad=False, train=False)))
    assert not ids & {"autograd-in-inference", "dropout-in-inference"}


def test_each_mistake_alone(tmp_path: Path) -> None:
    grad_only = set(finding_ids(record(tmp_path / "grad.json", grad=True, train=False)))
    assert "autograd-in-inference" in grad_only and "dropout-in-inference" not in grad_only
    train_only = set(finding_ids(record(tmp_path / "train.json", grad=False, train=True)))
    assert "dropout-in-inference" in train_only and "autograd-in-inference" not in train_only
