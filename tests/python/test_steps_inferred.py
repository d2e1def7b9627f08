"""Traces without ProfilerStep#N, recorded with real PyTorch on the CPU as inference scripts do
(`with profile():` and no schedule): the diagnosis finds the iterations and says which."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import stepscope

torch = pytest.importorskip("torch")
from torch.profiler import ProfilerActivity, profile, record_function  # noqa: E402


def model() -> Any:
    return torch.nn.Sequential(*[torch.nn.Linear(32, 32) for _ in range(4)]).eval()


def serve_request(net: Any, batch: Any) -> Any:
    return net(batch)


def record(path: Path, *, annotate: bool, with_stack: bool) -> Path:
    net, batch = model(), torch.randn(8, 32)
    with (
        profile(activities=[ProfilerActivity.CPU], with_stack=with_stack) as prof,
        torch.inference_mode(),
    ):
        for _ in range(5):
            if annotate:
                with record_function("serve_request"):
                    serve_request(net, batch)
            else:
                serve_request(net, batch)
    prof.export_chrome_trace(str(path))
    return path


def diagnosis_of(path: Path) -> dict[str, Any]:
    report = stepscope.analyze(path)
    diagnosis: dict[str, Any] = report.ranks[0]["diagnosis"]
    return diagnosis


def test_a_repeated_annotation_is_the_steps(tmp_path: Path) -> None:
    diagnosis = diagnosis_of(record(tmp_path / "t.json", annotate=True, with_stack=False))
    assert diagnosis["bottleneck"] != "undetermined"
    assert "5 repetitions of 'serve_request'" in diagnosis["window"]


def test_a_repeated_function_of_the_users_code_is_the_steps(tmp_path: Path) -> None:
    diagnosis = diagnosis_of(record(tmp_path / "t.json", annotate=False, with_stack=True))
    assert "5 repetitions of" in diagnosis["window"]
    assert "serve_request" in diagnosis["window"] or "nn.Module" in diagnosis["window"]


def test_without_a_repeated_region_the_whole_trace_is_one_step(tmp_path: Path) -> None:
    diagnosis = diagnosis_of(record(tmp_path / "t.json", annotate=False, with_stack=False))
    assert diagnosis["bottleneck"] != "undetermined"
    assert "whole trace" in diagnosis["window"]
