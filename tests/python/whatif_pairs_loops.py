"""Before/after pairs of one small CPU training loop, for checking `stepscope whatif`.

Each pair is the same loop run twice, with one fix applied in the second run. Both runs are
recorded with torch.profiler (a Kineto JSON trace with ProfilerStep#N spans) and, separately,
timed without the profiler. Shared by bench/whatif_pairs.py (which prints the table) and
tests/python/test_whatif_pairs.py (which checks the pairs and the predictions).

The pairs:

* loader: a DataLoader whose items take about 1.1 ms each to load (a 1 ms sleep and a random
  tensor), read in the main process (num_workers=0) and then by two persistent workers that
  prefetch 2 batches each. The model's compute is about as long as loading a batch (32 items),
  so loading is 40-50 % of the step before the fix, and two workers hide it after: what is left
  of the DataLoader's __next__ is about 2 ms of receiving the batch from the worker, which
  `--loader 0` (the what-if) does not leave: the fixed step runs a few % slower than predicted
  (-4 % on average over nine runs on a 2-core VM, from -17 % to +3 %).
* item: `loss.item()` every step, then every 50 steps. On the CPU .item() waits for nothing, so
  the two sides are equal but for noise. What-if: `--no-syncs`.
* op: a stack of bias-free Linear layers with no activation between them (so that its time is
  aten::mm, ~95 % of the step) in float64 and then float32. The what-if is `--op aten::mm=Fx`,
  F (how many times faster the op is after) measured apart from the loop by timing the same
  matrix products alone in both types (`MmTimer`), never from the traces. SGD's update gets
  faster in float32 too (~1 ms a step, which the what-if does not model); with ReLUs their
  forward and backward added ~1.5 ms more.

Torch runs one intra-op thread in the main process (LoopConfig.threads): on two cores, the
DataLoader workers then have a core of their own, and a busy neighbour delays one thread instead
of stalling a team of two at every barrier.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset

Batch = tuple[torch.Tensor, torch.Tensor]

# The profiler's schedule: one step skipped, two recorded and dropped, then the kept steps.
WAIT = 1
WARMUP = 2


class ItemDataset(Dataset[Batch]):
    """Items of `rows` x `features` random values; each costs `delay` seconds of sleep to load
    (a slow disk or decoder) plus the making of its tensor."""

    def __init__(self, size: int, rows: int, features: int, delay: float) -> None:
        self.size = size
        self.rows = rows
        self.features = features
        self.delay = delay

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> Batch:
        if self.delay:
            time.sleep(self.delay)
        generator = torch.Generator().manual_seed(index)
        x = torch.randn(self.rows, self.features, generator=generator)
        return x, x.mean(1, keepdim=True)


@dataclass(frozen=True)
class LoopConfig:
    """One run of the loop: its data, its model and how it reports the loss."""

    batch_size: int = 16  # items per batch
    rows: int = 32  # rows per item: the model sees batch_size * rows rows per step
    features: int = 256
    hidden: int = 768
    delay: float = 0.0  # seconds of sleep per item loaded
    workers: int = 0  # DataLoader workers (persistent, prefetch_factor 2, when > 0)
    item_every: int = 1  # loss.item() on steps where step % item_every == 0
    dtype: torch.dtype = torch.float32
    threads: int = 1  # torch's intra-op threads in the main process
    relu: bool = True  # a ReLU after each hidden layer


def make_model(config: LoopConfig) -> torch.nn.Module:
    """An MLP of bias-free Linear layers: its forward and backward products are all aten::mm."""
    torch.manual_seed(0)
    layers: list[torch.nn.Module] = [
        torch.nn.Linear(config.features, config.hidden, bias=False),
        torch.nn.ReLU(),
        torch.nn.Linear(config.hidden, config.hidden, bias=False),
        torch.nn.ReLU(),
        torch.nn.Linear(config.hidden, 1, bias=False),
    ]
    if not config.relu:
        layers = [layer for layer in layers if not isinstance(layer, torch.nn.ReLU)]
    return torch.nn.Sequential(*layers).to(config.dtype)


def make_loader(config: LoopConfig, steps: int) -> DataLoader[Batch]:
    """A loader of exactly `steps` batches, read in order."""
    dataset = ItemDataset(steps * config.batch_size, config.rows, config.features, config.delay)
    if config.workers == 0:
        return DataLoader(dataset, batch_size=config.batch_size, num_workers=0)
    return DataLoader(
        dataset,
        batch_size=config.batch_size,
        num_workers=config.workers,
        persistent_workers=True,
        prefetch_factor=2,
    )


def flatten(batch: Batch, dtype: torch.dtype) -> Batch:
    """The batch as rows of features in the model's type (the data is float32)."""
    x, y = batch
    return x.reshape(-1, x.shape[-1]).to(dtype), y.reshape(-1, 1).to(dtype)


