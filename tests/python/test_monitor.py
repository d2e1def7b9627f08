"""The monitor from Python: the current process measured while a block runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stepscope.monitor import Monitor, monitor


def busy(seconds: float) -> int:
    end = time.perf_counter() + seconds
    count = 0
    while time.perf_counter() < end:
        count += 1
    return count


def test_busy_block_is_near_one_core() -> None:
    with monitor(interval=0.05) as mon:
        busy(1.2)
    main = mon.summary["distributions"]["main_cpu_cores"]
    assert main["count"] >= 10
    assert 0.6 <= main["p50"] <= 1.3
    assert mon.summary["monitor_cpu_share_of_core"] < 0.2
    assert mon.verdict["id"] in {"host-bound", "device-busy", "device-mostly-busy"}
    assert "verdict:" in str(mon)


def test_sleeping_block_is_near_zero_and_interval_is_honoured() -> None:
    with monitor(interval=0.05) as mon:
        time.sleep(1.0)
    main = mon.summary["distributions"]["main_cpu_cores"]
    # /proc counts CPU time in clock ticks (10 ms), so one tick landing in a
    # 50 ms sample reads as 0.2 cores: a single sample may show the sampler's
    # own tick, which moves the median not at all and the mean of 20 samples
    # by 0.01. A busy main thread puts both near 1.
    assert main["p50"] <= 0.05
    assert main["mean"] <= 0.05
    assert 25_000 <= mon.summary["mean_interval_us"] <= 75_000
    assert 10 <= len(mon.samples) <= 30
    assert mon.samples[0]["processes"][0]["pid"] == os.getpid()


def test_child_processes_are_workers() -> None:
    code = "import time\nend = time.time() + 1.5\nwhile time.time() < end: pass\n"
    with monitor(interval=0.05) as mon:
        child = subprocess.Popen([sys.executable, "-c", code])
        time.sleep(1.0)
        child.kill()
        child.wait()
    assert mon.summary["max_workers"] >= 1
    pids = {p["pid"] for s in mon.samples for p in s["processes"] if not p["root"]}
    assert child.pid in pids


def test_timeline_files(tmp_path: Path) -> None:
    with monitor(interval=0.02, gpus=False) as mon:
        time.sleep(0.2)
    assert mon.gpu_status == "GPU sampling is off"
    assert mon.timeline["schema"] == "stepscope.monitor"
    assert mon.summary["gpu_available"] is False
    mon.to_json(tmp_path / "timeline.json")
    assert json.loads((tmp_path / "timeline.json").read_text())["root_pid"] == os.getpid()
    csv = mon.to_csv(tmp_path / "timeline.csv")
    assert csv.startswith("time_s,")
    assert (tmp_path / "timeline.csv").read_text() == csv


def test_figures_wait_for_the_end_and_arguments_are_checked() -> None:
    mon = Monitor(0.05).start()
    assert isinstance(mon.status, str)
    with pytest.raises(RuntimeError):
        _ = mon.summary
    mon.stop()
    mon.stop()
    assert mon.verdict["bottleneck"]
    with pytest.raises(ValueError):
        Monitor(0)
