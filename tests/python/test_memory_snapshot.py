"""`stepscope memory` on snapshots written by Python's own pickle, in the format of
torch.cuda.memory._dump_snapshot(), checked against figures computed here in Python."""

from __future__ import annotations

import datetime
import gzip
import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from snapshot_builder import Plan, build_snapshot, write_snapshot

MiB = 1 << 20


def stepscope_command() -> str:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    assert command, "pip install . puts stepscope on PATH"
    return command


def run_memory(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [stepscope_command(), "memory", str(path), *extra],
        capture_output=True,
        text=True,
        timeout=120,
    )


def memory_json(path: Path, top: int = 10) -> dict[str, Any]:
    result = run_memory(path, "--json", "-", "--top", str(top))
    assert result.returncode == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def expected_trace(entries: list[dict[str, Any]]) -> tuple[int, int, int]:
    """Peak allocated, never-freed count and bytes, by replaying the trace here."""
    live: dict[int, int] = {}
    current = peak = 0
    for entry in entries:
        if entry["action"] == "alloc":
            live[entry["addr"]] = entry["size"]
            current += entry["size"]
            peak = max(peak, current)
        elif entry["action"] == "free_completed":
            current -= live.pop(entry["addr"])
    return peak, len(live), sum(live.values())


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_figures_match_the_snapshot(tmp_path: Path, protocol: int) -> None:
    plan = Plan(steps=6, leak_bytes=3 * MiB, seed=protocol)
    snapshot = build_snapshot(plan)
    path = tmp_path / "snapshot.pickle"
    write_snapshot(path, snapshot, protocol=protocol)
    document = memory_json(path)
    assert document["schema"] == "stepscope.memory_snapshot"
    assert document["input_bytes"] == path.stat().st_size
    (device,) = document["devices"]
    state = device["state"]
    segments = snapshot["segments"]
    assert state["segments"] == len(segments)
    assert state["reserved_bytes"] == sum(s["total_size"] for s in segments)
    assert state["allocated_bytes"] == sum(s["allocated_size"] for s in segments)
    blocks = [b for s in segments for b in s["blocks"]]
    assert state["blocks"] == len(blocks)
    assert state["blocks_by_state"]["inactive"] == sum(b["state"] == "inactive" for b in blocks)
    largest = max(b["size"] for b in blocks if b["state"] == "active_allocated")
    assert state["largest_live_blocks"][0]["bytes"] == largest

    trace = device["trace"]
    entries = snapshot["device_traces"][0]
    peak, never_count, never_bytes = expected_trace(entries)
    assert trace["entries"] == len(entries)
    assert trace["entries_by_action"]["alloc"] == sum(e["action"] == "alloc" for e in entries)
    assert trace["peak_allocated_bytes"] == peak
    assert trace["never_freed"] == never_count
    assert trace["never_freed_bytes"] == never_bytes
    # The leak is found at its site, in the user's code, not in torch or the allocator.
    leak = trace["never_freed_by_site"][0]
    assert leak["site"] == "train_step (train.py:42)"
    assert leak["bytes"] == plan.steps * plan.leak_bytes
    assert leak["allocations"] == plan.steps
    assert leak["example_stack"][0]["filename"] == "??"  # innermost first, as torch writes them
    # Frames are shared in the file and stacks repeat per site: both are stored once.
    sites = {(f[-2]["filename"], f[-2]["line"]) for e in entries for f in [e["frames"]] if f}
    assert document["unique_stacks"] == len(sites)
    assert document["unique_frames"] < 100


def test_terminal_report_names_the_leak(tmp_path: Path) -> None:
    path = tmp_path / "snapshot.pickle"
    write_snapshot(path, build_snapshot(Plan(steps=4, leak_bytes=2 * MiB)))
    result = run_memory(path, "--top", "3")
    assert result.returncode == 0, result.stderr
    assert "never freed within the trace: 40.00 MiB in 12 allocations" in result.stdout
    assert "train_step (train.py:42)" in result.stdout
    assert "peak allocated" in result.stdout


def test_gzip_snapshot_and_atomic_output(tmp_path: Path) -> None:
    snapshot = build_snapshot(Plan(steps=2))
    path = tmp_path / "snapshot.pickle.gz"
    path.write_bytes(gzip.compress(pickle.dumps(snapshot, protocol=4)))
    out = tmp_path / "memory.json"
    result = run_memory(path, "--json", str(out), "--no-report")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert json.loads(out.read_text())["devices"][0]["trace"]["entries"] > 0
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("memory.json")] == [
        "memory.json"
    ]


def test_snapshot_from_torch_before_2_1_is_a_list_of_segments(tmp_path: Path) -> None:
    segments = build_snapshot(Plan(steps=2))["segments"]
    path = tmp_path / "old.pickle"
    path.write_bytes(pickle.dumps(segments, protocol=2))
    document = memory_json(path)
    assert document["devices"][0]["state"]["segments"] == len(segments)
    assert document["devices"][0]["trace"]["entries"] == 0


class NotData:
    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (print, ("this must never run",))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (pickle.dumps({"segments": [], "device_traces": []})[:-7], "ends"),
        (pickle.dumps([1, 2, 3]), "not a memory snapshot"),
        (pickle.dumps({"a": 1}), "neither 'segments' nor 'device_traces'"),
        (pickle.dumps(NotData()), "never imports or calls anything"),
        (pickle.dumps(datetime.date(2024, 1, 1)), "never imports or calls anything"),
        (pickle.dumps({"segments": [1 << 70]}), "does not fit in 64 bits"),
        (b"\x80\x04\x8d" + (1 << 62).to_bytes(8, "little"), "the limit is"),
        (b"\x80\x04(" * 70_000, "nested MARKs"),
        (b"\x80\x04h\x05.", "memo slot 5 is read"),
        (b'{"traceEvents": []}', "not a pickle opcode"),
        (pickle.dumps({"device_traces": [[{"action": "alloc", "size": "big"}]]}), "'size'"),
    ],
    ids=[
        "empty",
        "truncated",
        "a-list-of-ints",
        "a-dict-without-snapshot-keys",
        "reduce",
        "global",
        "huge-integer",
        "huge-string-length",
        "deep-nesting",
        "unwritten-memo-slot",
        "json",
        "wrong-field-type",
    ],
)
def test_bad_input_is_refused_clearly(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.pickle"
    path.write_bytes(content)
    out = tmp_path / "out.json"
    result = run_memory(path, "--json", str(out))
    assert result.returncode == 2, result.stdout
    assert str(path) in result.stderr
    assert message in result.stderr, result.stderr
    assert "at byte" in result.stderr or content == b""
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind
