#!/usr/bin/env python3
"""Every figure of issue 16 ("Speed"), each beside its target and the baseline measured in the
same run: `stepscope analyze` against `gzip -dc` and HTA (Holistic Trace Analysis) on the same
files. Rows say "met" / "not met"; the exit status never depends on them (the machines are shared
and noisy): it is non-zero only when a command fails, or when the profile-guided build's figures
differ from the default build's. Each timing is the median of --repeat runs; the two sides of a
ratio (1 and 2 threads, stepscope and `gzip -dc`) run alternately.

Figures and targets (issue 16):
  * generated 1 GB .json, one thread, end to end: >= 500 MB/s; the same with the profile-guided
    build when there is one (tools/build_pgo.py), alternated with the default build, and whether
    their figures agree;
  * the same with two threads: >= 1.8x one thread; beside it, with no target, two one-thread
    runs at once against one alone: what work that shares nothing gains on this machine, and
    the memory read bandwidth of two processes against one (numpy sums, when numpy is there);
  * .json.gz: <= 0.8x the time of `gzip -dc` on trace_diff/control and on the generated trace;
  * against HTA: >= 50x on control, >= 100x on the generated trace (--hta-large: HTA takes
    minutes there), peak RSS beside HTA's;
  * peak RSS on the generated .json <= 0.5x its size (issue: a 4 GB trace, --rss-size-mb 4096),
    bytes per event in memory (stepscope's own count from its JSON output);
  * start-up floor (`stepscope --version`, a one-event trace) against the time on control;
  * instruction count of `analyze` on control, one thread (perf stat or callgrind, when there),
    so that a regression shows;
  * many distinct op names (a third of the CPU ops with names of their own): twice the ops and
    names <= 2.5x the time (every analysis near-linear in events and names; quadratic is 4x),
    and beside it the same ops with 50 names, no target;
  * from Python (issue 12, when the stepscope package is importable): `Report.to_html()` on an
    analysed report <= 0.2x the time of `stepscope.analyze()` on the same trace (control and
    the generated .json), since the page is drawn from the analysis, not a second one.

Usage (from the repository root):
  python3 bench/run_benchmarks.py                      # 1 GB trace, HTA on control only
  python3 bench/run_benchmarks.py --hta-large          # and HTA on the 1 GB .json.gz (minutes)
  python3 bench/run_benchmarks.py --rss-size-mb 4096   # peak RSS on a 4 GB trace, as the issue
  python3 bench/run_benchmarks.py --ci                 # 100 MB trace, one run each (CI)
  python3 bench/run_benchmarks.py --rss-size-mb 4096 --hta-large --repeat 7 --write-readme
                                                       # and the table into README.md
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def find_shared() -> Path:
    """../shared/traces/hta next to the clone, or next to a folder above it (a worktree)."""
    for folder in REPO.parents:
        candidate = folder / "shared" / "traces" / "hta"
        if candidate.is_dir():
            return candidate
    return REPO.parent / "shared" / "traces" / "hta"


SHARED = find_shared()
CONTROL = SHARED / "trace_diff" / "control" / "control.json.gz"
# A trace of the repository, used when ../shared/traces is absent (a bare CI machine).
FALLBACK_CONTROL = REPO / "tests" / "data" / "h100" / "fp32_gemm.pt.trace.json.gz"
README = REPO / "README.md"
# --write-readme replaces what lies between these two lines of the README, and nothing else.
TABLE_START = "<!-- benchmark-table:start -->"
TABLE_END = "<!-- benchmark-table:end -->"
# Issue 16's targets against the baselines, each stated once.
GZIP_TARGET = 0.8  # at most this many times `gzip -dc`'s time
HTA_CONTROL_TARGET = 50  # at least this many times faster than HTA on control
HTA_LARGE_TARGET = 100  # the same on the generated .json.gz
ONE_THREAD_TARGET = 500  # MB/s of the generated .json on one thread
DISTINCT_NAMES_TARGET = 2.5  # twice the ops and names: at most this many times the time
DISTINCT_NAMES_EVENTS = 600_000  # --ci: a fifth of it
MINIMAL_TRACE = {
    "traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "op", "ts": 0, "dur": 1, "pid": 1, "tid": 1}
    ]
}


class CommandFailed(RuntimeError):
    pass


@dataclass
class Run:
    seconds: float
    peak_rss_bytes: int


@dataclass
class Row:
    """One figure. `ratio` is compared with `threshold` by `op` ('>=' or '<='); `met` is None
    when the figure has no target or was not measured (then `note` says why)."""

    name: str
    value: float | None
    unit: str
    baseline_name: str = ""
    baseline_value: float | None = None
    ratio: float | None = None
    op: str = ""
    threshold: float | None = None
    target: str = ""
    met: bool | None = None
    note: str = ""


# ---------------------------------------------------------------------------- pure helpers


def instructions_per_unit(
    instructions: float, input_bytes: int, events: int
) -> tuple[float, float]:
    """Instructions per byte of (decompressed) input and per event; 0 where the divisor is."""
    per_byte = instructions / input_bytes if input_bytes > 0 else 0.0
    per_event = instructions / events if events > 0 else 0.0
    return per_byte, per_event


def judge(ratio: float | None, op: str, threshold: float | None) -> bool | None:
    """Whether `ratio op threshold` holds; None when there is nothing to judge."""
    if ratio is None or threshold is None or not op:
        return None
    if op == ">=":
        return ratio >= threshold
    if op == "<=":
        return ratio <= threshold
    raise ValueError(f"unknown comparison {op!r}")


def target_row(
    name: str,
    value: float | None,
    unit: str,
    *,
    ratio: float | None,
    op: str = "",
    threshold: float | None = None,
    ratio_unit: str = "x",
    baseline_name: str = "",
    baseline_value: float | None = None,
    note: str = "",
) -> Row:
    """A row whose verdict is `ratio op threshold` (`value op threshold` when there is no
    ratio), with the target written out."""
    target = f"{op} {threshold:g}{ratio_unit}" if op and threshold is not None else ""
    return Row(
        name,
        value,
        unit,
        baseline_name,
        baseline_value,
        ratio,
        op,
        threshold,
        target,
        judge(ratio if ratio is not None else value, op, threshold),
        note,
    )


def skipped_row(name: str, why: str, op: str = "", threshold: float | None = None) -> Row:
    return target_row(name, None, "", ratio=None, op=op, threshold=threshold, note=why)


def format_number(value: float) -> str:
    """Three significant digits, no exponent for the sizes met here."""
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 100:
        return f"{value:,.0f}"
    if magnitude >= 10:
        return f"{value:.1f}"
    if magnitude >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def format_judged(value: float, op: str, threshold: float | None) -> str:
    """format_number(value), with as many more decimals as it takes for the number shown to
    fall on the same side of the target as the number measured: 1.7985 against `>= 1.8` reads
    1.799, not 1.80 beside "not met"."""
    text = format_number(value)
    met = judge(value, op, threshold)
    if met is None or "e" in text:
        return text
    decimals = len(text.partition(".")[2])
    while judge(float(text.replace(",", "")), op, threshold) != met and decimals < 9:
        decimals += 1
        text = f"{value:,.{decimals}f}"
    return text


def format_value(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    return f"{format_number(value)} {unit}".strip()


def verdict(row: Row) -> str:
    if row.value is None and row.ratio is None:
        return f"not measured: {row.note}" if row.note else "not measured"
    text = "" if row.met is None else ("met" if row.met else "not met")
    if row.note:
        text = f"{text} ({row.note})" if text else row.note
    return text


def format_rows(rows: Sequence[Row]) -> list[str]:
    """The rows as a Markdown table (printed, and put into the README by --write-readme)."""
    lines = [
        "| figure | stepscope | baseline | ratio | target | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        base = ""
        if row.baseline_name:
            base = row.baseline_name
            if row.baseline_value is not None:
                base += f" {format_value(row.baseline_value, row.unit)}"
        ratio = ""
        value = format_value(row.value, row.unit)
        if row.ratio is not None:
            ratio = f"{format_judged(row.ratio, row.op, row.threshold)}x"
        elif row.value is not None:  # judged on the value
            value = f"{format_judged(row.value, row.op, row.threshold)} {row.unit}".strip()
        cells = [row.name, value, base, ratio, row.target, verdict(row)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def cpu_model(cpuinfo: str) -> str:
    """The first `model name` of /proc/cpuinfo (or what arm64 kernels write instead)."""
    for key in ("model name", "Model", "Hardware", "cpu model"):
        match = re.search(rf"^{re.escape(key)}\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
        if match:
            return match.group(1).strip()
    return platform.processor() or "unknown"


def meminfo_kib(meminfo: str, key: str) -> int | None:
    match = re.search(rf"^{re.escape(key)}:\s*(\d+)\s*kB", meminfo, re.MULTILINE)
    return int(match.group(1)) if match else None


def read_text(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def format_load(load: tuple[float, float, float] | None) -> str:
    if load is None:
        return "unknown"
    return " ".join(f"{x:.2f}" for x in load) + " (1, 5, 15 min)"


def load_average() -> tuple[float, float, float] | None:
    try:
        return os.getloadavg()
    except OSError:
        return None


def describe_machine(
    cpuinfo: str,
    meminfo: str,
    *,
    stepscope_version: str,
    stepscope_path: str,
    pgo_path: str = "none",
    commit: str,
    now: datetime.datetime,
    load: tuple[float, float, float] | None,
) -> dict[str, str]:
    """What the header prints, from the texts of /proc/cpuinfo and /proc/meminfo."""
    total = meminfo_kib(meminfo, "MemTotal")
    available = meminfo_kib(meminfo, "MemAvailable")
    memory = "unknown"
    if total is not None:
        memory = f"{total / 2**20:.1f} GiB"
        if available is not None:
            memory += f" ({available / 2**20:.1f} GiB available)"
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 0
    return {
        "cpu": cpu_model(cpuinfo),
        "cores": f"{os.cpu_count()} ({usable} usable by this process)",
        "memory": memory,
        "kernel": f"{platform.system()} {platform.release()} {platform.machine()}",
        "python": f"{platform.python_version()} ({sys.executable})",
        "stepscope": f"{stepscope_version} ({stepscope_path})",
        "stepscope PGO build": pgo_path,
        "commit": commit,
        "date": now.strftime("%Y-%m-%d %H:%M:%S UTC"),
        "load average at start": format_load(load),
    }


def format_header(machine: dict[str, str]) -> list[str]:
    width = max(len(key) for key in machine)
    return [f"{key + ':':{width + 1}} {value}" for key, value in machine.items()]


def command_line(argv: Sequence[str]) -> str:
    """The command as the README shows it: the run's own options, --write-readme left out."""
    shown: list[str] = []
    skip_next = False
    for index, token in enumerate(argv):
        if skip_next:
            skip_next = False
            continue
        if token.startswith("--write-readme"):
            following = argv[index + 1] if index + 1 < len(argv) else "-"
            skip_next = token == "--write-readme" and not following.startswith("-")
            continue
        shown.append(token)
    return shlex.join(["python3", "bench/run_benchmarks.py", *shown])


def readme_block(
    machine: dict[str, str], command: str, rows: Sequence[Row], notes: Sequence[str] = ()
) -> str:
    """The README's benchmark block: one sentence on the run and the machine, then the table."""
    header = (
        f"**Latest full run: {machine['date']}, commit `{machine['commit']}`** "
        f"({machine['cpu']}; cores: {machine['cores']}; memory: {machine['memory']}; "
        f"{machine['kernel']}; load average {machine['load average at start']} at the start "
        f"and {machine.get('load average at end', 'unknown')} at the end), `{command}` "
        f"({machine['run']}), written by the run itself:"
    )
    lines = [header, ""]
    if notes:
        lines += [f"Note: {note}" for note in notes] + [""]
    return "\n".join(lines + format_rows(rows))


def splice_readme(text: str, block: str) -> str:
    """`text` with what lies between the two markers replaced by `block`; the rest unchanged.
    A text without exactly one pair of markers, in order, is refused (ValueError)."""
    starts, ends = text.count(TABLE_START), text.count(TABLE_END)
    if starts != 1 or ends != 1:
        raise ValueError(
            f"expected one {TABLE_START} and one {TABLE_END} line, found {starts} and {ends}"
        )
    start = text.index(TABLE_START) + len(TABLE_START)
    end = text.index(TABLE_END)
    if end < start:
        raise ValueError(f"{TABLE_END} comes before {TABLE_START}")
    return text[:start] + "\n\n" + block.strip("\n") + "\n" + text[end:]


