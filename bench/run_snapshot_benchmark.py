#!/usr/bin/env python3
"""`stepscope memory` against Python's own `pickle.load` of the same memory snapshot.

Generates a snapshot of about --size-mb megabytes in the format torch.cuda.memory._dump_snapshot()
writes (tools/snapshot_builder.py: shared frame dicts, a stack per allocation), then runs, each
in its own process, `stepscope memory FILE --json - --quiet` (stdout discarded) and
`python -c "pickle.load(...)"`, and prints wall time and peak RSS (wait4's ru_maxrss) of both.
The medians of --repeat runs are compared. Targets (issue: memory): stepscope at least 5x faster
than pickle.load, and its peak RSS below the file's size.

    python3 bench/run_snapshot_benchmark.py                 # 1 GB (generation takes minutes)
    python3 bench/run_snapshot_benchmark.py --size-mb 100   # a quicker look
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
from snapshot_builder import Plan, build_snapshot, write_snapshot  # noqa: E402

MB = 1_000_000


def measure(command: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS in bytes of one run of `command` (its own, through wait4)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        error = process.stderr.read().decode() if process.stderr else ""
        raise SystemExit(f"failed: {' '.join(command)}\n{error}")
    return seconds, usage.ru_maxrss * 1024


def median_run(command: list[str], repeat: int) -> tuple[float, int]:
    runs = [measure(command) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs)


def generate(path: Path, size_mb: int) -> None:
    """Scales the number of steps from a small sample to reach about size_mb megabytes."""
    sample = REPO / "build" / "snapshot-sample.pickle"
    sample.parent.mkdir(parents=True, exist_ok=True)
    base = Plan(steps=20, layers=48, stack_depth=40, leak_bytes=1 << 20, devices=2)
    write_snapshot(sample, build_snapshot(base))
    per_step = sample.stat().st_size / base.steps
    sample.unlink()
    base.steps = max(1, int(size_mb * MB / per_step))
    print(f"generating {path} ({base.steps} steps) ...", file=sys.stderr)
    write_snapshot(path, build_snapshot(base))


def find_stepscope(explicit: str | None) -> str:
    found = explicit or shutil.which("stepscope") or str(REPO / "build" / "stepscope")
    if not Path(found).exists():
        raise SystemExit("no stepscope binary: pip install . or build with CMake into build/")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--size-mb", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--stepscope", help="the stepscope binary (default: on PATH, or build/)")
    parser.add_argument("--workdir", type=Path, default=REPO / "build" / "bench")
    parser.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    options.workdir.mkdir(parents=True, exist_ok=True)
    snapshot = options.workdir / f"snapshot_{options.size_mb}mb.pickle"
    if options.generate_only:
        generate(snapshot, options.size_mb)
        return
    if not snapshot.exists():
        # In a child process: the parent's memory would otherwise show in every measured
        # child's ru_maxrss (it is inherited through fork, before exec).
        subprocess.run(
            [
                sys.executable,
                __file__,
                "--generate-only",
                "--size-mb",
                str(options.size_mb),
                "--workdir",
                str(options.workdir),
            ],
            check=True,
        )
    size = snapshot.stat().st_size
    stepscope = find_stepscope(options.stepscope)
    ours = median_run(
        [stepscope, "memory", str(snapshot), "--json", "-", "--quiet"], options.repeat
    )
    load = "import pickle, sys\nwith open(sys.argv[1], 'rb') as f: pickle.load(f)"
    python = median_run([sys.executable, "-c", load, str(snapshot)], options.repeat)
    speedup = python[0] / ours[0]
    print(f"snapshot: {snapshot} ({size / MB:.0f} MB)")
    print(f"{'':28}{'seconds':>10}{'peak RSS MB':>14}{'RSS / file':>12}")
    for name, (seconds, rss) in (("stepscope memory", ours), ("python pickle.load", python)):
        print(f"{name:28}{seconds:10.2f}{rss / MB:14.0f}{rss / size:12.2f}")
    verdict = "met" if speedup >= 5 else "NOT met"
    print(f"speed-up over pickle.load: {speedup:.1f}x (target >= 5x: {verdict})")
    print(
        f"stepscope peak RSS / file size: {ours[1] / size:.2f} "
        f"(target < 1: {'met' if ours[1] < size else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
