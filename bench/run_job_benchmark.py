#!/usr/bin/env python3
"""Wall time and peak memory of `stepscope analyze FOLDER` on generated 8-, 64- (and 512-) rank
jobs, with `--jobs 1` and `--jobs 2`.

Jobs are made by bench/gen_job.py from one real trace (kept in ``--work`` and reused when the
same size and settings are asked for again). Each run's peak RSS is its own (wait4's
ru_maxrss). The bound of issue 13 is peak RSS under twice the largest single rank's in-memory
size times the ranks in flight; the ratio printed is

    peak RSS / (2 x max over ranks of import.bytes_in_memory x min(jobs, ranks))

so a ratio at or under 1 meets it. ``bytes_in_memory`` is read from the JSON document of the run
(``ranks[].import``); where the job document does not carry per-rank sections, from a separate
`stepscope analyze` of the largest trace file.

Examples:
  python3 bench/run_job_benchmark.py                       # 8 and 64 ranks
  python3 bench/run_job_benchmark.py --with-512 --events-per-step 2000
  python3 bench/run_job_benchmark.py --stepscope build/dev/stepscope --json /tmp/job_bench.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
GEN_JOB = BENCH / "gen_job.py"


@dataclass(frozen=True)
class Run:
    ranks: int
    jobs: int
    wall_s: float
    peak_rss_bytes: int
    max_rank_bytes_in_memory: int
    ratio: float  # peak RSS / (2 x largest rank in memory x ranks in flight)
    ratio_above_baseline: float  # the same with the process's own baseline RSS taken off
    exit_status: int


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    model = ""
    with open("/proc/cpuinfo", encoding="utf-8") as stream:
        for line in stream:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    memory_kib = 0
    with open("/proc/meminfo", encoding="utf-8") as stream:
        for line in stream:
            if line.startswith("MemTotal:"):
                memory_kib = int(line.split()[1])
                break
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "memory_gib": round(memory_kib / 2**20, 1),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "load_average": os.getloadavg(),
    }


def make_job(work: Path, ranks: int, options: argparse.Namespace) -> Path:
    """The job folder for `ranks`, generated unless the same one is already there."""
    settings = [
        "--ranks", str(ranks),
        "--events-per-step", str(options.events_per_step),
        "--steps", str(options.steps),
        "--straggler", str(ranks // 2),
        "--seed", "1",
    ]  # fmt: skip
    if options.source is not None:
        settings += ["--source", str(options.source)]
    folder = work / f"job_{ranks}"
    stamp = work / f"job_{ranks}.settings.json"
    if folder.is_dir() and stamp.is_file() and json.loads(stamp.read_text()) == settings:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, str(GEN_JOB), "--out", str(folder), *settings],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    stamp.write_text(json.dumps(settings))
    print(f"generated {ranks} ranks in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return folder


def measured(command: Sequence[str]) -> tuple[float, int, int]:
    """Runs a command; its wall time, its own peak RSS in bytes and its exit status."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    assert process.stderr is not None
    errors = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        print(f"{' '.join(command)}: exit {process.returncode}\n{errors}", file=sys.stderr)
    return seconds, usage.ru_maxrss * 1024, process.returncode


def rank_bytes(document: dict[str, Any]) -> list[int]:
    return [
        int(rank["import"]["bytes_in_memory"])
        for rank in document.get("ranks", [])
        if isinstance(rank, dict) and "bytes_in_memory" in rank.get("import", {})
    ]


