"""loader_vs_compute: per step, time waiting for the next batch against time computing."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from ._results import Conditions, ResultMixin, Stats, rows_to_pandas
from ._timing import now_ns, resolve_device, synchronize

if TYPE_CHECKING:
    import pandas

# The same threshold as the trace rule `input-bound` (docs/rules.md): below 5 % of the step the
# input pipeline does not limit training.
INPUT_BOUND_SHARE = 0.05
# From a fifth of the step on, the loader is the main thing to fix.
MOSTLY_INPUT_BOUND_SHARE = 0.20

LOADER_FIX = (
    "DataLoader(..., num_workers=<CPU cores per GPU>, pin_memory=True, persistent_workers=True, "
    "prefetch_factor=2 to 4), batch.to(device, non_blocking=True); if the workers are saturated, "
    "cache preprocessed samples or move decoding and augmentation to the GPU"
)


@dataclass(frozen=True)
class StepTiming:
    step: int
    wait_ms: float  # in next(iterator): waiting for the batch
    compute_ms: float  # in train_step(batch), device synchronised
    warmup: bool  # excluded from the statistics and the verdict


@dataclass(frozen=True)
class LoaderVsCompute(ResultMixin):
    """Waiting for input against computing, per step, and what follows."""

    steps: tuple[StepTiming, ...]
    wait: Stats
    compute: Stats
    wait_share: float  # waiting / (waiting + computing), over the measured steps
    verdict: str  # "input_bound", "partly_input_bound" or "compute_bound"
    reading: str
    conditions: Conditions

    def to_pandas(self) -> pandas.DataFrame:
        """One row per step: ``step``, ``wait_ms``, ``compute_ms``, ``warmup``."""
        return rows_to_pandas(self.steps)

    def __str__(self) -> str:
        return (
            f"waiting for data {self.wait.mean_ms:.3f} ms/step, computing "
            f"{self.compute.mean_ms:.3f} ms/step: {self.wait_share * 100:.1f} % of the step "
            f"waits for input ({self.wait.count} steps) -> {self.verdict}\n  {self.reading}"
        )


def _reading(share: float) -> tuple[str, str]:
    if share >= MOSTLY_INPUT_BOUND_SHARE:
        return "input_bound", (
            f"input-bound: {share * 100:.0f} % of each step waits for the next batch; the "
            f"device idles meanwhile. Fix the input pipeline first: {LOADER_FIX}"
        )
    if share >= INPUT_BOUND_SHARE:
        return "partly_input_bound", (
            f"partly input-bound: {share * 100:.0f} % of each step waits for the next batch; "
            f"worth fixing once compute is tuned: {LOADER_FIX}"
        )
    return "compute_bound", (
        f"the loader keeps up ({share * 100:.1f} % of the step waiting): look at compute "
        "(precision, torch.compile, kernel efficiency), not at input"
    )


def loader_vs_compute(
    loader: Iterable[Any],
    train_step: Callable[[Any], Any],
    *,
    steps: int = 50,
    warmup: int = 1,
    device: torch.device | str | None = None,
) -> LoaderVsCompute:
    """Run `train_step(batch)` over the first `steps` batches of `loader`, timing apart the wait for
    each batch (``next()`` on the iterator) and the step (with the device synchronised after it,
    so queued GPU work counts as compute, not as the next wait).

    The first `warmup` of the `steps` (worker start-up, first-call costs) are kept in ``steps``
    but left out of the statistics and the verdict. The verdict uses the share of the step spent
    waiting: >= 20 % input-bound, >= 5 % partly (the threshold of the trace rule ``input-bound``),
    below that compute-bound.
    """
    if warmup < 0 or steps <= warmup:
        raise ValueError("loader_vs_compute: need warmup >= 0 and steps > warmup")
    where = resolve_device(device)
    rows: list[StepTiming] = []
    iterator = iter(loader)
    synchronize(where)
    for step in range(steps):
        begin = now_ns()
        try:
            batch = next(iterator)
        except StopIteration:
            break
        ready = now_ns()
        train_step(batch)
        synchronize(where)
        done = now_ns()
        rows.append(StepTiming(step, (ready - begin) / 1e6, (done - ready) / 1e6, step < warmup))
    measured = [row for row in rows if not row.warmup]
    if not measured:
        raise ValueError(f"loader_vs_compute: the loader gave {len(rows)} batches, all warm-up")
    waiting = math.fsum(row.wait_ms for row in measured)
    computing = math.fsum(row.compute_ms for row in measured)
    share = waiting / (waiting + computing) if waiting + computing > 0 else 0.0
    verdict, reading = _reading(share)
    batch_size = getattr(loader, "batch_size", None)
    return LoaderVsCompute(
        steps=tuple(rows),
        wait=Stats.of([row.wait_ms for row in measured]),
        compute=Stats.of([row.compute_ms for row in measured]),
        wait_share=share,
        verdict=verdict,
        reading=reading,
        conditions=Conditions.capture(
            where, batch_size=batch_size if isinstance(batch_size, int) else None
        ),
    )
