#!/usr/bin/env python3
"""Side-by-side benchmarks of `stepscope analyze`, measured against baselines run in the same
script on the same files: `gzip -dc`, and HTA (Holistic Trace Analysis) computing the same
figures. Prints ratios, never absolute pass/fail: the machines are noisy, so each timing is the
median of --repeat runs.

Targets checked (issue: the trace engine):
  * analyze is >= 30x faster than HTA on trace_diff/control and on the 1 GB trace;
  * on .json.gz, analyze takes no longer than `gzip -dc FILE > /dev/null`;
  * on the 1 GB .json, >= 400 MB/s on one thread; the speed-up of two threads is reported;
  * peak RSS on the 1 GB trace <= 0.6 x its uncompressed size (HTA's peak shown beside it).

Usage (from the repository root):
  python3 bench/run_benchmarks.py                      # everything (HTA on 1 GB takes minutes)
  python3 bench/run_benchmarks.py --skip-hta-large     # HTA only on trace_diff/control
  python3 bench/run_benchmarks.py --size-mb 256        # a smaller generated trace
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "traces" / "hta"
CONTROL = SHARED / "trace_diff" / "control" / "control.json.gz"


@dataclass
class Run:
    seconds: float
    peak_rss_bytes: int
    returncode: int


@dataclass
class Row:
    name: str
    value: float
    unit: str
    baseline_name: str = ""
    baseline_value: float = 0.0
    ratio: float = 0.0
    target: str = ""
    met: bool | None = None


def run_once(command: list[str], stdout_to_null: bool = True) -> Run:
    """Runs a command and returns its wall time and its own peak RSS (wait4's ru_maxrss)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL if stdout_to_null else None,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return Run(seconds, usage.ru_maxrss * 1024, process.returncode)


def run_median(command: list[str], repeat: int) -> Run:
    runs = [run_once(command) for _ in range(repeat)]
    failed = [r for r in runs if r.returncode != 0]
    if failed:
        raise SystemExit(f"command failed ({failed[0].returncode}): {' '.join(command)}")
    return Run(
        statistics.median(r.seconds for r in runs),
        max(r.peak_rss_bytes for r in runs),
        0,
    )


def find_stepscope(explicit: str | None) -> str:
    if explicit:
        return explicit
    on_path = shutil.which("stepscope")
    if on_path:
        return on_path
    built = REPO / "build" / "stepscope"
    if built.exists():
        return str(built)
    raise SystemExit("no stepscope binary: pip install . or build with CMake into build/")


def analyze(stepscope: str, trace: Path, threads: int | None = None) -> list[str]:
    # All default figures, written as JSON, as a user would run it; threads by input size
    # unless a test asks for a number. The JSON goes to stdout ("-"), which run_once discards:
    # an output path is never a device (replacing /dev/null as root would break the machine).
    command = [stepscope, "analyze", str(trace), "--quiet", "--json", "-"]
    return command + (["--threads", str(threads)] if threads else [])


def hta(trace: Path, out: Path) -> list[str]:
    return [sys.executable, str(REPO / "bench" / "hta_figures.py"), str(trace), "--out", str(out)]


def ensure_large_trace(workdir: Path, size_mb: int, source: Path) -> tuple[Path, Path]:
    plain = workdir / f"large_{size_mb}mb.json"
    compressed = workdir / f"large_{size_mb}mb.json.gz"
    generator = [sys.executable, str(REPO / "bench" / "gen_large_trace.py"), "--size-mb",
                 str(size_mb), "--source", str(source)]
    for path in (plain, compressed):
        if not path.exists():
            print(f"generating {path} ...", file=sys.stderr)
            subprocess.run([*generator, "--out", str(path)], check=True)
    return plain, compressed


def compare(name: str, ours: float, baseline_name: str, baseline: float, target: str,
            met: bool) -> Row:
    return Row(name, ours, "s", baseline_name, baseline, baseline / ours if ours else 0.0, target,
               met)


def bench_against_hta(stepscope: str, trace: Path, label: str, repeat: int, workdir: Path,
                      rows: list[Row]) -> None:
    ours = run_median(analyze(stepscope, trace), repeat)
    peer = run_median(hta(trace, workdir / "hta.json"), 1)
    ratio = peer.seconds / ours.seconds
    rows.append(compare(f"analyze {label}", ours.seconds, "HTA", peer.seconds, ">= 30x faster",
                        ratio >= 30))
    rows.append(Row(f"peak RSS {label}", ours.peak_rss_bytes / 2**20, "MiB", "HTA",
                    peer.peak_rss_bytes / 2**20, peer.peak_rss_bytes / max(ours.peak_rss_bytes, 1)))


def bench_throughput(stepscope: str, plain: Path, compressed: Path, repeat: int,
                     rows: list[Row]) -> None:
    size = plain.stat().st_size
    one = run_median(analyze(stepscope, plain, threads=1), repeat)
    two = run_median(analyze(stepscope, plain, threads=2), repeat)
    rows.append(Row("throughput .json, 1 thread", size / one.seconds / 1e6, "MB/s",
                    target=">= 400 MB/s", met=size / one.seconds / 1e6 >= 400))
    rows.append(Row("throughput .json, 2 threads", size / two.seconds / 1e6, "MB/s",
                    "1 thread", size / one.seconds / 1e6, one.seconds / two.seconds,
                    "speed-up reported"))
    rss_share = two.peak_rss_bytes / size
    rows.append(Row("peak RSS / file size (.json)", rss_share, "x", target="<= 0.6",
                    met=rss_share <= 0.6))
    gunzip = run_median(["gzip", "-dc", str(compressed)], repeat)
    ours_gz = run_median(analyze(stepscope, compressed), repeat)
    rows.append(compare("analyze .json.gz", ours_gz.seconds, "gzip -dc", gunzip.seconds,
                        "<= gzip -dc time", ours_gz.seconds <= gunzip.seconds))


def print_rows(rows: list[Row]) -> None:
    print(f"{'figure':34} {'stepscope':>14} {'baseline':>22} {'ratio':>9}  target")
    for row in rows:
        ours = f"{row.value:.3f} {row.unit}"
        base = f"{row.baseline_name} {row.baseline_value:.3f}" if row.baseline_name else ""
        ratio = f"{row.ratio:.2f}x" if row.ratio else ""
        verdict = "" if row.met is None else ("met" if row.met else "NOT met")
        print(f"{row.name:34} {ours:>14} {base:>22} {ratio:>9}  {row.target} {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stepscope", help="the stepscope binary (default: on PATH, build/)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/stepscope-bench"))
    parser.add_argument("--size-mb", type=int, default=1024, help="generated trace size")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (median)")
    parser.add_argument("--skip-hta-large", action="store_true",
                        help="do not run HTA on the generated trace (it takes minutes)")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    parser.add_argument("--control", type=Path, default=CONTROL,
                        help="trace_diff/control (default: in ../shared/traces)")
    parser.add_argument("--skip-hta", action="store_true",
                        help="no HTA at all (a machine without it): gzip and throughput only")
    args = parser.parse_args()
    if not args.control.exists():
        raise SystemExit(f"{args.control} is absent: the benchmarks need ../shared/traces")
    stepscope = find_stepscope(args.stepscope)
    args.workdir.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    if not args.skip_hta:
        bench_against_hta(stepscope, args.control, "trace_diff/control", args.repeat,
                          args.workdir, rows)
    plain, compressed = ensure_large_trace(args.workdir, args.size_mb, args.control)
    bench_throughput(stepscope, plain, compressed, args.repeat, rows)
    if not args.skip_hta and not args.skip_hta_large:
        bench_against_hta(stepscope, compressed, f"{args.size_mb} MB .json.gz", 1, args.workdir,
                          rows)
    print_rows(rows)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
