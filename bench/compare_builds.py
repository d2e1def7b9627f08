#!/usr/bin/env python3
"""Two builds of stepscope side by side: is a change free of cost?

Runs the benchmark's main figures (one thread, two threads, the `.json.gz`, peak RSS) with a
build of the code before a change and a build after it, their runs alternated so that both see
the same machine, and prints each figure's ratio after/before with a verdict against a tolerance
(default 3 %). It also checks that both builds write the same JSON figures (timing aside).

    python3 bench/compare_builds.py --before /tmp/base/build/rel/stepscope \\
        --after build/release/stepscope --size-mb 256 --repeat 7

The exit status is non-zero only when a command fails or the two builds' figures differ, never
because a figure is over the tolerance (the machines are shared and noisy: read the spread).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run_benchmarks import (
    CONTROL,
    REPO,
    analyze,
    ensure_large_trace,
    run_once,
    run_pairs,
)

# Fields that measure the run rather than the trace: its times, rates, and the bytes its own
# in-memory trace takes (which a change to the storage is meant to change).
MEASURED_HERE = ("seconds", "timing", "per_second", "elapsed", "bytes_in_memory")


def figures_without_timing(report: Path) -> Any:
    """The JSON report with the fields that measure this run taken out (MEASURED_HERE)."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                key: strip(item)
                for key, item in value.items()
                if not any(word in key for word in MEASURED_HERE)
            }
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    return strip(json.loads(report.read_text()))


def compare(
    label: str,
    before: list[str],
    after: list[str],
    repeat: int,
    workdir: Path,
    tolerance: float,
) -> bool:
    """Prints one row per figure (time and peak RSS) and returns whether the JSON agrees."""
    out_before, out_after = workdir / "before.json", workdir / "after.json"
    befores, afters = run_pairs(
        lambda: run_once(before, out_before), lambda: run_once(after, out_after), repeat
    )
    same = bool(figures_without_timing(out_before) == figures_without_timing(out_after))
    print_row(
        f"{label}: time", [r.seconds for r in befores], [r.seconds for r in afters], "s", tolerance
    )
    print_row(
        f"{label}: peak RSS",
        [r.peak_rss_bytes / 2**20 for r in befores],
        [r.peak_rss_bytes / 2**20 for r in afters],
        "MiB",
        tolerance,
    )
    print(f"|  | JSON figures {'identical' if same else 'DIFFER'} |  |  |  |  |")
    return same


def print_row(
    name: str, befores: list[float], afters: list[float], unit: str, tolerance: float
) -> None:
    before, after = statistics.median(befores), statistics.median(afters)
    ratio = after / before if before > 0 else float("nan")
    pairwise = [a / b for a, b in zip(afters, befores, strict=True) if b > 0]
    verdict = "within" if ratio <= 1 + tolerance else "over"
    spread = f"{min(pairwise):.3f}x-{max(pairwise):.3f}x" if pairwise else "-"
    print(
        f"| {name} | {before:.3f} {unit} | {after:.3f} {unit} | {ratio:.3f}x | {spread} | "
        f"{verdict} {tolerance:.0%} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the stepscope binary before the change")
    parser.add_argument("--after", required=True, help="the stepscope binary after the change")
    parser.add_argument("--size-mb", type=int, default=256, help="generated trace size (MiB)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each build per figure")
    parser.add_argument("--tolerance", type=float, default=0.03, help="allowed slowdown (0.03)")
    parser.add_argument("--workdir", default=str(REPO / "build" / "bench-compare"))
    args = parser.parse_args()

    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    source = CONTROL
    plain = ensure_large_trace(workdir, args.size_mb, source, gz=False)
    packed = ensure_large_trace(workdir, args.size_mb, source, gz=True)
    before, after = Path(args.before), Path(args.after)
    print(f"before: {before}\nafter:  {after}\ntrace:  {plain} ({plain.stat().st_size >> 20} MiB)")
    print("\n| figure | before (median) | after (median) | after/before | pairwise | verdict |")
    print("|---|---|---|---|---|---|")
    cases = [
        ("1 thread .json", plain, 1),
        ("2 threads .json", plain, 2),
        (".json.gz, default threads", packed, None),
        ("control .json.gz", source, None),
    ]
    agree = True
    for label, trace, threads in cases:
        agree &= compare(
            label,
            analyze(before, trace, threads),
            analyze(after, trace, threads),
            args.repeat,
            workdir,
            args.tolerance,
        )
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
