#!/usr/bin/env python3
"""`stepscope run`'s cost outside its recorded window: the plain command against the same command
under `stepscope run`, in one run.

The benchmark program trains a small model on the CPU with a two-worker DataLoader and times its
own steps (wall clock, after its first steps), so the start-up of Python, torch and the analysis
are left out. It runs three ways, alternated so that all three see the same machine:

* plain: `python prog.py`;
* waiting: under `stepscope run --skip` larger than the run, so the window never opens and the
  step hooks and the workers' window watchers run for every timed step (the cost before a
  window);
* after: under `stepscope run --skip 2 --steps 3`, the window closes before the timed steps
  start (the cost after a window, when the hooks are removed).

It prints each way's median milliseconds per step and its ratio to plain, with the spread of the
pairwise ratios. The exit status is non-zero only when a command fails, never because of a ratio
(the machines are shared and noisy: read the spread).

    python3 bench/run_overhead.py                       # 200 timed steps, 5 runs of each
    python3 bench/run_overhead.py --steps 60 --repeat 3  # quicker
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

# Times steps WARMUP.. of a small training loop fed by a two-worker DataLoader; prints ms/step.
PROGRAM = r"""
import sys
import time

import torch
from torch.utils.data import DataLoader, TensorDataset

warmup, timed = 10, int(sys.argv[1])
torch.manual_seed(0)
data = TensorDataset(torch.randn((warmup + timed) * 32, 256), torch.randn((warmup + timed) * 32, 1))
loader = DataLoader(data, batch_size=32, num_workers=2)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512), torch.nn.ReLU(),
    torch.nn.Linear(512, 1),
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
start = None
for step, (x, y) in enumerate(loader):
    if step == warmup:
        start = time.perf_counter()
    loss = torch.nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"MS_PER_STEP {(time.perf_counter() - start) * 1000 / timed:.6f}")
"""


def stepscope_binary(given: str) -> str:
    found = given or os.environ.get("STEPSCOPE_CLI", "") or shutil.which("stepscope") or ""
    if not found:
        raise SystemExit("no stepscope: pass --stepscope or put it on PATH")
    # The runs start in a temporary folder: a relative path would not be found from there.
    return str(Path(found).resolve()) if os.sep in found else found


def ms_per_step(command: Sequence[str], cwd: Path) -> float:
    result = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, check=False, timeout=600
    )
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}")
    for line in result.stdout.splitlines():
        if line.startswith("MS_PER_STEP "):
            return float(line.split()[1])
    raise SystemExit(f"{' '.join(command)} printed no MS_PER_STEP:\n{result.stdout}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stepscope", default="", help="the stepscope binary (default: PATH)")
    parser.add_argument("--steps", type=int, default=200, help="timed steps per run")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each way")
    args = parser.parse_args()
    stepscope = stepscope_binary(args.stepscope)

    with tempfile.TemporaryDirectory(prefix="stepscope-run-overhead-") as folder:
        work = Path(folder)
        program = work / "prog.py"
        program.write_text(PROGRAM, encoding="utf-8")
        plain = [sys.executable, str(program), str(args.steps)]

        runs = itertools.count()

        def under_run(name: str, window: list[str]) -> list[str]:
            out = work / f"{name}-{next(runs)}"  # a fresh out folder: one holding traces is refused
            return [stepscope, "run", "-q", "--out", str(out), *window, "--", *plain]

        never = ["--skip", str(args.steps + 1000), "--steps", "1"]
        ways: dict[str, Callable[[], list[str]]] = {
            "plain": lambda: plain,
            "waiting (no window)": lambda: under_run("waiting", never),
            "after the window": lambda: under_run("after", ["--skip", "2", "--steps", "3"]),
        }
        times: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(args.repeat):
            for name, command in ways.items():
                times[name].append(ms_per_step(command(), work))

    base = times["plain"]
    print(f"{args.steps} timed steps, {args.repeat} runs of each way, alternated\n")
    print("| way | ms/step (median) | ratio to plain | pairwise |")
    print("|---|---|---|---|")
    for name, values in times.items():
        pairwise = [value / plain for value, plain in zip(values, base, strict=True)]
        ratio = statistics.median(values) / statistics.median(base)
        print(
            f"| {name} | {statistics.median(values):.3f} ms | {ratio:.3f}x | "
            f"{min(pairwise):.3f}x-{max(pairwise):.3f}x |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
