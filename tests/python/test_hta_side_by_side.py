"""HTA (from PyPI) and stepscope's compat-hta mode on the same small trace, side by side: the
temporal and kernel-class breakdowns must agree. The trace is the bundled example generator's
(fractional timestamps, so HTA's rounding is exercised). Skipped, saying why, only when HTA
cannot be imported; HTA is a test dependency, never a runtime one.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


def hta_or_skip() -> Any:
    try:
        from hta.trace_analysis import TraceAnalysis  # type: ignore[import-untyped]
    except Exception as error:  # any import failure means HTA is unusable here
        pytest.skip(f"HTA (HolisticTraceAnalysis) cannot be imported: {error}")
    return TraceAnalysis


def write_example(folder: Path, bottleneck: str) -> None:
    spec = importlib.util.spec_from_file_location(
        "make_example_trace", REPO / "examples" / "make_example_trace.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_example_trace"] = module
    spec.loader.exec_module(module)
    folder.mkdir()
    module.write(
        module.build_trace(steps=5, seed=11, bottleneck=bottleneck),
        folder / "rank0.pt.trace.json.gz",
    )


def stepscope_hta(folder: Path) -> dict[str, Any]:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    assert command, "pip install . puts stepscope on PATH"
    output = subprocess.run(
        [command, "analyze", str(folder), "--mode", "compat-hta", "--json", "-"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    hta: dict[str, Any] = json.loads(output)["hta"]
    return hta


@pytest.mark.parametrize("bottleneck", ["input", "launch"])
def test_temporal_and_kernel_breakdowns_agree_with_hta(tmp_path: Path, bottleneck: str) -> None:
    trace_analysis = hta_or_skip()
    folder = tmp_path / "traces"
    write_example(folder, bottleneck)
    analyzer = trace_analysis(trace_dir=str(folder))
    temporal = analyzer.get_temporal_breakdown(visualize=False).iloc[0]
    classes, _ = analyzer.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=True)
    ours = stepscope_hta(folder)
    our_temporal = ours["ranks"][0]["temporal"]
    assert our_temporal["kernel_span_us"] == pytest.approx(float(temporal["kernel_time(us)"]))
    assert our_temporal["idle_us"] == pytest.approx(float(temporal["idle_time(us)"]))
    assert our_temporal["compute_us"] == pytest.approx(float(temporal["compute_time(us)"]))
    assert our_temporal["non_compute_us"] == pytest.approx(float(temporal["non_compute_time(us)"]))
    theirs = {
        row["kernel_type"]: float(row["sum"])
        for _, row in classes.iterrows()
        if float(row["sum"]) > 0
    }
    our_classes = {c["label"]: float(c["sum_us"]) for c in ours["kernel_classes"]}
    assert our_classes == pytest.approx(theirs)
