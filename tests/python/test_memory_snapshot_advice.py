"""`stepscope memory` advice on snapshots written by Python's pickle: the out-of-memory report
(the allocation that failed, its stack, what was live) and fragmentation that costs capacity."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from snapshot_builder import Plan, build_snapshot, write_snapshot

MiB = 1 << 20


def memory(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    assert command, "pip install . puts stepscope on PATH"
    return subprocess.run(
        [command, "memory", str(path), *extra], capture_output=True, text=True, timeout=120
    )


def device_json(path: Path) -> dict[str, Any]:
    result = memory(path, "--json", "-")
    assert result.returncode == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    trace: dict[str, Any] = document["devices"][0]["trace"]
    return trace


def test_an_oom_snapshot_names_the_failed_allocation_its_stack_and_what_was_live(
    tmp_path: Path,
) -> None:
    snapshot = build_snapshot(Plan(steps=2, leak_bytes=2 * MiB))
    entries = snapshot["device_traces"][0]
    live: dict[int, int] = {}
    for entry in entries:
        if entry["action"] == "alloc":
            live[entry["addr"]] = entry["size"]
        elif entry["action"] == "free_completed":
            live.pop(entry["addr"])
    frames = [
        {"filename": "model.py", "line": 17, "name": "attention"},
        {"filename": "train.py", "line": 99, "name": "train_step"},
    ]
    entries.append(
        {
            "action": "oom",
            "addr": 0,
            "size": 3 << 30,
            "stream": 0,
            "frames": frames,
            "device_free": 200 * MiB,
        }
    )
    path = tmp_path / "oom.pickle"
    write_snapshot(path, snapshot)
    oom = device_json(path)["last_oom"]
    assert oom["requested_bytes"] == 3 << 30
    assert oom["device_free_bytes"] == 200 * MiB
    assert [f["name"] for f in oom["stack"]] == ["attention", "train_step"]
    assert oom["live_bytes"] == sum(live.values())
    assert oom["live_by_site"], "what was live is listed by site"
    text = memory(path, "--width", "1000").stdout  # words, not layout
    assert "an allocation of 3.00 GiB failed with 200.00 MiB free on the device" in text
    assert "asked for by: attention (model.py:17)" in text


def segment(address: int, used: int, free: int) -> dict[str, Any]:
    blocks = [
        {
            "address": address,
            "size": used,
            "requested_size": used,
            "state": "active_allocated",
            "frames": [],
        },
        {
            "address": address + used,
            "size": free,
            "requested_size": 0,
            "state": "inactive",
            "frames": [],
        },
    ]
    return {
        "device": 0,
        "address": address,
        "total_size": used + free,
        "allocated_size": used,
        "active_size": used,
        "requested_size": used,
        "stream": 0,
        "segment_type": "large",
        "segment_pool_id": (0, 0),
        "is_expandable": False,
        "frames": [],
        "blocks": blocks,
    }


def test_fragmentation_over_many_segments_gets_expandable_segments_with_the_bytes(
    tmp_path: Path,
) -> None:
    snapshot = {
        "segments": [segment((k + 1) << 36, 120 * MiB, 80 * MiB) for k in range(8)],
        "device_traces": [[]],
    }
    path = tmp_path / "fragmented.pickle"
    write_snapshot(path, snapshot)
    result = memory(path, "--json", "-")
    assert result.returncode == 0, result.stderr
    cost = json.loads(result.stdout)["devices"][0]["state"]["fragmentation_cost"]
    assert cost["unused_bytes"] == 640 * MiB
    assert cost["segments_with_unused"] == 8
    assert cost["returnable_bytes"] == 560 * MiB  # all but the largest free block
    assert cost["fix"] == "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
    text = memory(path, "--width", "1000").stdout  # words, not layout
    assert "expandable_segments:True" in text and "up to 560.00 MiB" in text
