"""stepscope.torch.profile's defaults and checks (issue 15), and the line of code to change:
real CPU traces recorded here, with Python stacks and with the default module annotations,
whose findings and module view point back into this file."""

from __future__ import annotations

import inspect
import json
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")

import torch
from torch_loops import Trainer, loader

from stepscope import torch as sst
from stepscope.torch._profile import measure_overhead, still_warming_up


def test_defaults_record_modules_not_stacks(tmp_path: Path) -> None:
    prof = sst.profile(steps=2, out=tmp_path)
    assert prof.with_stack is False and prof.with_modules is True
    assert prof.profiler.with_stack is False
    assert prof.profiler.with_modules is True
    stacks = sst.profile(steps=2, out=tmp_path, with_stack=True)
    assert stacks.profiler.with_stack is True


def test_loop_shorter_than_the_schedule_is_an_error(tmp_path: Path) -> None:
    with (
        pytest.raises(sst.ProfileTooShortError, match=r"wait=1 \+ warmup=1 \+ steps=3 = 5"),
        sst.profile(steps=3, out=tmp_path, wait=1, warmup=1, analyze=False) as prof,
    ):
        for _ in range(4):
            torch.ones(4).sum()
            prof.step()
    assert prof.steps_taken == 4
    assert prof._report is None  # nothing was analysed


def test_overhead_and_steady_state_figures() -> None:
    # wait 2 (steps 0, 1), warmup 1 (step 2), active 3 (3..5), then 2 after (6, 7).
    seconds = [0.5, 0.010, 0.011, 0.020, 0.020, 0.020, 0.010, 0.010]
    overhead = measure_overhead(seconds, wait=2, warmup=1, active=3)
    assert overhead is not None
    assert overhead.recorded_step_ms == pytest.approx(20)
    # Step 0 (one-off costs) is left out when other reference steps exist.
    assert overhead.reference_step_ms == pytest.approx(10)
    assert overhead.reference_steps == 3
    assert overhead.ratio == pytest.approx(2)
    assert not overhead.includes_first_step
    only_first = measure_overhead([0.03, 0.01, 0.02, 0.02], wait=1, warmup=1, active=2)
    assert only_first is not None and only_first.includes_first_step
    assert measure_overhead([0.01, 0.02], wait=0, warmup=0, active=2) is None
    assert still_warming_up([0.030, 0.025, 0.012, 0.010]) == pytest.approx((27.5, 11.0))
    assert still_warming_up([0.010, 0.011, 0.010, 0.010]) is None
    assert still_warming_up([0.010]) is None


def test_step_times_still_falling_warn(tmp_path: Path) -> None:
    with (
        pytest.warns(sst.ProfileWarning, match="still falling"),
        sst.profile(steps=4, out=tmp_path, wait=1, warmup=1, analyze=False) as prof,
    ):
        for index in range(6):
            time.sleep(0.08 / (index + 1))  # recorded: 27, 20 | 16, 13 ms: not steady
            prof.step()
    assert any("still falling" in message for message in prof.warnings)