@contextlib.contextmanager
def intra_op_threads(count: int) -> Iterator[None]:
    """torch's intra-op thread count set to `count`, and put back after."""
    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def run_loop(
    config: LoopConfig, steps: int, after_step: Callable[[], object] | None = None
) -> list[float]:
    """Runs `steps` training steps; returns each step's wall time in seconds.

    A step's time runs from asking the DataLoader's iterator for the batch to the end of the
    optimizer step (and the loss.item() when the step has one); `after_step` (the profiler's
    step()) is called after each step, outside its time.
    """
    with intra_op_threads(config.threads):
        model = make_model(config)
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
        loader = make_loader(config, steps)
        batches: Iterator[Batch] = iter(loader)
        times: list[float] = []
        losses: list[float] = []
        for step in range(steps):
            start = time.perf_counter()
            x, y = flatten(next(batches), config.dtype)
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            if step % config.item_every == 0:
                losses.append(loss.item())
            times.append(time.perf_counter() - start)
            if after_step is not None:
                after_step()
        del batches, loader  # the persistent workers end with their loader
    return times


def record_trace(config: LoopConfig, path: Path, active: int) -> None:
    """Records WAIT + WARMUP + `active` steps under torch.profiler (CPU) into `path`."""
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU],
        schedule=torch.profiler.schedule(wait=WAIT, warmup=WARMUP, active=active, repeat=1),
        on_trace_ready=lambda profiler: profiler.export_chrome_trace(str(path)),
    ) as profiler:
        run_loop(config, WAIT + WARMUP + active, profiler.step)


def time_steps(config: LoopConfig, warmup: int, steps: int) -> list[float]:
    """Milliseconds per step of `steps` steps after `warmup` steps, without the profiler."""
    return [seconds * 1e3 for seconds in run_loop(config, warmup + steps)[warmup:]]


def trace_events(path: Path) -> list[dict[str, Any]]:
    with path.open() as file:
        trace: dict[str, Any] = json.load(file)
    events: list[dict[str, Any]] = trace["traceEvents"]
    return events


def step_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        event
        for event in events
        if event.get("ph") == "X" and str(event.get("name", "")).startswith("ProfilerStep#")
    ]


def mean_step_ms(path: Path) -> float:
    """The mean duration of the trace's ProfilerStep#N spans, in milliseconds."""
    steps = step_events(trace_events(path))
    if not steps:
        raise ValueError(f"{path} has no ProfilerStep# events")
    return statistics.fmean(float(event["dur"]) for event in steps) / 1e3


def loader_share(path: Path) -> float:
    """The part of the ProfilerStep spans spent in the DataLoader's __next__ (its
    `enumerate(DataLoader)#...` spans), 0 to 1."""
    events = trace_events(path)
    step_us = sum(float(event["dur"]) for event in step_events(events))
    loader_us = sum(
        float(event["dur"])
        for event in events
        if event.get("ph") == "X" and str(event.get("name", "")).startswith("enumerate(DataLoader)")
    )
    return loader_us / step_us if step_us else 0.0


Operands = list[tuple[torch.Tensor, torch.Tensor]]


