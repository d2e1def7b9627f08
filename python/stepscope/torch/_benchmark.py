"""benchmark: warm-up, then timed iterations and their statistics."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from ._results import (
    Conditions,
    MeasurementWarning,
    ResultMixin,
    Stats,
    rows_to_pandas,
    timing_warnings,
    warning_lines,
)
from ._timing import resolve_device, time_calls

if TYPE_CHECKING:
    import pandas


@dataclass(frozen=True)
class Sample:
    iteration: int
    ms: float


@dataclass(frozen=True)
class BenchmarkResult(ResultMixin):
    """Timings of a callable: statistics, the raw samples, the conditions, and warnings."""

    label: str
    stats: Stats
    warmup: int
    iters: int
    samples_ms: tuple[float, ...]
    throughput_per_s: float | None  # batch_size / mean time, when the batch size is known
    clock: str
    conditions: Conditions
    warnings: tuple[str, ...]
    warnings_issued: bool = False  # also issued as MeasurementWarning (warn=True)

    def to_pandas(self) -> pandas.DataFrame:
        """One row per timed iteration: ``iteration``, ``ms``."""
        return rows_to_pandas([Sample(i, ms) for i, ms in enumerate(self.samples_ms)])

    def __str__(self) -> str:
        lines = [f"{self.label}: {self.stats}"]
        if self.throughput_per_s is not None:
            lines.append(f"  throughput {self.throughput_per_s:,.1f} samples/s")
        c = self.conditions
        lines.append(
            f"  on {c.device} ({c.device_name}), torch {c.torch_version}, {c.threads} threads, "
            f"{self.clock}"
        )
        lines += warning_lines(self.warnings, self.warnings_issued)
        return "\n".join(lines)


def benchmark(
    fn: Callable[[], Any],
    *,
    warmup: int = 10,
    iters: int = 100,
    device: torch.device | str | None = None,
    dtype: torch.dtype | str | None = None,
    batch_size: int | None = None,
    label: str | None = None,
    warn: bool = True,
) -> BenchmarkResult:
    """Time `fn()` properly: `warmup` untimed calls, then `iters` timed ones.

    On a CUDA device each call is timed with CUDA events; otherwise the device is synchronised
    and a monotonic clock (``time.perf_counter_ns``) times each call. The result has the mean,
    std, min, p50, p95, p99, max and a 95 % confidence interval of the mean, the conditions
    (device, dtype, batch size, torch version, cudnn.benchmark, threads), and warnings when the
    first timed iterations are much slower than the rest (warm-up too short) or the spread is
    too wide to compare (also issued as `MeasurementWarning` unless ``warn=False``).

    Args:
        fn: what to time, called without arguments.
        device: where `fn` runs; None picks CUDA when available. It decides the clock.
        dtype, batch_size: recorded with the result; `batch_size` also gives a throughput.
    """
    if warmup < 0 or iters < 1:
        raise ValueError("benchmark: warmup must be >= 0 and iters >= 1")
    where = resolve_device(device)
    name = label or getattr(fn, "__qualname__", None) or repr(fn)
    for _ in range(warmup):
        fn()
    samples = time_calls(fn, iters, where)
    stats = Stats.of(samples)
    notes = timing_warnings(samples, stats, name)
    if warn:
        for note in notes:
            warnings.warn(note, MeasurementWarning, stacklevel=2)
    throughput = batch_size * 1000.0 / stats.mean_ms if batch_size and stats.mean_ms > 0 else None
    return BenchmarkResult(
        label=name,
        stats=stats,
        warmup=warmup,
        iters=iters,
        samples_ms=tuple(samples),
        throughput_per_s=throughput,
        clock="CUDA events" if where.type == "cuda" else "synchronised perf_counter_ns",
        conditions=Conditions.capture(where, dtype=dtype, batch_size=batch_size),
        warnings=tuple(notes),
        warnings_issued=warn,
    )
