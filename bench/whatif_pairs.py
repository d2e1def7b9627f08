#!/usr/bin/env python3
"""Measured before/after pairs for checking `stepscope whatif`'s predictions.

Each pair is one small CPU training loop run before and after one fix (the loops are in
tests/python/whatif_pairs_loops.py, shared with tests/python/test_whatif_pairs.py):

| pair | fix | what-if change |
|---|---|---|
| loader | DataLoader num_workers 0 -> 2 (persistent, prefetch 2); ~1 ms an item | `--loader 0` |
| item | `loss.item()` every step -> every 50 steps | `--no-syncs` |
| op | bias-free MLP in float64 -> float32 (its time is aten::mm) | `--op aten::mm=Fx` |

The op pair's F is how many times faster one step's matrix products run alone in float32 than
in float64: torch.mm on the loop's shapes, timed apart from the loop in bursts between its timed
runs, never read from the traces (that would be circular); pairs.json keeps it.

For each pair the script writes OUT/PAIR/before.json and OUT/PAIR/after.json (Kineto traces:
profiler schedule wait 1, warmup 2, then the kept steps, each a ProfilerStep#N span) and times
the same two loops again without the profiler: --repeat runs of each side (default 4), in the
order before, after, after, before, ... so that both see the same machine, each run dropping its
first steps; the measured time is the mean wall time per step over all their steps, fetching the
batch included. OUT/pairs.json lists the pairs: change, measured_before_ms, measured_after_ms,
trace_before_ms (the mean ProfilerStep span of before.json) and more, with how busy other
processes kept the CPUs meanwhile (two runs of one loop differ by up to 15 % on a shared 2-core
VM: read the item pair, whose two sides wait on nothing different, as the noise floor).

With --stepscope PATH it runs `PATH whatif OUT/PAIR/before.json CHANGE... --json -` and reads
{"measured_step_us": B, "predicted_step_us": A}: the predicted step time outside the profiler
is measured_before_ms * A / B (the profiler's own cost cancels in the ratio). It prints each pair's
prediction against the measured fixed step and writes OUT/whatif.json. The exit status is
non-zero when recording fails or the command is missing or fails, never because a prediction
is off (the test holds the bound).

    python3 bench/whatif_pairs.py --out /tmp/pairs                    # record and time
    python3 bench/whatif_pairs.py --out /tmp/pairs --reuse --stepscope build/me/stepscope
    python3 bench/whatif_pairs.py --stepscope build/me/stepscope --repeat 5 --pairs loader,op
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
LOOPS = REPO / "tests" / "python"
PAIR_NAMES = ("loader", "item", "op")
MM_SAMPLES = 10  # alternated float64/float32 runs of the op pair's products, per burst


def busy_cpu_seconds() -> float | None:
    """The CPU time all processes have used since boot (/proc/stat; None where it is absent)."""
    try:
        fields = [
            int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:9]
        ]
    except (OSError, ValueError):
        return None
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    """This process's CPU time and its ended children's (the DataLoader workers)."""
    return sum(
        usage.ru_utime + usage.ru_stime
        for usage in (
            resource.getrusage(resource.RUSAGE_SELF),
            resource.getrusage(resource.RUSAGE_CHILDREN),
        )
    )


class OtherLoad:
    """How busy other processes kept the CPUs while this one ran: percent of all CPUs."""

    def __init__(self) -> None:
        self.start = (time.perf_counter(), busy_cpu_seconds(), own_cpu_seconds())

    def percent(self) -> float | None:
        wall, busy, own = time.perf_counter(), busy_cpu_seconds(), own_cpu_seconds()
        if busy is None or self.start[1] is None:
            return None
        others = (busy - self.start[1]) - (own - self.start[2])
        return max(0.0, others) / ((wall - self.start[0]) * (os.cpu_count() or 1)) * 100


def record_pair(name: str, out: Path, repeat: int) -> dict[str, Any]:
    """Records and times one pair; returns its pairs.json entry."""
    load = OtherLoad()
    sys.path.insert(0, str(LOOPS))
    import whatif_pairs_loops as loops  # torch is imported only when recording

    pair = next(pair for pair in loops.pairs() if pair.name == name)
    entry: dict[str, Any] = {"pair": name}
    timer = loops.MmTimer(pair.before, pair.after) if name == "op" else None
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    traces = {side: folder / f"{side}.json" for side in ("before", "after")}
    configs = {"before": pair.before, "after": pair.after}
    for side, config in configs.items():
        loops.record_trace(config, traces[side], pair.active)
    runs: dict[str, list[list[float]]] = {"before": [], "after": []}
    for round_ in range(repeat):
        # Alternated before, after, after, before, ...: both sides see the same machine, and
        # each comes first (after a burst of the op pair's products) as often as the other.
        if timer is not None:
            timer.sample(MM_SAMPLES)
        order = ("before", "after") if round_ % 2 == 0 else ("after", "before")
        for side in order:
            runs[side].append(loops.time_steps(configs[side], pair.warmup, pair.timed))
    if timer is not None:
        timer.sample(MM_SAMPLES)
        factor = timer.factor()
        entry["change"] = list(loops.op_change(factor))
        entry["op_factor"] = asdict(factor)
    else:
        entry["change"] = list(pair.change)
    for side in ("before", "after"):
        steps = [ms for run in runs[side] for ms in run]
        entry[f"measured_{side}_ms"] = statistics.fmean(steps)
        entry[f"measured_{side}_runs_ms"] = [statistics.fmean(run) for run in runs[side]]
        entry[f"measured_{side}_stdev_ms"] = statistics.stdev(steps)
    for side in ("before", "after"):
        entry[f"trace_{side}_ms"] = loops.mean_step_ms(traces[side])
        entry[f"trace_{side}"] = str(traces[side].relative_to(out))
    if name == "loader":
        for side in ("before", "after"):
            entry[f"trace_{side}_loader_share"] = loops.loader_share(traces[side])
    entry["other_processes_cpu_pct"] = load.percent()
    entry["steps"] = {"kept_in_trace": pair.active, "warmup": pair.warmup, "timed": pair.timed}
    entry["configs"] = {
        side: {key: str(value) for key, value in asdict(config).items()}
        for side, config in configs.items()
    }
    return entry


def lists_whatif(help_text: str) -> bool:
    """Whether `stepscope --help` lists a `whatif` subcommand."""
    return re.search(r"^\s+whatif\b", help_text, re.MULTILINE) is not None


def check_whatif(stepscope: str) -> None:
    """Exits with a message naming the command when it is missing or has no `whatif`."""
    if shutil.which(stepscope) is None:
        raise SystemExit(f"whatif_pairs.py: no stepscope command at {stepscope!r}")
    shown = subprocess.run(
        [stepscope, "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    if not lists_whatif(shown.stdout + shown.stderr):
        raise SystemExit(
            f"whatif_pairs.py: {stepscope} has no `whatif` command (`{stepscope} --help` does "
            "not list it)"
        )


def whatif_step_ns(stepscope: str, trace: Path, change: Sequence[str]) -> tuple[float, float]:
    """The trace's mean kept step and the predicted one, in ns, from `stepscope whatif`."""
    command = [stepscope, "whatif", str(trace), *change, "--json", "-"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise SystemExit(
            f"whatif_pairs.py: `{' '.join(command)}` failed (exit {done.returncode}):\n"
            f"{done.stderr.strip()}"
        )
    try:
        document = json.loads(done.stdout)
        before = float(document["measured_step_us"]) * 1e3
        after = float(document["predicted_step_us"]) * 1e3
    except (ValueError, KeyError, TypeError) as error:
        raise SystemExit(
            f"whatif_pairs.py: `{' '.join(command)}` printed no measured_step_us and "
            f"predicted_step_us ({error!r}):\n{done.stdout[:2000]}"
        ) from error
    if before <= 0:
        raise SystemExit(
            f"whatif_pairs.py: `{' '.join(command)}`: measured_step_us is {before / 1e3}"
        )
    return before, after


def predict(entry: dict[str, Any], out: Path, stepscope: str) -> dict[str, Any]:
    """One pair's prediction: the measured step before, scaled by whatif's after/before."""
    before_ns, after_ns = whatif_step_ns(stepscope, out / entry["trace_before"], entry["change"])
    predicted = entry["measured_before_ms"] * after_ns / before_ns
    measured = entry["measured_after_ms"]
    return {
        "pair": entry["pair"],
        "change": entry["change"],
        "whatif_before_ms": before_ns / 1e6,
        "whatif_after_ms": after_ns / 1e6,
        "trace_before_ms": entry["trace_before_ms"],
        "measured_before_ms": entry["measured_before_ms"],
        "measured_after_ms": measured,
        "predicted_after_ms": predicted,
        "error_pct": (predicted - measured) / measured * 100,
    }


def table(entries: Sequence[dict[str, Any]], predictions: Sequence[dict[str, Any]]) -> str:
    predicted = {row["pair"]: row for row in predictions}
    header = "| pair | change | measured before | measured after | trace before |"
    rule = "|---|---|---|---|---|"
    if predictions:
        header += " whatif before | predicted after | error |"
        rule += "---|---|---|"
    lines = [header, rule]
    for entry in entries:
        line = (
            f"| {entry['pair']} | `{' '.join(entry['change'])}` "
            f"| {entry['measured_before_ms']:.2f} ms | {entry['measured_after_ms']:.2f} ms "
            f"| {entry['trace_before_ms']:.2f} ms |"
        )
        row = predicted.get(entry["pair"])
        if row is not None:
            line += (
                f" {row['whatif_before_ms']:.2f} ms | {row['predicted_after_ms']:.2f} ms "
                f"| {row['error_pct']:+.1f} % |"
            )
        lines.append(line)
    return "\n".join(lines)


def notes(entries: Sequence[dict[str, Any]]) -> list[str]:
    lines = []
    for entry in entries:
        runs = ", ".join(
            f"{side} " + " / ".join(f"{ms:.2f}" for ms in entry[f"measured_{side}_runs_ms"])
            for side in ("before", "after")
        )
        lines.append(f"{entry['pair']}: per-run means (ms): {runs}")
        other = entry.get("other_processes_cpu_pct")
        if other is not None:
            lines.append(
                f"{entry['pair']}: other processes kept {other:.0f} % of the "
                f"{os.cpu_count()} CPUs busy while it was recorded and timed"
            )
        if "trace_before_loader_share" in entry:
            lines.append(
                f"{entry['pair']}: DataLoader share of the traced step: before "
                f"{entry['trace_before_loader_share'] * 100:.0f} %, after "
                f"{entry['trace_after_loader_share'] * 100:.0f} %"
            )
        if "op_factor" in entry:
            factor = entry["op_factor"]
            lines.append(
                f"{entry['pair']}: F = {factor['factor']:.3f} ({factor['op']}: "
                f"{factor['before_ms']:.2f} ms -> {factor['after_ms']:.2f} ms; {factor['how']})"
            )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, help="output folder (default: a new temporary one)")
    parser.add_argument(
        "--pairs",
        default=",".join(PAIR_NAMES),
        help=f"comma-separated pairs to record (default {','.join(PAIR_NAMES)})",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=4,
        help="timed runs of each side, alternated; their steps are averaged together (default 4)",
    )
    parser.add_argument("--stepscope", help="a stepscope binary with `whatif`: predict each pair")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="read OUT/pairs.json and its traces instead of recording (needs --out)",
    )
    args = parser.parse_args(argv)
    names = [name for name in args.pairs.split(",") if name]
    unknown = sorted(set(names) - set(PAIR_NAMES))
    if unknown:
        parser.error(f"unknown pairs {unknown}; known: {', '.join(PAIR_NAMES)}")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.reuse and args.out is None:
        parser.error("--reuse needs --out")
    if args.stepscope:
        check_whatif(args.stepscope)  # before minutes of recording
    out: Path = args.out or Path(tempfile.mkdtemp(prefix="stepscope-whatif-pairs-"))
    out.mkdir(parents=True, exist_ok=True)
    listing = out / "pairs.json"
    if args.reuse:
        entries: list[dict[str, Any]] = json.loads(listing.read_text())
        entries = [entry for entry in entries if entry["pair"] in names]
    else:
        entries = [record_pair(name, out, args.repeat) for name in names]
        listing.write_text(json.dumps(entries, indent=2) + "\n")
    print(f"pairs: {listing}")
    predictions: list[dict[str, Any]] = []
    if args.stepscope:
        stepscope = args.stepscope
        if os.sep in stepscope:
            stepscope = str(Path(stepscope).resolve())
        predictions = [predict(entry, out, stepscope) for entry in entries]
        (out / "whatif.json").write_text(json.dumps(predictions, indent=2) + "\n")
        print(f"predictions: {out / 'whatif.json'}")
    print(table(entries, predictions))
    for line in notes(entries):
        print(line)
    if predictions:
        print(
            "predicted after = measured before x whatif after / whatif before; "
            "error = (predicted - measured after) / measured after"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
