#!/usr/bin/env python3
"""`stepscope merge` at cluster scale: N rank summaries (10,000, 30,000 and 100,000 by default)
merged from a folder, with wall time, peak memory and the straggler it names, and the growth
from the smallest N against linear (the baseline: the smallest run, in the same script).

The summaries are real ones of a generated 4-rank job (bench/gen_job.py, one planted straggler,
`stepscope summarize`), copied to N ranks: the balanced ranks from rank 0, planted stragglers from
the slow rank, each with its rank and the world size set. Every planted straggler, and no other
rank, must be named (`--stragglers 2`: two equally slow ranks, both named); the exit status is 1
otherwise. Targets: 100,000 summaries in under 10 s and 2 GiB; time per rank that does not grow
with N (<= 1.5x the smallest run's).

Usage (from the repository root):
  python3 bench/run_merge_scale.py                 # 10,000, 30,000, 100,000
  python3 bench/run_merge_scale.py --ranks 1000 3000 --ci
  python3 bench/run_merge_scale.py --ranks 1000 3000 --stragglers 2 --ci
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TIME_TARGET_S = 10.0  # at 100,000 summaries
MEMORY_TARGET_BYTES = 2 << 30
GROWTH_TARGET = 1.5  # time per rank against the smallest run


def find_stepscope(explicit: str | None) -> str:
    if explicit:
        return explicit
    for candidate in (REPO / "build" / "stepscope", REPO / "build" / "me" / "stepscope"):
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("stepscope")
    if found is None:
        sys.exit("no stepscope binary: build it or pass --stepscope")
    return found


def template_summaries(stepscope: str, workdir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A balanced rank's summary and the planted straggler's, from a generated 4-rank job."""
    job = workdir / "job"
    if not job.exists():
        generate = [sys.executable, str(REPO / "bench" / "gen_job.py"), "--out", str(job)]
        subprocess.run(
            [*generate, "--ranks", "4", "--straggler", "2"],
            check=True,
            capture_output=True,
        )
    summaries = {}
    for rank in (0, 2):
        out = workdir / f"template{rank}.summary.json"
        trace = next(job.glob(f"rank{rank}.*"))
        subprocess.run([stepscope, "summarize", str(trace), "-o", str(out)], check=True)
        summaries[rank] = json.loads(out.read_text(encoding="utf-8"))
    return summaries[0], summaries[2]


def straggler_ranks(ranks: int, count: int) -> list[int]:
    """`count` planted stragglers, spread away from the ends."""
    return [(k + 1) * ranks // (count + 1) + k for k in range(count)]


def write_summaries(
    folder: Path, ranks: int, slow_ranks: set[int], balanced: dict[str, Any], slow: dict[str, Any]
) -> None:
    folder.mkdir(parents=True)
    balanced_text = json.dumps(balanced)
    slow_text = json.dumps(slow)
    # Only rank and world size differ between copies: substitute them in the text.
    for rank in range(ranks):
        text = slow_text if rank in slow_ranks else balanced_text
        source = slow if rank in slow_ranks else balanced
        text = text.replace(f'"rank": {source["rank"]},', f'"rank": {rank},', 1)
        text = text.replace(f'"world_size": {source["world_size"]},', f'"world_size": {ranks},', 1)
        (folder / f"rank{rank:06d}.summary.json").write_text(text, encoding="utf-8")


def timed_merge(stepscope: str, folder: Path, out: Path) -> tuple[float, int]:
    """Wall seconds and peak resident bytes of one merge, the process measured alone."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [stepscope, "merge", str(folder), "--json", str(out), "-q"], stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    assert process.stderr is not None
    error = process.stderr.read().decode(errors="replace")
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"merge of {folder} failed ({process.returncode}): {error}")
    return seconds, usage.ru_maxrss * 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stepscope", help="the stepscope binary (default: build/, PATH)")
    parser.add_argument("--ranks", type=int, nargs="+", default=[10_000, 30_000, 100_000])
    parser.add_argument(
        "--stragglers", type=int, default=1, help="planted stragglers (copies of one slow rank)"
    )
    parser.add_argument("--ci", action="store_true", help="small sizes are fine: no targets")
    args = parser.parse_args(argv)
    stepscope = find_stepscope(args.stepscope)
    rows = []
    with tempfile.TemporaryDirectory(prefix="stepscope-merge-scale-") as temporary:
        workdir = Path(temporary)
        balanced, slow = template_summaries(stepscope, workdir)
        for ranks in sorted(args.ranks):
            folder = workdir / f"summaries_{ranks}"
            planted = straggler_ranks(ranks, args.stragglers)
            write_summaries(folder, ranks, set(planted), balanced, slow)
            out = workdir / f"job_{ranks}.json"
            seconds, peak = timed_merge(stepscope, folder, out)
            job = json.loads(out.read_text(encoding="utf-8"))["job"]
            named = sorted(s["rank"] for s in job["stragglers"])
            rows.append((ranks, seconds, peak, named, planted))
            shutil.rmtree(folder)
    smallest_ranks, smallest_seconds = rows[0][0], rows[0][1]
    print(f"stepscope merge of N summaries from a folder ({stepscope})")
    print("| N | time | peak RSS | time per rank vs N=" + f"{smallest_ranks:,} | stragglers |")
    print("|---|---|---|---|---|")
    failures = 0
    for ranks, seconds, peak, named, planted in rows:
        growth = (seconds / ranks) / (smallest_seconds / smallest_ranks)
        found = named == planted  # every planted straggler, and no other rank
        verdict = (
            f"{len(planted)} of {len(planted)} named"
            if found
            else f"not named: got {named[:6]} for {planted[:6]}"
        )
        failures += 0 if found else 1
        print(
            f"| {ranks:,} | {seconds:.2f} s | {peak / 2**20:.0f} MiB | {growth:.2f}x "
            f"(<= {GROWTH_TARGET}x) | {verdict} |"
        )
    largest = rows[-1]
    if not args.ci and largest[0] >= 100_000:
        met = largest[1] < TIME_TARGET_S and largest[2] < MEMORY_TARGET_BYTES
        print(
            f"target at {largest[0]:,}: < {TIME_TARGET_S:.0f} s and < 2 GiB: "
            f"{'met' if met else 'not met'}"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