def mm_operands(config: LoopConfig) -> Operands:
    """The operands of one training step's matrix products in `make_model(config)`: for each
    Linear layer, the forward x @ W^T, the backward dY @ W (not for the first layer, whose input
    needs no gradient) and X^T @ dY, with the shapes and strides autograd uses."""
    rows = config.batch_size * config.rows
    widths = [config.features, config.hidden, config.hidden, 1]
    generator = torch.Generator().manual_seed(1)
    operands: Operands = []
    for layer, (width_in, width_out) in enumerate(itertools.pairwise(widths)):
        x = torch.randn(rows, width_in, generator=generator, dtype=config.dtype)
        weight = torch.randn(width_out, width_in, generator=generator, dtype=config.dtype)
        grad = torch.randn(rows, width_out, generator=generator, dtype=config.dtype)
        operands.append((x, weight.t()))
        if layer > 0:
            operands.append((grad, weight))
        operands.append((x.t(), grad))
    return operands


def time_products(operands: Operands) -> float:
    """Milliseconds of torch.mm over copies of `operands` in new memory (the loop's tensors are
    new each step too; one fixed placement can be faster or slower by 10 % for good)."""
    copies = [(left.clone(), right.clone()) for left, right in operands]
    start = time.perf_counter()
    for left, right in copies:
        torch.mm(left, right)
    return (time.perf_counter() - start) * 1e3


@dataclass(frozen=True)
class OpFactor:
    """How many times faster an op ran alone after the fix than before (`factor`)."""

    op: str
    factor: float
    before_ms: float  # the op's calls of one step, before the fix (median of the repeats)
    after_ms: float
    how: str


class MmTimer:
    """Times one step's aten::mm calls alone (`mm_operands`), in `before`'s and `after`'s types,
    alternated. Sampled in bursts spread over the pair's timed runs (`sample`), so that the
    factor sees the same minutes of the machine as the loops; the factor is the ratio of the
    medians of all the samples."""

    def __init__(self, before: LoopConfig, after: LoopConfig) -> None:
        self.configs = {"before": before, "after": after}
        self.operands = {side: mm_operands(config) for side, config in self.configs.items()}
        self.times: dict[str, list[float]] = {"before": [], "after": []}
        self.bursts = 0

    def sample(self, repeats: int) -> None:
        with intra_op_threads(self.configs["before"].threads):
            for operands in self.operands.values():  # warm up both
                time_products(operands)
            for _ in range(repeats):
                for side, operands in self.operands.items():
                    self.times[side].append(time_products(operands))
        self.bursts += 1

    def factor(self) -> OpFactor:
        before_ms = statistics.median(self.times["before"])
        after_ms = statistics.median(self.times["after"])
        before, after = self.configs["before"], self.configs["after"]
        return OpFactor(
            op="aten::mm",
            factor=before_ms / after_ms,
            before_ms=before_ms,
            after_ms=after_ms,
            how=(
                f"torch.mm alone on one step's shapes ({before.batch_size * before.rows} rows, "
                f"{before.features}-{before.hidden}-{before.hidden}-1), {before.dtype} against "
                f"{after.dtype}: medians of {len(self.times['before'])} alternated runs each, "
                f"in {self.bursts} bursts between the timed runs"
            ),
        )


@dataclass(frozen=True)
class Pair:
    """One fix: the loop before and after it, and how many steps to record and to time."""

    name: str
    before: LoopConfig
    after: LoopConfig
    change: tuple[str, ...] = ()  # the what-if arguments; the op pair's is measured
    active: int = 10  # profiled steps kept in the trace
    warmup: int = 3  # each timed run: steps dropped first
    timed: int = 10  # each timed run: steps averaged


def pairs() -> list[Pair]:
    loader_before = LoopConfig(batch_size=32, hidden=640, delay=0.001)
    small = LoopConfig(batch_size=8, hidden=512)
    op_before = LoopConfig(batch_size=8, hidden=1024, dtype=torch.float64, relu=False)
    return [
        Pair(
            "loader",
            loader_before,
            replace(loader_before, workers=2),
            ("--loader", "0"),
            active=10,
            warmup=4,
            timed=10,
        ),
        Pair(
            "item",
            small,
            replace(small, item_every=50),
            ("--no-syncs",),
            active=20,
            warmup=10,
            timed=50,
        ),
        Pair(
            "op",
            op_before,
            replace(op_before, dtype=torch.float32),
            active=10,
            warmup=3,
            timed=10,
        ),
    ]


def op_change(factor: OpFactor) -> tuple[str, ...]:
    return ("--op", f"{factor.op}={factor.factor:.3f}x")
