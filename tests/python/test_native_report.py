"""The Python boundary is an object (issue 12): one analysis held by the library
(`_core.NativeReport`), rendered and written from it; `stepscope.diff()`; one TraceError
subclass per kind of failure; writes through the library's atomic writer; a generated stub."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import stat
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import kineto_trace, write_trace

import stepscope
from stepscope import _core


def cli() -> str:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    if not command:
        pytest.skip("no stepscope command: set STEPSCOPE_CLI or pip install .")
    return command


def run_cli(*arguments: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([cli(), *arguments], capture_output=True, check=False)


def without_timing(document: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in document.items() if key != "timing"}


def test_renderings_come_from_the_analysis_not_the_trace(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "gone.json", kineto_trace(steps=4))
    report = stepscope.analyze(trace, top=5)
    trace.unlink()  # every rendering below would fail if it read the trace again
    html = report.to_html()
    assert html.startswith("<!DOCTYPE html>") and 'data-chart="step-time"' in html
    assert "Profiler steps" in str(report) and str(report) == report.to_text()
    assert report.to_text(top=3) != "" and report.to_html(top=3).startswith("<!DOCTYPE html>")
    assert json.loads(report.to_json())["schema"] == "stepscope.analyze"
    assert report.to_dict()["ranks"][0]["steps"]["count"] == 4
    assert report.findings == stepscope.Report.from_json(report.to_json()).findings


def test_text_fits_the_width_asked_for(tmp_path: Path) -> None:
    report = stepscope.analyze(write_trace(tmp_path / "t.json", kineto_trace(steps=4)))
    for width in (60, 100):
        lines = report.to_text(width=width).splitlines()
        assert lines and max(len(line) for line in lines) <= width
    assert report.to_text(width=60) != report.to_text(width=100)
    with pytest.raises(stepscope.BadOptionError):
        report.to_text(width=10)


def test_json_indent_is_a_layout_of_the_same_document(trace_file: Path) -> None:
    report = stepscope.analyze(trace_file)
    compact = report.to_json(indent=None)
    indented = report.to_json(indent=2)
    assert "\n" not in compact.rstrip("\n") and '\n  "schema": ' in indented
    assert json.loads(compact) == json.loads(indented) == report.to_dict()
    assert json.loads(indented) == json.loads(json.dumps(json.loads(indented), indent=2))


def test_findings_are_built_from_the_library_structs(trace_file: Path) -> None:
    native = _core.analyze(str(trace_file))
    entries = native.findings()
    from_json = json.loads(native.to_json())["ranks"][0]["diagnosis"]["findings"]
    assert entries, "the small trace has findings"
    assert [e["id"] for e in entries] == [e["id"] for e in from_json]
    # The same figures, to the last bit: µs exact from ns, other doubles as the JSON rounds them.
    assert entries == from_json


def test_to_pandas_tables(trace_file: Path) -> None:
    pandas = pytest.importorskip("pandas")
    report = stepscope.analyze(trace_file)
    findings = report.to_pandas("findings")
    assert isinstance(findings, pandas.DataFrame)
    assert list(findings["id"]) == [f.id for f in report.findings]
    assert "expected_gain.likely_us_per_step" in findings.columns
    steps = report.to_pandas("steps")
    assert len(steps) == len(report.rank(0)["steps"]["steps"]) and set(steps["rank"]) == {0}
    operators = report.to_pandas("operators")
    assert list(operators["name"]) == [row["name"] for row in report.rank(0)["operators"]["rows"]]
    kernels = report.to_pandas("kernels")
    assert len(kernels) > 0 and {"rank", "device", "name", "total_us"} <= set(kernels.columns)
    with pytest.raises(ValueError, match="table must be one of"):
        report.to_pandas("nothing")  # type: ignore[arg-type]


def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    before = write_trace(tmp_path / "before.json", kineto_trace(steps=6))
    after = write_trace(tmp_path / "after.json.gz", kineto_trace(steps=6))
    return before, after


def test_diff_matches_the_cli(tmp_path: Path) -> None:
    before, after = two_runs(tmp_path)
    change = stepscope.diff(before, after, top=5, seed=7, resamples=500)
    done = run_cli(
        "diff", str(before), str(after), "--top", "5", "--seed", "7", "--resamples", "500",
        "--json", "-", "-q",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert change.to_json() == done.stdout.decode()
    assert change.verdict == change.to_dict()["step_time"]["verdict"]
    assert change.verdict in {"faster", "slower", "no significant change", "undetermined"}
    assert change.to_html().startswith("<!DOCTYPE html>")
    assert "before.json" in str(change) and change.exit_code == 0
    html = change.to_html(tmp_path / "diff.html")
    assert (tmp_path / "diff.html").read_text() == html


def slowed(trace: dict[str, Any], factor: float) -> dict[str, Any]:
    """The trace with every event's start (from the first) and duration times `factor`."""
    events = trace["traceEvents"]
    origin = min(e["ts"] for e in events if "ts" in e)
    for event in events:
        if "ts" in event:
            event["ts"] = origin + (event["ts"] - origin) * factor
        if "dur" in event:
            event["dur"] = event["dur"] * factor
    return trace