def is_executable_binary(path: Path) -> bool:
    """A real executable, not a shell-script shim (pyenv's costs about 70 ms a call)."""
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError:
        return False
    return magic == b"\x7fELF" and os.access(path, os.X_OK)


def find_stepscope(explicit: str | None) -> Path:
    """The stepscope binary itself: --stepscope, else this checkout's builds, else the one that
    `pip install .` put in the scripts folder, else PATH; shims are skipped."""
    if explicit:
        path = Path(explicit).resolve()
        if not path.exists():
            raise SystemExit(f"--stepscope {explicit}: no such file")
        return path
    candidates = [
        REPO / "build" / "dev" / "stepscope",
        REPO / "build" / "ci" / "release" / "stepscope",
        REPO / "build" / "stepscope",
        Path(sysconfig.get_path("scripts")) / "stepscope",
    ]
    on_path = shutil.which("stepscope")
    if on_path:
        candidates.append(Path(on_path))
    for candidate in candidates:
        resolved = candidate.resolve()
        if is_executable_binary(resolved):
            return resolved
    raise SystemExit(
        "no stepscope binary (shims skipped): build it with CMake into build/dev, "
        "pip install ., or pass --stepscope"
    )


def find_pgo_build(explicit: str | None) -> Path | None:
    """The profile-guided build: --pgo-stepscope, else build/pgo/stepscope when it is there."""
    if explicit:
        path = Path(explicit).resolve()
        if not is_executable_binary(path):
            raise SystemExit(f"--pgo-stepscope {explicit}: not an executable binary")
        return path
    default = (REPO / "build" / "pgo" / "stepscope").resolve()
    return default if is_executable_binary(default) else None


# ---------------------------------------------------------------------------- measuring


def read_into_page_cache(command: Sequence[str]) -> None:
    """Reads every file the command names once, untimed, so that each timed run finds its input
    in the page cache: on the VMs measured the kernel reclaims cached pages between runs (a
    1 GiB trace was found partly evicted minutes after it was read), and a run that reads from
    disk measures the disk, on one side of a ratio and not the other."""
    chunk = 16 << 20
    for argument in command:
        path = Path(argument)
        if path.is_file():
            with path.open("rb") as file:
                while file.read(chunk):
                    pass


def run_once(command: Sequence[str], stdout_path: Path | None = None) -> Run:
    """Runs a command, returning its wall time and its own peak RSS (wait4's ru_maxrss).
    Its stdout goes to `stdout_path` or is discarded; a failure raises CommandFailed."""
    read_into_page_cache(command)
    with tempfile.TemporaryFile() as stderr:
        out = stdout_path.open("wb") if stdout_path else None
        try:
            start = time.perf_counter()
            process = subprocess.Popen(
                list(command), stdout=out if out else subprocess.DEVNULL, stderr=stderr
            )
            _, status, usage = os.wait4(process.pid, 0)
            seconds = time.perf_counter() - start
        finally:
            if out:
                out.close()
        process.returncode = code = os.waitstatus_to_exitcode(status)
        if code != 0:
            stderr.seek(0)
            tail = stderr.read().decode(errors="replace")[-2000:]
            raise CommandFailed(f"exit {code}: {' '.join(command)}\n{tail}")
    return Run(seconds, usage.ru_maxrss * 1024)


def run_together(command: Sequence[str], copies: int, workdir: Path) -> Run:
    """Runs `copies` copies of a command at once: the wall time until the last one ends, and the
    largest peak RSS among them. Each copy's stdout goes to a file of its own."""
    read_into_page_cache(command)
    outputs = [workdir / f"together_{i}.out" for i in range(copies)]
    handles = [path.open("wb") for path in outputs]
    try:
        start = time.perf_counter()
        processes = [
            subprocess.Popen(list(command), stdout=handle, stderr=subprocess.DEVNULL)
            for handle in handles
        ]
        peak = 0
        codes = []
        for process in processes:  # every copy waited for, even after one fails
            _, status, usage = os.wait4(process.pid, 0)
            peak = max(peak, usage.ru_maxrss * 1024)
            codes.append(os.waitstatus_to_exitcode(status))
        seconds = time.perf_counter() - start
        if any(codes):
            raise CommandFailed(f"exit {codes}: {' '.join(command)} (run {copies} at once)")
    finally:
        for handle in handles:
            handle.close()
        for path in outputs:
            path.unlink(missing_ok=True)
    return Run(seconds, peak)


def median_run(runs: Sequence[Run]) -> Run:
    return Run(statistics.median(r.seconds for r in runs), max(r.peak_rss_bytes for r in runs))


def run_pairs(
    first: Callable[[], Run], second: Callable[[], Run], repeat: int
) -> tuple[list[Run], list[Run]]:
    """Both measurements' runs, alternated: a ratio between the two then compares runs made
    under the same load (a shared machine's load drifts over minutes)."""
    runs: tuple[list[Run], list[Run]] = ([], [])
    for _ in range(max(repeat, 1)):
        runs[0].append(first())
        runs[1].append(second())
    return runs


def run_alternating(
    first: Callable[[], Run], second: Callable[[], Run], repeat: int
) -> tuple[Run, Run]:
    """Both measurements' medians, their runs alternated (run_pairs)."""
    firsts, seconds = run_pairs(first, second, repeat)
    return median_run(firsts), median_run(seconds)


