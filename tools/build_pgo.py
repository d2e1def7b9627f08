#!/usr/bin/env python3
"""Build the stepscope command with profile-guided optimisation (GCC 11 or newer).

Three steps, each printed as it starts:

1. an instrumented build (``-DSTEPSCOPE_PGO=generate``) into ``<build>-generate``;
2. training: that binary analyses traces made here: the bundled example's generator
   (``examples/make_example_trace.py``, its three bottlenecks, each replicated to about
   ``--train-mb`` MiB by ``bench/gen_large_trace.py``, as ``.json`` and one as ``.json.gz``) and,
   when torch is importable, a small CPU training loop profiled with ``torch.profiler``. Each is
   analysed on one thread and on two, writing the terminal report, the JSON and the HTML report,
   as users run it. No trace from outside the repository is needed, and none of the benchmark's;
3. the optimised build (``-DSTEPSCOPE_PGO=use``) into ``<build>``, by default ``build/pgo``.

The profiles are written to ``<build>-profiles``, emptied first, so that a rerun after the
sources change trains afresh. The benchmark (``bench/run_benchmarks.py``) times
``build/pgo/stepscope`` beside the default build when it is there.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO

REPO = Path(__file__).resolve().parent.parent
BOTTLENECKS = ("input", "launch", "healthy")


def run(
    command: Sequence[str | Path], quiet: bool = False, stdout: IO[bytes] | None = None
) -> None:
    """Runs a command, its output shown unless `quiet` or sent to `stdout`; a failure ends the
    script."""
    printable = " ".join(str(part) for part in command)
    result = subprocess.run(
        [str(part) for part in command],
        stdout=stdout if stdout else (subprocess.DEVNULL if quiet else None),
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"build_pgo: exit {result.returncode}: {printable}")


def configure_and_build(build: Path, mode: str, profiles: Path, jobs: int) -> Path:
    run(
        [
            "cmake",
            "-S",
            REPO,
            "-B",
            build,
            "-G",
            "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            "-DSTEPSCOPE_BUILD_TESTS=OFF",
            "-DSTEPSCOPE_BUILD_CLI=ON",
            f"-DSTEPSCOPE_PGO={mode}",
            # Profiles change what GCC inlines, and with it which of its flow-based warnings
            # (maybe-uninitialized, stringop-overflow) it emits; the developer build checks
            # these sources with warnings as errors, as CI does.
            "-DSTEPSCOPE_WERROR=OFF",
            f"-DSTEPSCOPE_PGO_DIR={profiles}",
        ],
        quiet=True,
    )
    # The profiles are no dependency the build tool knows of: after training, everything is
    # compiled again.
    clean = ["--clean-first"] if mode == "use" else []
    run(["cmake", "--build", build, "-j", str(jobs), *clean])
    return build / "stepscope"


def replicate(source: Path) -> list[str | Path]:
    """The generator of the benchmark's large traces, copying `source`."""
    return [sys.executable, REPO / "bench" / "gen_large_trace.py", "--source", source]


# A small training loop on the CPU, profiled as users profile theirs: the profiler's own layout
# of a trace (events over several indented lines), shapes, memory events and Python stacks.
RECORD_CPU_TRACE = """
import sys, torch
model = torch.nn.Sequential(*[torch.nn.Linear(64, 64), torch.nn.ReLU()] * 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
activities = [torch.profiler.ProfilerActivity.CPU]
with torch.profiler.profile(activities=activities, record_shapes=True, profile_memory=True,
                            with_stack=True) as profiler:
    for _ in range(120):
        optimizer.zero_grad()
        model(torch.randn(32, 64)).sum().backward()
        optimizer.step()
        profiler.step()
profiler.export_chrome_trace(sys.argv[1])
"""


def record_cpu_trace(folder: Path) -> list[Path]:
    """A trace the profiler itself wrote, when torch can record one here (else none, said)."""
    trace = folder / "cpu_loop.json"
    recorded = subprocess.run(
        [sys.executable, "-c", RECORD_CPU_TRACE, str(trace)], capture_output=True, check=False
    )
    if recorded.returncode != 0 or not trace.exists():
        why = recorded.stderr.decode(errors="replace").strip().splitlines()[-1:]
        print(
            f"build_pgo: no CPU trace recorded with torch ({''.join(why)}): training on the "
            "example's traces alone",
            flush=True,
        )
        return []
    return [trace]


def make_training_traces(folder: Path, train_mb: int) -> list[Path]:
    """The bundled example's three loops, each replicated to about `train_mb` MiB, and the first
    of them gzip-compressed as well."""
    traces: list[Path] = []
    for bottleneck in BOTTLENECKS:
        one_loop = folder / f"example_{bottleneck}.json"
        run(
            [
                sys.executable,
                REPO / "examples" / "make_example_trace.py",
                "--bottleneck",
                bottleneck,
                "--steps",
                "20",
                "--out",
                one_loop,
            ],
            quiet=True,
        )
        large = folder / f"large_{bottleneck}.json"
        run([*replicate(one_loop), "--out", large, "--size-mb", str(train_mb)], quiet=True)
        traces += [one_loop, large]
    compressed = folder / f"large_{BOTTLENECKS[0]}.json.gz"
    run([*replicate(traces[0]), "--out", compressed, "--size-mb", str(train_mb)], quiet=True)
    return [*traces, compressed, *record_cpu_trace(folder)]


def train(stepscope: Path, traces: Sequence[Path], folder: Path) -> None:
    """What users run: the terminal report and the JSON on one thread and on two, and the HTML
    report. Outputs go to files in `folder`, never to /dev/null."""
    for trace in traces:
        json_out, html_out, text_out = folder / "out.json", folder / "out.html", folder / "out.txt"
        with text_out.open("wb") as text:
            for threads in ("1", "2"):
                analyze: list[str | Path] = [stepscope, "analyze", trace, "--quiet"]
                analyze += ["--threads", threads]
                run([*analyze, "--json", json_out], stdout=text)
        run([stepscope, "report", trace, "-o", html_out, "--quiet"], quiet=True)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--build", type=Path, default=REPO / "build" / "pgo", help="the optimised build's folder"
    )
    parser.add_argument("--train-mb", type=int, default=30, help="each training trace, MiB")
    parser.add_argument("--jobs", type=int, default=2, help="parallel compile jobs")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    build = args.build.resolve()
    profiles = build.with_name(build.name + "-profiles")
    instrumented = build.with_name(build.name + "-generate")
    shutil.rmtree(profiles, ignore_errors=True)
    profiles.mkdir(parents=True)
    print(f"build_pgo: 1/3 instrumented build in {instrumented}", flush=True)
    generating = configure_and_build(instrumented, "generate", profiles, args.jobs)
    with tempfile.TemporaryDirectory(prefix="stepscope-pgo-") as scratch:
        print(f"build_pgo: 2/3 training on traces made in {scratch}", flush=True)
        folder = Path(scratch)
        train(generating, make_training_traces(folder, args.train_mb), folder)
    print(f"build_pgo: 3/3 optimised build in {build}", flush=True)
    optimised = configure_and_build(build, "use", profiles, args.jobs)
    print(f"build_pgo: done: {optimised}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