def test_diff_exit_code_follows_fail_if_slower(tmp_path: Path) -> None:
    before = write_trace(tmp_path / "before.json", kineto_trace(steps=6))
    after = write_trace(tmp_path / "after.json", slowed(kineto_trace(steps=6), 1.5))
    change = stepscope.diff(before, after, resamples=500, fail_if_slower=5)
    assert change.verdict == "slower"
    assert change.step_change["ratio_low"] > 1.05
    assert change.exit_code == 3
    assert stepscope.diff(before, after, resamples=500, fail_if_slower=80).exit_code == 0
    assert stepscope.diff(before, after, resamples=500).exit_code == 0
    done = run_cli("diff", str(before), str(after), "--resamples", "500", "-q", "--no-report",
                   "--fail-if-slower", "5")  # fmt: skip
    assert done.returncode == change.exit_code, done.stderr
    with pytest.raises(stepscope.BadOptionError, match="resamples"):
        stepscope.diff(before, after, resamples=5)


def test_annotate_matches_the_cli(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "trace.json.gz", kineto_trace(steps=4))
    from_python = tmp_path / "python.json.gz"
    from_cli = tmp_path / "cli.json.gz"
    stepscope.analyze(trace).annotate(from_python)
    done = run_cli("analyze", str(trace), "-q", "--no-report", "--annotate", str(from_cli))
    assert done.returncode == 0, done.stderr
    python_events = json.loads(gzip.decompress(from_python.read_bytes()))["traceEvents"]
    assert python_events == json.loads(gzip.decompress(from_cli.read_bytes()))["traceEvents"]
    assert any(e.get("cat") == "stepscope" for e in python_events)


def test_annotate_refuses_a_folder_and_the_input(trace_file: Path, trace_folder: Path) -> None:
    with pytest.raises(stepscope.BadOptionError, match="not a folder"):
        stepscope.analyze(trace_folder).annotate(trace_folder.parent / "out.json")
    before = trace_file.read_bytes()
    with pytest.raises(stepscope.BadOptionError, match="would overwrite the input"):
        stepscope.analyze(trace_file).annotate(trace_file)
    assert trace_file.read_bytes() == before
    with pytest.raises(ValueError, match="annotate"):
        stepscope.Report.from_json(stepscope.analyze(trace_file).to_json()).annotate("x.json")