def spread_note(
    label: str, firsts: Sequence[Run], seconds: Sequence[Run], judged: bool = True
) -> str:
    """Every run of both sides, slowest last, and the ratio of each first run to the second run
    made right after it, which a drift of the machine's speed between pairs does not move (noise
    within a pair still does). `judged`: the row has a verdict, on the medians' ratio."""

    def listed(runs: Sequence[Run]) -> str:
        return " ".join(f"{run.seconds:.2f}" for run in sorted(runs, key=lambda r: r.seconds))

    ratios = [a.seconds / b.seconds for a, b in zip(firsts, seconds, strict=True)]
    basis = "the verdict is on the medians' ratio" if judged else "the ratio is the medians'"
    return (
        f"runs {label}: {listed(firsts)} s against {listed(seconds)} s; "
        f"pairwise ratios {min(ratios):.2f}x-{max(ratios):.2f}x, "
        f"median {statistics.median(ratios):.2f}x ({basis})"
    )


def run_median(command: Sequence[str], repeat: int, stdout_path: Path | None = None) -> Run:
    return median_run([run_once(command, stdout_path) for _ in range(max(repeat, 1))])


def run_median_pair(
    first: Sequence[str],
    second: Sequence[str],
    repeat: int,
    first_stdout: Path | None = None,
) -> tuple[Run, Run]:
    """Both commands' medians, their runs alternated (run_alternating)."""
    return run_alternating(lambda: run_once(first, first_stdout), lambda: run_once(second), repeat)


def analyze(stepscope: Path, trace: Path, threads: int | None = None) -> list[str]:
    # Every default figure, as JSON on stdout ("-"): an output path is never /dev/null
    # (replacing it as root would break the machine); run_once sends stdout to a temp file.
    command = [str(stepscope), "analyze", str(trace), "--quiet", "--json", "-"]
    return command + (["--threads", str(threads)] if threads else [])


def import_figures(report: Path) -> dict[str, Any]:
    """The `import` section (events, bytes in memory) of the first rank of a JSON report."""
    data = json.loads(report.read_text())
    figures: dict[str, Any] = data["ranks"][0]["import"]
    return figures


def hta_available() -> bool:
    probe = subprocess.run(
        [sys.executable, "-c", "import hta"], capture_output=True, check=False, timeout=120
    )
    return probe.returncode == 0


def hta_command(trace: Path, out: Path) -> list[str]:
    return [sys.executable, str(REPO / "bench" / "hta_figures.py"), str(trace), "--out", str(out)]


def ensure_large_trace(workdir: Path, size_mb: int, source: Path, gz: bool) -> Path:
    suffix = ".json.gz" if gz else ".json"
    path = workdir / f"large_{source.name.split('.')[0]}_{size_mb}mb{suffix}"
    if not path.exists():
        print(f"generating {path} ...", file=sys.stderr, flush=True)
        generator = [sys.executable, str(REPO / "bench" / "gen_large_trace.py")]
        generator += ["--size-mb", str(size_mb), "--source", str(source), "--out", str(path)]
        subprocess.run(generator, check=True, stdout=subprocess.DEVNULL)
    return path


def instruction_count(command: Sequence[str], workdir: Path) -> tuple[float | None, str]:
    """User-space instructions of one run: `perf stat` where the CPU counters are visible,
    else callgrind; (None, why) when neither works."""
    if shutil.which("perf"):
        probe = subprocess.run(
            ["perf", "stat", "-x,", "-e", "instructions:u", "--", *command],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.returncode == 0:
            for line in probe.stderr.splitlines():
                fields = line.split(",")
                if len(fields) > 2 and fields[2].startswith("instructions") and fields[0].isdigit():
                    return float(fields[0]), "perf stat instructions:u"
    if shutil.which("valgrind"):
        out = workdir / "callgrind.out"
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
            capture_output=True,
            text=True,
            check=False,
        )
        if run.returncode != 0:
            raise CommandFailed(f"callgrind failed ({run.returncode}):\n{run.stderr[-2000:]}")
        match = re.search(r"Collected\s*:\s*(\d+)", run.stderr)
        out.unlink(missing_ok=True)
        if match:
            return float(match.group(1)), "callgrind Ir"
    return None, "no perf counters here and no valgrind (apt-get install valgrind)"


# ---------------------------------------------------------------------------- the figures


def small_repeat(args: argparse.Namespace) -> int:
    """Runs per timing on control and the Python rows: a run of control takes a twentieth of a
    second, so more runs are cheap and make its ratios steadier on a noisy machine."""
    repeat = int(args.repeat)
    return repeat if args.ci else max(repeat, 7)


def gzip_row(timed: str, ours: Run, gunzip: Run) -> Row:
    """The time of reading a .json.gz against `gzip -dc` on the same file."""
    return target_row(
        f"{timed} vs gzip -dc",
        ours.seconds,
        "s",
        ratio=ours.seconds / gunzip.seconds,
        op="<=",
        threshold=GZIP_TARGET,
        baseline_name="gzip -dc",
        baseline_value=gunzip.seconds,
    )


def hta_rows(timed: str, memory: str, ours: Run, peer: Run, speed_target: float) -> list[Row]:
    """The time against HTA's, with its target, and the peak RSS beside HTA's."""
    return [
        target_row(
            f"{timed} vs HTA",
            ours.seconds,
            "s",
            ratio=peer.seconds / ours.seconds,
            op=">=",
            threshold=speed_target,
            baseline_name="HTA",
            baseline_value=peer.seconds,
        ),
        target_row(
            f"peak RSS {memory}, HTA's beside it",
            ours.peak_rss_bytes / 2**20,
            "MiB",
            ratio=peer.peak_rss_bytes / max(ours.peak_rss_bytes, 1),
            baseline_name="HTA",
            baseline_value=peer.peak_rss_bytes / 2**20,
            note="ratio: HTA / stepscope",
        ),
    ]


