"""Hostile and careless input to the Python side: outputs that are inputs, Ctrl-C, NUL bytes in
paths, paths that look like JSON, and every failure a documented TraceError naming its file."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import stepscope

# A model file for the lab: building it leaves a mark, so a test can tell whether the lab ran
# the user's code at all; the model's forward optionally sleeps (alternately short and long).
MODEL_SOURCE = """
import time
from pathlib import Path

import torch

import {helper}


class Sleepy(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 2)
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        Path("forward-ran").touch()
        time.sleep({sleeps}[self.calls % 2])
        return self.linear(x)


def build() -> tuple[torch.nn.Module, torch.Tensor]:
    Path("built").touch()
    return Sleepy(), torch.ones(2, 4)
"""


def write_model(folder: Path, sleeps: tuple[float, float] = (0.0, 0.0)) -> Path:
    (folder / "lab_helper.py").write_text("VALUE = 1\n", encoding="utf-8")
    model = folder / "lab_model.py"
    model.write_text(MODEL_SOURCE.format(helper="lab_helper", sleeps=sleeps), encoding="utf-8")
    return model


def lab(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "stepscope.lab", "inference", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


QUICK = ("--variants", "eval", "--no-sweep", "--iters", "3", "--warmup", "1", "--threads", "1")


@pytest.mark.parametrize(
    ("target", "options"),
    [
        ("lab_model.py:build", ("--html", "lab_model.py")),
        ("lab_model.py:build", ("--json", "lab_model.py")),
        ("lab_model:build", ("--json", "lab_model.py")),  # a module found on the path
        ("lab_model.py:build", ("--html", "alias.py")),  # the model through a symlink
        ("lab_model.py:build", ("--json", "out.json", "--html", "out.json")),
        ("lab_model.py:build", ("--json", "no such folder/out.json")),
    ],
)
def test_lab_refuses_bad_outputs_before_running_anything(
    tmp_path: Path, target: str, options: tuple[str, ...]
) -> None:
    model = write_model(tmp_path)
    (tmp_path / "alias.py").symlink_to(model.name)
    source = model.read_bytes()
    done = lab(target, *options, *QUICK, cwd=tmp_path)
    assert done.returncode != 0, done.stdout
    assert done.stderr.startswith("stepscope-lab: ") and "Traceback" not in done.stderr
    assert model.read_bytes() == source
    assert not (tmp_path / "built").exists()  # refused before the model's code ran
    assert not (tmp_path / "out.json").exists()
    assert not [p.name for p in tmp_path.iterdir() if ".tmp" in p.name]


def test_lab_never_writes_over_a_module_the_model_imports(tmp_path: Path) -> None:
    write_model(tmp_path)
    helper = tmp_path / "lab_helper.py"
    source = helper.read_bytes()
    done = lab("lab_model.py:build", "--json", "lab_helper.py", *QUICK, cwd=tmp_path)
    assert done.returncode != 0
    assert "would overwrite the input" in done.stderr and "lab_helper.py" in done.stderr
    assert helper.read_bytes() == source
    # Refused once the model was built (its imports are known only then), before any request.
    assert (tmp_path / "built").exists() and not (tmp_path / "forward-ran").exists()


def test_lab_ctrl_c_is_one_line_and_status_130(tmp_path: Path) -> None:
    write_model(tmp_path, sleeps=(0.2, 0.2))
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "stepscope.lab", "inference", "lab_model.py:build"),
            *("--variants", "eval", "--no-sweep", "--iters", "1000", "--budget", "600"),
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not (tmp_path / "forward-ran").exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the lab never called the model"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, err
    assert err.strip().splitlines() == ["stepscope-lab: interrupted"]
    assert out == ""


def test_lab_prints_each_warning_once(tmp_path: Path) -> None:
    # Requests alternately 1 ms and 40 ms: a spread wide enough to be warned about.
    write_model(tmp_path, sleeps=(0.001, 0.04))
    out = tmp_path / "lab.json"
    done = lab(
        "lab_model.py:build",
        "--json",
        str(out),
        "--variants",
        "eval",
        "--no-sweep",
        "--iters",
        "8",
        "--warmup",
        "1",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    warnings = json.loads(out.read_text(encoding="utf-8"))["warnings"]
    assert warnings, "the model's timings were expected to draw a warning"
    printed = done.stdout + done.stderr
    for warning in warnings:
        assert printed.count(warning) == 1, printed


def test_inference_lab_result_does_not_repeat_issued_warnings() -> None:
    pytest.importorskip("torch")
    import torch

    from stepscope import torch as sst
    from stepscope.torch import MeasurementWarning

    class Uneven(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.calls = 0

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            self.calls += 1
            time.sleep(0.04 if self.calls % 2 else 0.001)
            return x * 2

    def run(warn: bool) -> sst.InferenceLabResult:
        return sst.inference_lab(
            Uneven(), torch.ones(2, 4), variants=["eval"], sweep=False, iters=8, warmup=1, warn=warn
        )

    with pytest.warns(MeasurementWarning):
        issued = run(warn=True)
    assert issued.warnings
    assert not [w for w in issued.warnings if w in str(issued)]
    kept = run(warn=False)
    assert kept.warnings
    assert all(str(kept).count(w) == 1 for w in kept.warnings)


def write_trace_file(folder: Path) -> Path:
    from conftest import kineto_trace, write_trace

    return write_trace(folder / "base.json", kineto_trace())


def nul_calls(trace: Path) -> dict[str, Callable[[str], object]]:
    """Every public function that takes a path, given `path` where the test says."""
    report = stepscope.analyze(trace)
    change = stepscope.diff(trace, trace)
    job = stepscope.merge([stepscope.summarize(trace)])
    return {
        "analyze": lambda path: stepscope.analyze(path),
        "diff before": lambda path: stepscope.diff(path, trace),
        "diff after": lambda path: stepscope.diff(trace, path),
        "summarize": lambda path: stepscope.summarize(path),
        "merge": lambda path: stepscope.merge([path]),
        "memory_snapshot": lambda path: stepscope.memory_snapshot(path),
        "Report.to_json": lambda path: report.to_json(path),
        "Report.to_text": lambda path: report.to_text(path),
        "Report.to_html": lambda path: report.to_html(path),
        "Report.annotate": lambda path: report.annotate(path),
        "DiffReport.to_json": lambda path: change.to_json(path),
        "DiffReport.to_text": lambda path: change.to_text(path),
        "DiffReport.to_html": lambda path: change.to_html(path),
        "JobReport.to_json": lambda path: job.to_json(path),
    }


INPUTS = ("analyze", "diff before", "diff after", "summarize", "merge", "memory_snapshot")
OUTPUTS = (
    "Report.to_json",
    "Report.to_text",
    "Report.to_html",
    "Report.annotate",
    "DiffReport.to_json",
    "DiffReport.to_text",
    "DiffReport.to_html",
    "JobReport.to_json",
)


@pytest.mark.parametrize("name", INPUTS + OUTPUTS)
def test_a_path_with_a_nul_byte_is_refused(tmp_path: Path, name: str) -> None:
    trace = write_trace_file(tmp_path)
    out = tmp_path / "out.json"
    summary = tmp_path / "base.summary.json"
    summary.write_text(stepscope.summarize(trace), encoding="utf-8")
    # Cut at the NUL, an input path names a readable file and an output path a writable one:
    # reading or writing those instead would go unnoticed.
    given = {"merge": summary}.get(name, trace) if name in INPUTS else out
    path = f"{given}\x00tail"
    call = nul_calls(trace)[name]
    with pytest.raises(stepscope.BadOptionError) as caught:
        call(path)
    assert caught.value.file == path  # type: ignore[attr-defined]
    assert caught.value.kind == "bad_option"  # type: ignore[attr-defined]
    assert str(caught.value).startswith(f"{given}\\x00tail: ")
    assert not out.exists()


def test_merge_reads_a_str_as_a_path_even_when_it_starts_with_a_brace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = write_trace_file(tmp_path)
    summary = stepscope.summarize(trace)
    assert isinstance(summary, stepscope.Summary) and isinstance(summary, str)
    monkeypatch.chdir(tmp_path)
    for name in ("{rank0}.summary.json", " {rank0}.json"):
        Path(name).write_text(summary, encoding="utf-8")
        assert stepscope.merge([name]).job == stepscope.merge([summary]).job
    # Summary text is asked for explicitly; the same text as a plain str is a path.
    with pytest.raises(stepscope.TraceIOError) as caught:
        stepscope.merge([str(summary)])
    assert caught.value.file == str(summary)  # type: ignore[attr-defined]
    assert stepscope.merge([stepscope.Summary(str(summary))]).job == stepscope.merge([name]).job


def error_of(call: Callable[[], object]) -> stepscope.TraceError:
    with pytest.raises(stepscope.TraceError) as caught:
        call()
    return caught.value


def bad_traces(folder: Path) -> dict[str, Path]:
    truncated = folder / "truncated.json"
    text = json.dumps({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2}] * 5})
    truncated.write_text(text[: len(text) // 2], encoding="utf-8")
    not_trace = folder / "not_trace.json"
    not_trace.write_text(json.dumps({"nodes": []}), encoding="utf-8")
    not_json = folder / "not_json.json"
    not_json.write_text("plain words\n", encoding="utf-8")
    return {
        "truncated": truncated,
        "not a trace": not_trace,
        "not JSON": not_json,
        "missing": folder / "missing.json",
    }


@pytest.mark.parametrize("case", ["truncated", "not a trace", "not JSON", "missing"])
def test_summarize_raises_the_kind_analyze_raises(tmp_path: Path, case: str) -> None:
    path = bad_traces(tmp_path)[case]
    expected = error_of(lambda: stepscope.analyze(path))
    error = error_of(lambda: stepscope.summarize(path))
    assert type(error) is type(expected) and type(error) is not stepscope.TraceError
    assert error.file == str(path)  # type: ignore[attr-defined]
    assert error.kind == expected.kind  # type: ignore[attr-defined]
    assert error.byte_offset == expected.byte_offset  # type: ignore[attr-defined]
    assert str(error) == str(expected)


def test_summarize_of_a_folder_is_an_io_error(tmp_path: Path) -> None:
    error = error_of(lambda: stepscope.summarize(tmp_path))
    assert isinstance(error, stepscope.TraceIOError) and isinstance(error, OSError)
    assert error.file == str(tmp_path)  # type: ignore[attr-defined]


def test_merge_raises_the_documented_kind_naming_the_summary(tmp_path: Path) -> None:
    good = tmp_path / "good.summary.json"
    good.write_text(stepscope.summarize(write_trace_file(tmp_path)), encoding="utf-8")
    undecodable = tmp_path / "binary.summary.json"
    data = b'{"summary_version": "\xff\xfe"}'
    undecodable.write_bytes(data)
    malformed = tmp_path / "malformed.summary.json"
    malformed.write_text('{"summary_version": 1,', encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text('{"traceEvents": []}', encoding="utf-8")
    missing = tmp_path / "missing.summary.json"
    cases: list[tuple[Path, type[stepscope.TraceError], int | None]] = [
        (missing, stepscope.TraceIOError, None),
        (undecodable, stepscope.NotJsonError, data.index(b"\xff")),
        (malformed, stepscope.NotJsonError, None),
        (other, stepscope.NotTraceError, None),
    ]
    for bad, kind, offset in cases:
        # The bad one is second: the error names it, not the first.
        error = error_of(functools.partial(stepscope.merge, [good, bad]))
        assert type(error) is kind, (bad, error)
        assert error.file == str(bad)  # type: ignore[attr-defined]
        assert error.byte_offset == offset  # type: ignore[attr-defined]
        assert str(error).startswith(f"{bad}: ")
    missing_error = error_of(lambda: stepscope.merge([missing]))
    assert isinstance(missing_error, OSError)
    # Text given as a Summary is named by its place in the list.
    text = stepscope.Summary(other.read_text(encoding="utf-8"))
    error = error_of(lambda: stepscope.merge([stepscope.Summary(good.read_text()), text]))
    assert type(error) is stepscope.NotTraceError
    assert error.file == "summary 1"  # type: ignore[attr-defined]
    with pytest.raises(stepscope.BadOptionError):
        stepscope.merge([])


def test_lab_output_checks_leave_inputs_and_outputs_alone(tmp_path: Path) -> None:
    from stepscope._output import check_outputs

    source = tmp_path / "model.py"
    source.write_text("x = 1\n", encoding="utf-8")
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "rank0.json").write_text("{}", encoding="utf-8")
    existing = tmp_path / "old.json"
    existing.write_text("old", encoding="utf-8")
    check_outputs([("--json", existing), ("--html", tmp_path / "new.html")], [source, folder])
    assert existing.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.py", "old.json", "traces"]
    for output in (source, folder / "rank0.json"):
        with pytest.raises(stepscope.BadOptionError, match="would overwrite the input"):
            check_outputs([("--json", output)], [source, folder])
    with pytest.raises(stepscope.BadOptionError, match="not a regular file"):
        check_outputs([("--json", os.devnull)], regular_only=True)
    check_outputs([("--json", os.devnull), ("--html", os.devnull)])  # a device may be shared