def bad_input(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"{kind}.json"
    if kind == "missing":
        return path
    if kind == "not json":
        path.write_bytes(b"\x00\x01 this is not JSON")
    elif kind == "truncated":
        text = json.dumps(kineto_trace())
        path.write_text(text[: len(text) // 2])
    elif kind == "not a trace":
        path.write_text(json.dumps({"nodes": [1, 2]}))
    elif kind == "too deep":
        nested = "[" * 100000 + "]" * 100000
        event = '{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":1,"args":{"x":'
        path.write_text('{"traceEvents":[' + event + nested + "}}]}")
    return path


@pytest.mark.parametrize(
    ("kind", "error"),
    [
        ("missing", stepscope.TraceIOError),
        ("not json", stepscope.NotJsonError),
        ("truncated", stepscope.NotJsonError),
        ("not a trace", stepscope.NotTraceError),
        ("too deep", stepscope.LimitExceededError),
    ],
)
def test_each_kind_raises_its_subclass(tmp_path: Path, kind: str, error: type[Exception]) -> None:
    path = bad_input(tmp_path, kind)
    with pytest.raises(error) as caught:
        stepscope.analyze(path)
    assert isinstance(caught.value, stepscope.TraceError) and isinstance(caught.value, ValueError)
    assert str(caught.value).startswith(str(path))
    assert caught.value.file == str(path)  # type: ignore[attr-defined]
    others = {stepscope.TraceIOError, stepscope.NotJsonError, stepscope.NotTraceError}
    assert not any(isinstance(caught.value, other) for other in others - {error})


def test_unsupported_and_bad_option_kinds(tmp_path: Path, trace_file: Path) -> None:
    evil = tmp_path / "evil.pickle"
    evil.write_bytes(b"\x80\x02cos\nsystem\n.")  # would import and call: refused, not run
    with pytest.raises(stepscope.UnsupportedError) as caught:
        stepscope.memory_snapshot(evil)
    assert caught.value.kind == "unsupported"  # type: ignore[attr-defined]
    with pytest.raises(stepscope.BadOptionError) as bad:
        stepscope.analyze(trace_file, rank=5)
    assert bad.value.kind == "bad_option"  # type: ignore[attr-defined]
    with pytest.raises(stepscope.BadOptionError, match="mode"):
        stepscope.analyze(trace_file, mode="fast")  # type: ignore[arg-type]


def test_io_error_is_an_oserror_and_a_trace_error(trace_file: Path, tmp_path: Path) -> None:
    report = stepscope.analyze(trace_file)
    with pytest.raises(OSError) as caught:
        report.to_html(tmp_path / "no" / "such" / "report.html")
    assert isinstance(caught.value, stepscope.TraceIOError)
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("write", ["json", "html", "text"])
def test_writes_refuse_the_input(trace_file: Path, write: str) -> None:
    report = stepscope.analyze(trace_file)
    before = trace_file.read_bytes()
    with pytest.raises(stepscope.BadOptionError, match="would overwrite the input"):
        getattr(report, f"to_{write}")(trace_file)
    link = trace_file.parent / "alias.json"
    link.symlink_to(trace_file.name)
    with pytest.raises(stepscope.BadOptionError):
        getattr(report, f"to_{write}")(link)
    assert trace_file.read_bytes() == before


def test_symlink_output_keeps_the_link(trace_file: Path, tmp_path: Path) -> None:
    link = tmp_path / "latest.html"
    link.symlink_to("report-1.html")
    html = stepscope.analyze(trace_file).to_html(link)
    assert link.is_symlink()
    assert (tmp_path / "report-1.html").read_text() == html


def test_fifo_output_is_written_through(trace_file: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    text = stepscope.analyze(trace_file).to_json(fifo)
    reader.join(timeout=30)
    assert received == [text.encode()]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe", "small_trace.json"]


def test_the_generated_stub_is_installed() -> None:
    stub = Path(_core.__file__).parent / "_core.pyi"
    assert stub.is_file(), "nanobind_add_stub should install _core.pyi beside the module"
    text = stub.read_text()
    assert "class NativeReport:" in text and "class NativeDiff:" in text
    assert "class TraceIOError(TraceError, OSError):" in text


def test_analysis_runs_without_the_gil(tmp_path: Path) -> None:
    """The trace comes through a FIFO written by a Python thread: the analysis blocks reading
    it, and the writer can only go on if the analysis released the GIL (else both wait)."""
    fifo = tmp_path / "trace.json"
    os.mkfifo(fifo)
    payload = json.dumps(kineto_trace(steps=4)).encode()
    reports: list[stepscope.Report] = []

    def feed() -> None:
        with open(fifo, "wb") as stream:
            for start in range(0, len(payload), 4096):
                stream.write(payload[start : start + 4096])
                stream.flush()

    writer = threading.Thread(target=feed, daemon=True)
    analyser = threading.Thread(target=lambda: reports.append(stepscope.analyze(fifo)), daemon=True)
    writer.start()
    analyser.start()
    analyser.join(timeout=60)
    writer.join(timeout=60)
    assert len(reports) == 1 and reports[0].rank(0)["steps"]["count"] == 4