def bench_control(
    stepscope: Path, control: Path, label: str, args: argparse.Namespace, rows: list[Row]
) -> Run:
    report = args.workdir / "control_report.json"
    ours, gunzip = run_median_pair(
        analyze(stepscope, control), ["gzip", "-dc", str(control)], small_repeat(args), report
    )
    rows.append(gzip_row(f"analyze {label} (.json.gz)", ours, gunzip))
    if args.skip_hta or not hta_available():
        why = "--skip-hta" if args.skip_hta else "HTA not importable"
        rows.append(skipped_row(f"analyze {label} vs HTA", why, ">=", HTA_CONTROL_TARGET))
    else:
        # HTA's time moves by a quarter from run to run (3.2 to 4.7 s on control on one
        # machine): its median too, over fewer runs than ours (each takes seconds).
        peer = run_median(
            hta_command(control, args.workdir / "hta_control.json"), min(3, small_repeat(args))
        )
        rows += hta_rows(f"analyze {label}", label, ours, peer, HTA_CONTROL_TARGET)
    return ours


def bench_floor(
    stepscope: Path, control_run: Run, label: str, args: argparse.Namespace, rows: list[Row]
) -> None:
    version = run_median([str(stepscope), "--version"], max(args.repeat, 3))
    minimal = args.workdir / "minimal.json"
    minimal.write_text(json.dumps(MINIMAL_TRACE))
    tiny = run_median(analyze(stepscope, minimal), max(args.repeat, 3))
    for name, run in (("stepscope --version", version), ("analyze a one-event trace", tiny)):
        rows.append(
            target_row(
                f"start-up floor: {name}",
                run.seconds,
                "s",
                ratio=run.seconds / control_run.seconds,
                op="<=",
                threshold=0.5,
                ratio_unit=f"x {label}",
                baseline_name=f"analyze {label}",
                baseline_value=control_run.seconds,
                note="floor / control; <= 0.5: real work dominates",
            )
        )


def bench_ceiling(
    stepscope: Path, plain: Path, size_label: str, args: argparse.Namespace, rows: list[Row]
) -> None:
    """What two threads could gain here at best: two independent one-thread runs at once against
    one alone. Work that shares nothing scales by this much on this machine (a VM's two cores
    share caches, memory bandwidth and a host with other guests); the target is not moved by it,
    it says how much of the gap to 1.8x is the machine's."""
    command = analyze(stepscope, plain, threads=1)
    alone, together = run_alternating(
        lambda: run_once(command),
        lambda: run_together(command, 2, args.workdir),
        args.repeat,
    )
    rows.append(
        target_row(
            f"{size_label} .json, two 1-thread runs at once vs one",
            together.seconds,
            "s",
            ratio=2 * alone.seconds / together.seconds,
            baseline_name="one alone",
            baseline_value=alone.seconds,
            note="no target: the work per second of two processes that share nothing against "
            "one, the most two threads can gain on this machine",
        )
    )


def distinct_names_trace(events: int, names: int, steps: int = 4) -> dict[str, Any]:
    """`events` one-microsecond CPU ops in `steps` profiler steps, named op_0 .. op_{names-1} in
    turn: the same trace with a different `names` differs only in its names."""
    trace_events: list[dict[str, Any]] = []
    per_step = events // steps
    start = 0
    for step in range(steps):
        span = 2 * per_step + 10
        trace_events.append(
            {
                "ph": "X",
                "cat": "user_annotation",
                "name": f"ProfilerStep#{step}",
                "pid": 1,
                "tid": 1,
                "ts": start,
                "dur": span,
            }
        )
        for k in range(per_step):
            index = step * per_step + k
            trace_events.append(
                {
                    "ph": "X",
                    "cat": "cpu_op",
                    "name": f"op_{index % names}",
                    "pid": 1,
                    "tid": 1,
                    "ts": start + 1 + 2 * k,
                    "dur": 1,
                }
            )
        start += span + 10
    return {"traceEvents": trace_events}


def names_trace(workdir: Path, events: int, names: int) -> Path:
    path = workdir / f"names_{events}_{names}.json"
    if not path.exists():
        path.write_text(json.dumps(distinct_names_trace(events, names)))
    return path


