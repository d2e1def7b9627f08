#!/usr/bin/env python3
"""The live monitor's own CPU cost, against the target of 1% of one core at the default interval.

Runs a CPU-busy benchmark child (a Python busy loop, optionally with busy worker processes)
under `stepscope monitor` at the default interval (100 ms) and reports the monitor's CPU use
two ways:
  * as the monitor reports it (getrusage of the stepscope process: sampling thread, waiting
    thread and start-up, NVML loading included), from the timeline JSON;
  * from outside: the CPU time of stepscope and its child (wait4) minus what the child itself
    reports having used, so that the first figure is checked, not trusted.

Usage (from the repository root, after building build/stepscope):
  python3 bench/monitor_overhead.py                   # 10 s, main process only
  python3 bench/monitor_overhead.py --workers 2 --seconds 20
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET_SHARE_OF_CORE = 0.01

# The benchmark child: busy for SECONDS in the main process and in WORKERS forked workers, then
# writes the CPU time of itself and its workers to REPORT.
CHILD = r"""
import os, resource, sys, time
seconds, workers, report = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def spin(s):
    end = time.monotonic() + s
    n = 0
    while time.monotonic() < end:
        n += 1
pids = []
for _ in range(workers):
    pid = os.fork()
    if pid == 0:
        spin(seconds)
        os._exit(0)
    pids.append(pid)
spin(seconds)
for pid in pids:
    os.waitpid(pid, 0)
own = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(report, "w") as out:
    out.write(str(own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stepscope", default="build/stepscope", help="the stepscope binary")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long the child runs")
    parser.add_argument("--workers", type=int, default=0, help="busy worker processes")
    parser.add_argument("--interval", default="100ms", help="monitor interval (default 100ms)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        timeline_path = Path(folder) / "timeline.json"
        report_path = Path(folder) / "child_cpu.txt"
        command = [
            args.stepscope, "monitor", "--quiet", "--interval", args.interval,
            "-o", str(timeline_path), "--",
            sys.executable, "-c", CHILD, str(args.seconds), str(args.workers), str(report_path),
        ]  # fmt: skip
        process = subprocess.Popen(command)
        _, status, usage = os.wait4(process.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            print(f"stepscope monitor failed: exit status {status}", file=sys.stderr)
            return 1
        timeline = json.loads(timeline_path.read_text())
        child_cpu = float(report_path.read_text())

    summary = timeline["summary"]
    duration = summary["duration_us"] / 1e6
    reported = summary["monitor_cpu_share_of_core"]
    outside = (usage.ru_utime + usage.ru_stime - child_cpu) / duration
    main_cpu = summary["distributions"]["main_cpu_cores"]
    print(f"benchmark: busy main process + {args.workers} busy worker(s), {duration:.1f} s, "
          f"interval {args.interval}, {summary['samples']} samples "
          f"(mean interval {summary['mean_interval_us'] / 1000:.1f} ms), "
          f"{os.cpu_count()} CPUs")  # fmt: skip
    print(f"child main process CPU p50: {main_cpu['p50']:.2f} cores; "
          f"verdict: {summary['verdict']['id']}")  # fmt: skip
    print(f"monitor CPU, as reported:   {reported * 100:.3f}% of one core")
    print(f"monitor CPU, from outside:  {outside * 100:.3f}% of one core")
    verdict = "within" if max(reported, outside) < TARGET_SHARE_OF_CORE else "OVER"
    print(f"target: under {TARGET_SHARE_OF_CORE * 100:.0f}% of one core: {verdict}")
    return 0 if verdict == "within" else 1


if __name__ == "__main__":
    sys.exit(main())