def largest_rank_bytes(stepscope: str, folder: Path, document: dict[str, Any], out: Path) -> int:
    found = rank_bytes(document)
    if found:
        return max(found)
    largest = max((p for p in folder.iterdir() if not p.name.startswith(".")),
                  key=lambda p: p.stat().st_size)  # fmt: skip
    single = out.with_suffix(".single.json")
    subprocess.run([stepscope, "analyze", str(largest), "--json", str(single), "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    return max(rank_bytes(json.loads(single.read_text(encoding="utf-8"))))


def baseline_rss(stepscope: str, work: Path) -> int:
    """Peak RSS of `stepscope analyze` on a one-rank job of a few events: the process's fixed
    cost (binary, libraries, allocator), which dominates the ratio for small ranks."""
    folder = work / "job_baseline"
    if not folder.is_dir():
        subprocess.run(
            [sys.executable, str(GEN_JOB), "--out", str(folder), "--ranks", "1",
             "--events-per-step", "10", "--steps", "2"],
            check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
    document = work / "analyze_baseline.json"
    _, peak, status = measured([stepscope, "analyze", str(folder), "--quiet", "--json",
                                str(document)])  # fmt: skip
    return peak if status == 0 else 0


def bench(stepscope: str, folder: Path, ranks: int, jobs: int, out: Path, baseline: int) -> Run:
    document_path = out / f"analyze_{ranks}_jobs{jobs}.json"
    command = [stepscope, "analyze", str(folder), "--jobs", str(jobs), "--quiet",
               "--json", str(document_path)]  # fmt: skip
    seconds, peak, status = measured(command)
    if status != 0:
        return Run(ranks, jobs, seconds, peak, 0, float("nan"), float("nan"), status)
    document = json.loads(document_path.read_text(encoding="utf-8"))
    largest = largest_rank_bytes(stepscope, folder, document, document_path)
    bound = 2 * largest * min(jobs, ranks)
    if not bound:
        return Run(ranks, jobs, seconds, peak, largest, float("nan"), float("nan"), 0)
    return Run(ranks, jobs, seconds, peak, largest, peak / bound, (peak - baseline) / bound, 0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stepscope", default=shutil.which("stepscope") or "stepscope")
    parser.add_argument("--work", type=Path, default=None,
                        help="folder for the generated jobs, kept for the next run "
                        "(default: a temporary folder, removed)")  # fmt: skip
    parser.add_argument("--source", type=Path, default=None, help="gen_job.py --source")
    parser.add_argument("--events-per-step", type=int, default=2000,
                        help="events per rank and step (2000)")  # fmt: skip
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--sizes", default="8,64", help="world sizes (8,64)")
    parser.add_argument("--with-512", action="store_true", help="add 512 ranks (slow)")
    parser.add_argument("--jobs", default="1,2", help="--jobs values (1,2)")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    options = parser.parse_args(argv)
    sizes = [int(size) for size in options.sizes.split(",") if size]
    if options.with_512 and 512 not in sizes:
        sizes.append(512)
    jobs_values = [int(jobs) for jobs in options.jobs.split(",") if jobs]

    with tempfile.TemporaryDirectory(prefix="stepscope_job_bench_") as scratch:
        work = options.work or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        runs: list[Run] = []
        baseline = baseline_rss(options.stepscope, work)
        print(f"baseline peak RSS (one tiny rank) {baseline / 2**20:.1f} MiB", flush=True)
        for ranks in sizes:
            folder = make_job(work, ranks, options)
            for jobs in jobs_values:
                run = bench(options.stepscope, folder, ranks, jobs, work, baseline)
                runs.append(run)
                print(
                    f"{ranks:5d} ranks  --jobs {jobs}  wall {run.wall_s:8.2f} s  "
                    f"peak RSS {run.peak_rss_bytes / 2**20:8.1f} MiB  largest rank in memory "
                    f"{run.max_rank_bytes_in_memory / 2**20:7.1f} MiB  ratio {run.ratio:5.2f} "
                    f"(above baseline {run.ratio_above_baseline:5.2f})"
                    f"{'' if run.exit_status == 0 else f'  (exit {run.exit_status})'}",
                    flush=True,
                )
    description = machine()
    print(
        f"machine: {description['cpu']}, {description['cores']} cores, "
        f"{description['memory_gib']} GiB, {description['platform']}, load average "
        f"{', '.join(f'{x:.1f}' for x in description['load_average'])}"
    )
    print("ratio = peak RSS / (2 x largest rank's bytes_in_memory x min(jobs, ranks)); <= 1 meets "
          "the bound. With small ranks the process's baseline RSS dominates: 'above baseline' "
          "takes it off; use --events-per-step 20000 for ranks the size of real ones")  # fmt: skip
    if options.json is not None:
        options.json.write_text(
            json.dumps({"machine": description, "runs": [asdict(run) for run in runs]}, indent=1)
            + "\n",
            encoding="utf-8",
        )
    return 0 if all(run.exit_status == 0 for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