def bench_distinct_names(stepscope: Path, args: argparse.Namespace, rows: list[Row]) -> None:
    """Time grows with events and names, not with their product: twice the ops and twice the
    distinct names against the trace half its size (a quadratic pass would take 4x), and beside
    it the same ops with 50 names (what distinct names cost at all)."""
    events = DISTINCT_NAMES_EVENTS // 5 if args.ci else DISTINCT_NAMES_EVENTS
    full = analyze(stepscope, names_trace(args.workdir, events, events // 3))
    half = analyze(stepscope, names_trace(args.workdir, events // 2, events // 6))
    few = analyze(stepscope, names_trace(args.workdir, events, 50))
    repeat = max(args.repeat, 3)
    doubled, halved = run_median_pair(full, half, repeat)
    rows.append(
        target_row(
            f"analyze {events:,} ops with {events // 3:,} distinct names",
            doubled.seconds,
            "s",
            ratio=doubled.seconds / halved.seconds,
            op="<=",
            threshold=DISTINCT_NAMES_TARGET,
            baseline_name="half the ops and names",
            baseline_value=halved.seconds,
            note="near-linear: 2x when linear, 4x when quadratic",
        )
    )
    many, named_alike = run_median_pair(full, few, repeat)
    rows.append(
        target_row(
            f"analyze {events:,} ops with {events // 3:,} distinct names, against 50 names",
            many.seconds,
            "s",
            ratio=many.seconds / named_alike.seconds,
            baseline_name="the same ops with 50 names",
            baseline_value=named_alike.seconds,
            note="no target: what a name of its own costs (interning, a table row, a reference)",
        )
    )


# Each process of the bandwidth row sums this many MiB of its own this many times.
BANDWIDTH_MIB = 256
BANDWIDTH_PASSES = 8
BANDWIDTH_WAIT_SECONDS = 120


def stream_reads(start: Any, seconds: Any, index: int) -> None:
    """In a process of its own: sums BANDWIDTH_MIB of 8-byte integers BANDWIDTH_PASSES times
    once every process is ready (`start`, a barrier), and stores the time that took."""
    import numpy

    data = numpy.ones(BANDWIDTH_MIB << 17, dtype=numpy.int64)
    data.sum()  # the pages touched before the timing
    start.wait(timeout=BANDWIDTH_WAIT_SECONDS)  # raises, rather than hangs, if another failed
    begin = time.perf_counter()
    for _ in range(BANDWIDTH_PASSES):
        data.sum()
    seconds[index] = time.perf_counter() - begin


def read_bandwidth(processes: int) -> float:
    """Bytes read per second by `processes` processes streaming their own memory at once."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    start = context.Barrier(processes)
    seconds = context.Array("d", processes)
    workers = [
        context.Process(target=stream_reads, args=(start, seconds, i)) for i in range(processes)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if any(worker.exitcode != 0 for worker in workers):
        raise CommandFailed(f"a memory-bandwidth process failed ({processes} at once)")
    read = processes * BANDWIDTH_PASSES * (BANDWIDTH_MIB << 20)
    slowest: float = max(seconds[:])
    return read / slowest


def bench_memory_bandwidth(args: argparse.Namespace, rows: list[Row]) -> None:
    """How much more memory two cores read per second than one: the phases after reading (the
    time order, linking, the analyses) stream columns much larger than the caches, so where this
    is near 1 they gain little from a second thread, whatever the code does."""
    name = "memory read bandwidth, two processes vs one"
    try:
        import numpy  # noqa: F401
    except ImportError:
        rows.append(Row(name, None, "GB/s", note="numpy is not installed"))
        return
    one: list[float] = []
    two: list[float] = []
    for _ in range(max(args.repeat, 1)):
        one.append(read_bandwidth(1))
        two.append(read_bandwidth(2))
    alone, together = statistics.median(one), statistics.median(two)
    rows.append(
        target_row(
            name,
            together / 1e9,
            "GB/s",
            ratio=together / alone,
            baseline_name="one process",
            baseline_value=alone / 1e9,
            note=f"no target: numpy sums of {BANDWIDTH_MIB} MiB per process; how much a second "
            "core adds to what the memory delivers on this machine",
        )
    )


def one_thread_row(name: str, size: int, run: Run, remark: str = "") -> Row:
    """A one-thread run of the generated trace in MB/s, against ONE_THREAD_TARGET."""
    note = f"{run.seconds:.2f} s for {size / 1e6:,.0f} MB" + (f"; {remark}" if remark else "")
    return target_row(
        name,
        size / run.seconds / 1e6,
        "MB/s",
        ratio=None,
        op=">=",
        threshold=ONE_THREAD_TARGET,
        ratio_unit=" MB/s",
        note=note,
    )


def same_figures(first: Path, second: Path) -> bool:
    """Whether two JSON reports hold the same figures, their own timings aside."""

    def figures(report: Path) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(report.read_text())
        data.pop("timing", None)
        return data

    return figures(first) == figures(second)


def bench_pgo(
    stepscope: Path,
    pgo: Path | None,
    plain: Path,
    size_label: str,
    args: argparse.Namespace,
    rows: list[Row],
) -> None:
    """The one-thread row again with the profile-guided build (tools/build_pgo.py), its runs
    alternated with the default build's, and whether both builds' figures agree."""
    name = f"{size_label} .json, 1 thread, PGO build"
    if pgo is None:
        why = "no PGO build (python3 tools/build_pgo.py makes build/pgo/stepscope)"
        rows.append(skipped_row(name, why, ">=", ONE_THREAD_TARGET))
        return
    size = plain.stat().st_size
    reports = (args.workdir / "default_build.json", args.workdir / "pgo_build.json")
    defaults, optimised = run_pairs(
        lambda: run_once(analyze(stepscope, plain, threads=1), reports[0]),
        lambda: run_once(analyze(pgo, plain, threads=1), reports[1]),
        args.repeat,
    )
    default, fast = median_run(defaults), median_run(optimised)
    agree = same_figures(*reports)
    same = "the same figures as the default build" if agree else "FIGURES DIFFER"
    rows.append(one_thread_row(name, size, fast, same))
    rows.append(
        target_row(
            f"{size_label} .json, 1 thread, PGO build vs default build",
            fast.seconds,
            "s",
            ratio=default.seconds / fast.seconds,
            baseline_name="default build",
            baseline_value=default.seconds,
            note="no target: " + spread_note("default / PGO", defaults, optimised, judged=False),
        )
    )
    if not agree:  # a wrong answer, unlike a slow one, fails the run
        raise CommandFailed(f"the PGO build's figures differ from the default build's: {reports}")


def pairwise_median(firsts: Sequence[Run], seconds: Sequence[Run]) -> float:
    """The median over pairs of first / second: a drift of the machine between pairs moves it
    less than it moves either side's median."""
    return statistics.median(a.seconds / b.seconds for a, b in zip(firsts, seconds, strict=True))


def bench_pgo_control(
    stepscope: Path,
    pgo: Path | None,
    control: Path,
    label: str,
    args: argparse.Namespace,
    rows: list[Row],
) -> None:
    """The PGO build against the default build on control, in many short pairs (six times the
    control runs): a run of the 1 GiB trace varies by a quarter from one to the next here, more
    than the builds differ, while pairs of short runs, each pair's order swapped after the last,
    see the same moment of the machine."""
    name = f"analyze {label}, 1 thread, PGO build vs default build"
    if pgo is None:
        rows.append(skipped_row(name, "no PGO build (python3 tools/build_pgo.py)"))
        return
    plain: list[Run] = []
    guided: list[Run] = []
    for index in range(6 * small_repeat(args)):
        sides = [(plain, stepscope), (guided, pgo)]
        for runs, binary in sides if index % 2 == 0 else reversed(sides):
            runs.append(run_once(analyze(binary, control, threads=1)))
    faster = sum(a.seconds > b.seconds for a, b in zip(plain, guided, strict=True))
    rows.append(
        target_row(
            name,
            median_run(guided).seconds,
            "s",
            ratio=pairwise_median(plain, guided),
            baseline_name="default build",
            baseline_value=median_run(plain).seconds,
            note=f"no target: the ratio is the median over {len(plain)} pairs of default / PGO; "
            f"the PGO build was faster in {faster}",
        )
    )


def bench_large(
    stepscope: Path,
    pgo: Path | None,
    source: Path,
    args: argparse.Namespace,
    rows: list[Row],
) -> None:
    plain = ensure_large_trace(args.workdir, args.size_mb, source, gz=False)
    compressed = ensure_large_trace(args.workdir, args.size_mb, source, gz=True)
    size = plain.stat().st_size
    # The generator rounds up to whole copies of the source: the label is the real size.
    size_label = f"{size / 2**20:,.0f} MiB"
    report = args.workdir / "large_report.json"
    ones, twos = run_pairs(
        lambda: run_once(analyze(stepscope, plain, threads=1), report),
        lambda: run_once(analyze(stepscope, plain, threads=2)),
        args.repeat,
    )
    one, two = median_run(ones), median_run(twos)
    figures = import_figures(report)
    rows.append(one_thread_row(f"{size_label} .json, 1 thread, end to end", size, one))
    bench_pgo(stepscope, pgo, plain, size_label, args, rows)
    rows.append(
        target_row(
            f"{size_label} .json, 2 threads vs 1",
            two.seconds,
            "s",
            ratio=one.seconds / two.seconds,
            op=">=",
            threshold=1.8,
            baseline_name="1 thread",
            baseline_value=one.seconds,
            note=spread_note("1 thread / 2 threads", ones, twos),
        )
    )
    bench_ceiling(stepscope, plain, size_label, args, rows)
    bench_memory_bandwidth(args, rows)
    ours_gz, gunzip = run_median_pair(
        analyze(stepscope, compressed), ["gzip", "-dc", str(compressed)], args.repeat
    )
    rows.append(gzip_row(f"{size_label} .json.gz", ours_gz, gunzip))
    events = int(figures["events"])
    rss_size = args.rss_size_mb or args.size_mb
    if rss_size == args.size_mb:
        how = "the larger of 1 and 2 threads"
        rss_trace, rss_run, rss_events = (
            plain,
            Run(0, max(one.peak_rss_bytes, two.peak_rss_bytes)),
            events,
        )
    else:
        how = "threads by size, one run"
        rss_trace = ensure_large_trace(args.workdir, rss_size, source, gz=False)
        rss_report = args.workdir / "rss_report.json"
        rss_run = run_once(analyze(stepscope, rss_trace), rss_report)
        rss_events = int(import_figures(rss_report)["events"])
    rss_bytes = rss_trace.stat().st_size
    rows.append(
        target_row(
            f"peak RSS, {rss_trace.stat().st_size / 2**20:,.0f} MiB .json (target: a 4 GB trace)",
            rss_run.peak_rss_bytes / 2**20,
            "MiB",
            ratio=rss_run.peak_rss_bytes / rss_bytes,
            op="<=",
            threshold=0.5,
            ratio_unit="x file",
            baseline_name="file",
            baseline_value=rss_bytes / 2**20,
            note=f"{how}; {rss_run.peak_rss_bytes / rss_events:.0f} B peak RSS per event",
        )
    )
    rows.append(
        target_row(
            f"bytes per event in memory, {size_label} .json",
            float(figures["bytes_in_memory_per_event"]),
            "B",
            ratio=None,
            note=f"{events:,} events; about 122 B when the targets were set",
        )
    )
    if not args.hta_large or args.skip_hta or not hta_available():
        why = "--hta-large not given (HTA takes minutes)" if not args.hta_large else "no HTA"
        rows.append(skipped_row(f"{size_label} .json.gz vs HTA", why, ">=", HTA_LARGE_TARGET))
        return
    peer = run_once(hta_command(compressed, args.workdir / "hta_large.json"))
    label = f"{size_label} .json.gz"
    rows += hta_rows(label, label, ours_gz, peer, HTA_LARGE_TARGET)


def bench_instructions(
    stepscope: Path, control: Path, label: str, args: argparse.Namespace, rows: list[Row]
) -> None:
    name = f"instructions, analyze {label}, 1 thread"
    if args.skip_instructions:
        rows.append(skipped_row(name, "--skip-instructions"))
        return
    count, how = instruction_count(analyze(stepscope, control, threads=1), args.workdir)
    if count is None:
        rows.append(skipped_row(name, how))
        return
    rows.append(target_row(name, count / 1e6, "M", ratio=None, note=f"{how}; a regression shows"))
    # Per byte of decompressed JSON and per event, from the control run's own import figures,
    # so that traces of different sizes compare.
    figures = import_figures(args.workdir / "control_report.json")
    per = instructions_per_unit(count, int(figures["input_bytes"]), int(figures["events"]))
    rows.append(target_row(f"{name}, per input byte", per[0], "instr/B", ratio=None, note=how))
    rows.append(target_row(f"{name}, per event", per[1], "instr/event", ratio=None, note=how))


# ---------------------------------------------------------------------------- main


def python_html_timings(trace: Path, repeat: int) -> tuple[float, float]:
    """Median seconds of `stepscope.analyze(trace)` and of `to_html()` on its report, in this
    process (the package's compiled core), so that no process start-up is counted."""
    import stepscope

    analyses: list[float] = []
    renders: list[float] = []
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        report = stepscope.analyze(trace, threads=0)
        analysed = time.perf_counter()
        report.to_html()
        analyses.append(analysed - start)
        renders.append(time.perf_counter() - analysed)
    return statistics.median(analyses), statistics.median(renders)


def python_html_row(name: str, trace: Path, repeat: int) -> Row:
    analyze_s, html_s = python_html_timings(trace, repeat)
    print(
        f"python {name}: analyze {analyze_s:.3f} s, to_html {html_s:.3f} s, "
        f"ratio {html_s / analyze_s:.3f} (target <= 0.2)",
        flush=True,
    )
    return target_row(
        f"Python to_html vs analyze, {name}",
        html_s,
        "s",
        ratio=html_s / analyze_s,
        op="<=",
        threshold=0.2,
        baseline_name="analyze",
        baseline_value=analyze_s,
    )


def bench_python_html(control: Path, label: str, args: argparse.Namespace, rows: list[Row]) -> None:
    name = "Python to_html vs analyze"
    try:
        import stepscope  # noqa: F401
    except ImportError as error:
        rows.append(
            skipped_row(name, f"the stepscope package is not importable: {error}", "<=", 0.2)
        )
        return
    rows.append(python_html_row(label, control, small_repeat(args)))
    plain = ensure_large_trace(args.workdir, args.size_mb, control, gz=False)
    size_label = f"{plain.stat().st_size / 2**20:,.0f} MiB .json"
    rows.append(python_html_row(size_label, plain, args.repeat))


def git_commit() -> str:
    def git(*argv: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(REPO), *argv], capture_output=True, text=True, check=False
        )
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short=12", "HEAD") or "unknown"
    return commit + (" (with local changes)" if git("status", "--porcelain", "-uno") else "")


def write_text_atomically(path: Path, text: str) -> None:
    """A temp file next to `path`, then a rename: a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_json(path: Path, document: dict[str, Any]) -> None:
    write_text_atomically(path, json.dumps(document, indent=2) + "\n")


def write_readme(path: Path, block: str) -> None:
    """Puts `block` between the README's markers (ValueError when they are not there)."""
    write_text_atomically(path, splice_readme(path.read_text(encoding="utf-8"), block))


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stepscope", help="the stepscope binary (default: build/, installed)")
    parser.add_argument(
        "--pgo-stepscope",
        help="a profile-guided build, timed beside the default one (default: build/pgo)",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path("/tmp/stepscope-bench"),
        help="generated traces (kept and reused) and reports",
    )
    parser.add_argument("--size-mb", type=int, default=1024, help="generated trace, MiB")
    parser.add_argument(
        "--rss-size-mb",
        type=int,
        default=0,
        help="trace for the peak-RSS row, MiB (default: --size-mb; the target: 4096)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (median)")
    parser.add_argument(
        "--hta-large", action="store_true", help="also run HTA on the generated .json.gz (minutes)"
    )
    parser.add_argument("--skip-hta", action="store_true", help="no HTA at all")
    parser.add_argument(
        "--skip-instructions",
        action="store_true",
        help="no instruction count (callgrind takes a while)",
    )
    parser.add_argument("--json", type=Path, help="also write the header and rows as JSON here")
    parser.add_argument(
        "--control",
        type=Path,
        default=CONTROL,
        help="trace_diff/control (default: in ../shared/traces)",
    )
    parser.add_argument(
        "--ci", action="store_true", help="small: a 100 MiB trace, one run per timing, no HTA on it"
    )
    parser.add_argument(
        "--write-readme",
        nargs="?",
        type=Path,
        const=README,
        metavar="README",
        help=f"put the header and table between the {TABLE_START} and {TABLE_END} lines of "
        "README (default: the repository's README.md); a full run only",
    )
    args = parser.parse_args(argv)
    if args.ci and args.write_readme:
        parser.error("--write-readme records a full run, not --ci")
    if args.ci:
        args.size_mb = 100 if args.size_mb == 1024 else args.size_mb
        args.repeat = 1
        args.hta_large = False
    return args


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    if args.write_readme:
        try:  # before an hour of runs, not after
            splice_readme(args.write_readme.read_text(encoding="utf-8"), "")
        except (OSError, ValueError) as error:
            print(f"--write-readme {args.write_readme}: {error}", file=sys.stderr)
            return 2
    notes: list[str] = []
    control = args.control
    if not control.exists():
        notes.append(f"{control} absent: {FALLBACK_CONTROL.relative_to(REPO)} stands in for it")
        control = FALLBACK_CONTROL
    label = "control" if control == CONTROL else control.name.split(".")[0]
    stepscope = find_stepscope(args.stepscope)
    pgo = find_pgo_build(args.pgo_stepscope)
    args.workdir.mkdir(parents=True, exist_ok=True)
    version = subprocess.run(
        [str(stepscope), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    machine = describe_machine(
        read_text("/proc/cpuinfo"),
        read_text("/proc/meminfo"),
        stepscope_version=version,
        stepscope_path=str(stepscope),
        pgo_path=str(pgo) if pgo else "none",
        commit=git_commit(),
        now=datetime.datetime.now(datetime.timezone.utc),
        load=load_average(),
    )
    mode = "--ci (small)" if args.ci else "full"
    machine["run"] = (
        f"{mode}: generated trace {args.size_mb} MiB from {control.name}, "
        f"median of {args.repeat} ({small_repeat(args)} on control), workdir {args.workdir}"
    )
    for line in format_header(machine):
        print(line)
    for note in notes:
        print(f"note: {note}")
    sys.stdout.flush()
    rows: list[Row] = []
    try:
        control_run = bench_control(stepscope, control, label, args, rows)
        bench_floor(stepscope, control_run, label, args, rows)
        bench_pgo_control(stepscope, pgo, control, label, args, rows)
        bench_large(stepscope, pgo, control, args, rows)
        bench_instructions(stepscope, control, label, args, rows)
        bench_distinct_names(stepscope, args, rows)
        bench_python_html(control, label, args, rows)
    except (CommandFailed, subprocess.CalledProcessError) as failure:
        print("\n".join(format_rows(rows)))
        print(f"benchmark command failed: {failure}", file=sys.stderr)
        return 1
    print()
    print("\n".join(format_rows(rows)))
    end_load = format_load(load_average())
    print(f"\nload average at end: {end_load}")
    machine["load average at end"] = end_load
    if args.write_readme:
        write_readme(args.write_readme, readme_block(machine, command_line(argv), rows, notes))
        print(f"wrote the table into {args.write_readme}")
    if args.json:
        write_json(
            args.json, {"machine": machine, "notes": notes, "rows": [asdict(row) for row in rows]}
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
