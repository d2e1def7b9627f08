"""`stepscope analyze --annotate`: the original trace plus the findings as markers.

Runs the CLI (STEPSCOPE_CLI, else `stepscope` on PATH) and reads the output with json and gzip.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

MARKER_PROCESS = "stepscope findings"


def cli() -> str:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    if not command:
        pytest.skip("no stepscope command: set STEPSCOPE_CLI or pip install .")
    return command


def annotate(trace: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [cli(), "analyze", str(trace), "-q", "--annotate", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )


def read_json(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    document = json.loads(data)
    assert isinstance(document, dict)
    return document


def split_markers(
    original: dict[str, Any], annotated: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The inserted markers (first in traceEvents) and the events after them."""
    inserted = len(annotated["traceEvents"]) - len(original["traceEvents"])
    assert inserted > 0
    events: list[dict[str, Any]] = annotated["traceEvents"]
    return events[:inserted], events[inserted:]


def check_marker(event: dict[str, Any], pid: int) -> None:
    assert event["pid"] == pid
    assert isinstance(event["tid"], int)
    assert isinstance(event["name"], str) and event["name"]
    assert isinstance(event["args"], dict)
    if event["ph"] == "M":
        assert event["name"] in {
            "process_name",
            "process_sort_index",
            "thread_name",
            "thread_sort_index",
        }
        return
    assert event["cat"] == "stepscope"
    assert isinstance(event["ts"], (int, float))
    if event["ph"] == "i":
        assert event["s"] == "p"
        for key in ("id", "severity", "bottleneck", "phase", "fix"):
            assert isinstance(event["args"][key], str)
        assert event["args"]["expected_gain_likely_ms"] >= 0
    else:
        assert event["ph"] == "X"
        assert event["dur"] >= 0
        assert event["args"]["count"] > 0
        assert isinstance(event["args"]["steps"], list)


@pytest.mark.parametrize("name", ["out.json.gz", "out.json"])
def test_annotated_trace_keeps_every_event_and_adds_markers(
    trace_file: Path, tmp_path: Path, name: str
) -> None:
    out = tmp_path / name
    result = annotate(trace_file, out)
    assert result.returncode == 0, result.stderr
    assert (out.read_bytes()[:2] == b"\x1f\x8b") == name.endswith(".gz")

    original = read_json(trace_file)
    annotated = read_json(out)
    markers, rest = split_markers(original, annotated)
    assert rest == original["traceEvents"]
    assert {k: v for k, v in annotated.items() if k != "traceEvents"} == {
        k: v for k, v in original.items() if k != "traceEvents"
    }

    process = [m for m in markers if m["ph"] == "M" and m["name"] == "process_name"]
    assert len(process) == 1 and process[0]["args"]["name"] == MARKER_PROCESS
    pid = process[0]["pid"]
    assert pid not in {e["pid"] for e in original["traceEvents"]}
    for marker in markers:
        check_marker(marker, pid)

    threads = {m["tid"]: m["args"]["name"] for m in markers if m["name"] == "thread_name"}
    instants = [m for m in markers if m["ph"] == "i"]
    assert instants, "the small trace has a launch-bound finding"
    assert sorted(m["tid"] for m in instants) == sorted(threads)
    for instant in instants:
        position = instant["tid"]
        assert threads[position].startswith(f"#{position}. [{instant['args']['severity']}] ")
        assert threads[position].endswith(instant["args"]["id"])
    spans = [m for m in markers if m["ph"] == "X"]
    assert spans
    timed = [e for e in rest if "ts" in e]
    first = min(e["ts"] for e in timed)
    last = max(e["ts"] + e.get("dur", 0) for e in timed)
    for span in spans:
        assert span["tid"] in threads
        assert first <= span["ts"] and span["ts"] + span["dur"] <= last


def test_folder_is_refused(trace_folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json.gz"
    result = annotate(trace_folder, out)
    assert result.returncode == 2
    assert str(trace_folder) in result.stderr and "single trace file" in result.stderr
    assert not out.exists()


def test_bad_input_names_the_file_and_leaves_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEventz": []}')
    out = tmp_path / "out.json.gz"
    result = annotate(bad, out)
    assert result.returncode == 2
    assert str(bad) in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]
