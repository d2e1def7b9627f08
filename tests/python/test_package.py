"""The Python package and the `stepscope` command a wheel installs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import stepscope
from stepscope import _core


def without_timing(document: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in document.items() if key != "timing"}


def test_import_and_version() -> None:
    assert isinstance(stepscope.__version__, str)
    assert stepscope.__version__ == _core.version() == stepscope.version()
    assert stepscope.__version__.count(".") >= 2
    assert issubclass(stepscope.TraceError, ValueError)
    assert stepscope.TraceError.__module__ == "stepscope"


def test_analyze_small_trace(trace_file: Path) -> None:
    report = stepscope.analyze(trace_file)
    assert isinstance(report, stepscope.Report)
    assert report.schema == "stepscope.analyze"
    assert report.schema_version >= 1
    assert report.stepscope_version == stepscope.__version__
    assert report.mode == "native"
    assert [rank["rank"] for rank in report.ranks] == [0]
    rank = report.rank(0)
    assert rank["steps"]["count"] == 3
    assert rank["import"]["events"] > 0
    assert rank["devices"][0]["name"] == "NVIDIA A100-SXM4-80GB"
    # Attribute and item access reach the same sections.
    assert report.input == report["input"] and "ranks" in report
    assert report.input["path"] == str(trace_file)
    with pytest.raises(AttributeError):
        _ = report.no_such_section
    with pytest.raises(KeyError):
        report.rank(7)
    text = str(report)
    assert "Profiler steps" in text and "small_trace.json" in text
    assert "stepscope.Report" in repr(report)


def test_report_matches_core_json_and_text(trace_file: Path) -> None:
    report = stepscope.analyze(trace_file, top=5)
    native = _core.analyze(str(trace_file), top=5)
    assert without_timing(json.loads(native.to_json())) == without_timing(report.to_dict())
    assert native.to_text() == str(report)


def test_to_dict_and_to_json_round_trip(trace_file: Path, tmp_path: Path) -> None:
    report = stepscope.analyze(trace_file)
    data = report.to_dict()
    assert isinstance(data, dict)
    data["ranks"].clear()  # a copy: the report is unchanged
    assert report.ranks

    assert json.loads(report.to_json()) == report.to_dict()
    out = tmp_path / "out" / "report.json"
    out.parent.mkdir()
    text = report.to_json(out)
    assert out.read_text(encoding="utf-8") == text
    assert stepscope.Report.from_json(out.read_text(encoding="utf-8")) == report
    assert os.listdir(out.parent) == ["report.json"]  # no temporary file left behind
    # Overwrites in place.
    report.to_json(str(out), indent=None)
    assert json.loads(out.read_text(encoding="utf-8")) == report.to_dict()
    assert os.listdir(out.parent) == ["report.json"]


def test_to_json_failure_leaves_nothing(trace_file: Path, tmp_path: Path) -> None:
    report = stepscope.analyze(trace_file)
    with pytest.raises(OSError):
        report.to_json(tmp_path / "missing_folder" / "report.json")
    assert not (tmp_path / "missing_folder").exists()


@pytest.mark.parametrize("mode", ["native", "compat-hta", "compat-tb"])
def test_modes(trace_file: Path, mode: str) -> None:
    report = stepscope.analyze(trace_file, mode=mode)  # type: ignore[arg-type]
    assert report.mode == mode
    assert len(report.ranks) == 1


def test_steps_and_threads(trace_file: Path) -> None:
    whole = stepscope.analyze(trace_file, threads=1)
    part = stepscope.analyze(trace_file, steps=(1, 2), threads=2)
    assert whole.rank(0)["steps"]["count"] == 3
    kept = [s for s in part.rank(0)["steps"]["steps"] if s["status"] == "kept"]
    assert [s["number"] for s in kept] == [1, 2]


def test_folder_of_ranks(trace_folder: Path) -> None:
    report = stepscope.analyze(trace_folder)
    assert [rank["rank"] for rank in report.ranks] == [0, 1]
    only = stepscope.analyze(trace_folder, rank=1)
    assert [rank["rank"] for rank in only.ranks] == [1]


def test_bad_arguments_are_value_errors(trace_file: Path) -> None:
    with pytest.raises(ValueError, match="mode"):
        stepscope.analyze(trace_file, mode="fast")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="top"):
        stepscope.analyze(trace_file, top=0)
    with pytest.raises(ValueError, match="steps"):
        stepscope.analyze(trace_file, steps=(3, 1))


def bad_inputs(tmp_path: Path) -> dict[str, Path]:
    truncated = tmp_path / "truncated_trace.json"
    text = json.dumps({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2}] * 5})
    truncated.write_text(text[: len(text) // 2])
    not_a_trace = tmp_path / "not_a_trace.json"
    not_a_trace.write_text(json.dumps({"nodes": [], "schema": "1.0.1"}))
    return {
        "truncated": truncated,
        "not a trace": not_a_trace,
        "missing": tmp_path / "missing_trace.json",
    }


@pytest.mark.parametrize("case", ["truncated", "not a trace", "missing"])
def test_trace_error_names_the_file(tmp_path: Path, case: str) -> None:
    path = bad_inputs(tmp_path)[case]
    with pytest.raises(stepscope.TraceError) as caught:
        stepscope.analyze(path)
    message = str(caught.value)
    assert str(path) in message
    assert message.startswith(str(path))
    # The compiled function raises the same exception; it is a ValueError too.
    with pytest.raises(ValueError, match=path.name):
        _core.analyze(str(path))


def test_truncated_message_says_where(tmp_path: Path) -> None:
    with pytest.raises(stepscope.TraceError, match=r"at byte \d+.*(truncated|end of input)"):
        stepscope.analyze(bad_inputs(tmp_path)["truncated"])


def stepscope_command() -> str:
    found = shutil.which("stepscope")
    assert found is not None, "`pip install .` should put the stepscope command on PATH"
    return found


def test_cli_on_path_analyzes(trace_file: Path) -> None:
    done = subprocess.run(
        [stepscope_command(), "analyze", str(trace_file), "--json", "-", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert without_timing(document) == without_timing(stepscope.analyze(trace_file).to_dict())
    version = subprocess.run(
        [stepscope_command(), "--version"], capture_output=True, text=True, check=True
    )
    assert stepscope.__version__ in version.stdout


@pytest.mark.parametrize("case", ["truncated", "not a trace", "missing"])
def test_cli_bad_input_exits_2_naming_the_file(tmp_path: Path, case: str) -> None:
    path = bad_inputs(tmp_path)[case]
    done = subprocess.run(
        [stepscope_command(), "analyze", str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert str(path) in done.stderr


def test_report_to_html(trace_file: Path, tmp_path: Path) -> None:
    report = stepscope.analyze(trace_file)
    out = tmp_path / "report.html"
    html = report.to_html(out)
    assert html.startswith("<!DOCTYPE html>") and out.read_text() == html
    assert 'data-chart="step-time"' in html
    with pytest.raises(ValueError, match="to_html"):
        stepscope.Report.from_json(report.to_json()).to_html()


def test_memory_snapshot_from_python(tmp_path: Path) -> None:
    import pickle

    frames = [{"filename": "train.py", "line": 3, "name": "step"}]
    snapshot = {
        "segments": [],
        "device_traces": [
            [{"action": "alloc", "addr": 16, "size": 512, "stream": 0, "frames": frames}]
        ],
    }
    path = tmp_path / "snapshot.pickle"
    path.write_bytes(pickle.dumps(snapshot))
    report = stepscope.memory_snapshot(path)
    trace = report.devices[0]["trace"]
    assert trace["never_freed_bytes"] == 512
    assert trace["never_freed_by_site"][0]["site"] == "step (train.py:3)"
    assert "never freed within the trace" in str(report)
    with pytest.raises(stepscope.TraceError, match="not a pickle opcode"):
        stepscope.memory_snapshot(_json_file(tmp_path))


def _json_file(folder: Path) -> Path:
    path = folder / "trace.json"
    path.write_text('{"traceEvents": []}')
    return path