def test_steady_loop_does_not_warn(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", sst.ProfileWarning)
        with sst.profile(steps=4, out=tmp_path, wait=2, warmup=1, analyze=False) as prof:
            for _ in range(9):
                time.sleep(0.02)
                prof.step()
    assert prof.overhead is not None and prof.overhead.reference_steps == 3
    assert 0.5 < prof.overhead.ratio < OVERHEAD_SANITY


OVERHEAD_SANITY = 1.25  # 20 ms of sleep per step: the profiler adds far less than this


def test_any_phase_name_is_recorded_as_written(tmp_path: Path) -> None:
    with sst.profile(steps=2, out=tmp_path, wait=0, warmup=1) as prof:
        for _ in range(3):
            with prof.phase("loss"):
                torch.ones(64).sum()
            prof.step()
    phases = prof.report.rank(0)["phases"]
    assert [label["name"] for label in phases["labels"]] == ["loss"]
    assert phases["labels"][0]["markers"] >= 2
    with pytest.raises(ValueError, match="non-empty"), prof.phase(" "):
        pass


def run_loop(out: Path, *, with_stack: bool) -> sst.Profile:
    """The loop whose line the findings must name: an input-bound training loop."""
    trainer = Trainer()
    with sst.profile(steps=3, out=out, wait=1, warmup=1, with_stack=with_stack) as prof:
        for index, batch in enumerate(loader(delay=0.01)):
            trainer.step(batch)
            prof.step()
            if index + 1 == 5:
                break
    return prof


def lines_of(function: Any) -> range:
    source, first = inspect.getsourcelines(function)
    return range(first, first + len(source))


def trace_events(path: Path) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = json.loads(path.read_bytes())["traceEvents"]
    return events


def check_module_view(report_rank: dict[str, Any]) -> list[dict[str, Any]]:
    modules = report_rank["modules"]
    assert modules["applicable"], modules
    rows: list[dict[str, Any]] = modules["rows"]
    paths = [row["path"] for row in rows]
    # torch_loops.small_model: Sequential(Linear, ReLU, Linear), called once per step.
    assert paths[0] == "Sequential_0"
    assert {"Sequential_0/Linear_0", "Sequential_0/ReLU_0", "Sequential_0/Linear_1"} <= set(paths)
    for row in rows:
        assert 0 <= row["host_self_us"] <= row["host_total_us"] + 1e-9, row
        assert row["device_self_us"] <= row["device_total_us"] + 1e-9
        children = [r for r in rows if r["parent"] == rows.index(row)]
        assert sum(c["host_total_us"] for c in children) <= row["host_total_us"] + 1e-6
        assert row["host_self_us"] + sum(c["host_total_us"] for c in children) == pytest.approx(
            row["host_total_us"], abs=0.01
        )
    assert rows[0]["calls"] == modules["kept_steps"] == 3
    return rows


def test_stacks_and_modules_name_this_file(tmp_path: Path) -> None:
    prof = run_loop(tmp_path / "stacks", with_stack=True)
    report = prof.report
    assert report.bottleneck == "input_pipeline", str(report)
    finding = report.findings[0]
    assert finding.code is not None
    assert finding.code.file is not None and finding.code.file.endswith("test_profile_code.py")
    rank = report.rank(0)
    code = rank["diagnosis"]["findings"][0]["code"]
    assert code is not None, rank["diagnosis"]["findings"][0]
    assert code["file"].endswith("test_profile_code.py"), code
    assert code["function"] == "run_loop"
    assert code["line"] in lines_of(run_loop)
    assert finding.to_dict()["code"] == code
    rows = check_module_view(rank)
    # The module view's total host time of the model equals its frames in the trace.
    assert prof.trace_file is not None
    events = trace_events(prof.trace_file)
    steps = [e for e in events if str(e.get("name", "")).startswith("ProfilerStep#")]
    begin = min(float(e["ts"]) for e in steps)
    end = max(float(e["ts"]) + float(e["dur"]) for e in steps)
    model = [
        e
        for e in events
        if e.get("cat") == "python_function"
        and e.get("name") == "nn.Module: Sequential_0"
        and begin <= float(e["ts"]) < end
    ]
    assert len(model) == 3
    assert rows[0]["host_total_us"] == pytest.approx(sum(float(e["dur"]) for e in model), abs=0.01)
    assert "code:" in str(report) and "test_profile_code.py" in str(report)


def test_module_annotations_without_stacks(tmp_path: Path) -> None:
    prof = run_loop(tmp_path / "modules", with_stack=False)
    assert prof.trace_file is not None
    events = trace_events(prof.trace_file)
    assert not any(e.get("cat") == "python_function" for e in events)
    annotations = [e for e in events if str(e.get("name", "")).startswith("nn.Module: ")]
    assert {e["name"] for e in annotations} >= {"nn.Module: Sequential_0", "nn.Module: Linear_1"}
    rank = prof.report.rank(0)
    check_module_view(rank)
    assert "annotations" in rank["modules"]["source"]


def test_trace_without_context_says_how_to_record(tmp_path: Path) -> None:
    path = tmp_path / "plain.json"
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profiler:
        torch.ones(8).sum()
    profiler.export_chrome_trace(str(path))
    import stepscope

    report = stepscope.analyze(path)
    modules = report.rank(0)["modules"]
    assert not modules["applicable"]
    assert "with_stack=True" in modules["not_applicable_reason"]
    assert "with_stack=True" in str(report)
