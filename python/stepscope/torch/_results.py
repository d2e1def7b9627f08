"""Shared result types: statistics of timed samples, the conditions of a measurement, and the
``to_dict()`` / ``to_json()`` / ``to_pandas()`` every result has."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from .._output import write_file

if TYPE_CHECKING:
    import pandas


def _plain(value: Any) -> Any:
    """JSON-ready data: dataclasses as dicts, tuples as lists, NaN and infinities as None."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class ResultMixin:
    """``to_dict()`` and ``to_json()`` for the result dataclasses."""

    def to_dict(self) -> dict[str, Any]:
        """The result as plain Python data (what ``to_json`` writes)."""
        data: dict[str, Any] = _plain(self)
        return data

    def to_json(self, path: str | os.PathLike[str] | None = None, *, indent: int | None = 2) -> str:
        """The result as JSON text; with `path`, also written there atomically."""
        text = json.dumps(self.to_dict(), indent=indent, ensure_ascii=False) + "\n"
        if path is not None:
            write_file(path, text)
        return text


def warning_lines(warnings: Sequence[str], issued: bool) -> list[str]:
    """The warnings of a result as text lines; only counted when they were already issued as
    Python warnings, so that printing the result does not show each one a second time."""
    if not warnings:
        return []
    if issued:
        return [f"  {len(warnings)} warning(s) issued as MeasurementWarning (see .warnings)"]
    return [f"  warning: {w}" for w in warnings]


def rows_to_pandas(rows: Sequence[Any]) -> pandas.DataFrame:
    """A DataFrame with one row per dataclass in `rows` (nested dataclasses flattened with
    dotted column names). Needs pandas."""
    try:
        import pandas
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("to_pandas() needs pandas: pip install pandas") from error
    return pandas.json_normalize([_plain(row) for row in rows])


# Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom; above 30 the
# Cornish-Fisher expansion around the normal quantile is within 1e-4 of the exact value.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t_quantile_975(degrees: int) -> float:
    """The 97.5 % quantile of Student's t with `degrees` degrees of freedom."""
    if degrees < 1:
        return math.inf
    if degrees <= len(_T975):
        return _T975[degrees - 1]
    z = 1.959963984540054
    d = float(degrees)
    return (
        z
        + (z**3 + z) / (4 * d)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * d**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * d**3)
    )


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The `q` percentile (0..100) by linear interpolation between closest ranks (numpy's
    default, and what the C++ report uses)."""
    if not sorted_values:
        return math.nan
    position = (len(sorted_values) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    fraction = position - low
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * fraction


@dataclass(frozen=True)
class Stats(ResultMixin):
    """Statistics of timed samples, in milliseconds.

    ``std_ms`` uses n - 1; ``ci95_*`` is the 95 % confidence interval of the mean (Student's t),
    which assumes independent samples: treat it as a lower bound on the uncertainty.
    """

    count: int
    mean_ms: float
    std_ms: float
    min_ms: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    ci95_low_ms: float
    ci95_high_ms: float

    @classmethod
    def of(cls, samples_ms: Sequence[float]) -> Stats:
        values = sorted(float(v) for v in samples_ms)
        n = len(values)
        if n == 0:
            nan = math.nan
            return cls(0, nan, nan, nan, nan, nan, nan, nan, nan, nan)
        mean = math.fsum(values) / n
        std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
        half = t_quantile_975(n - 1) * std / math.sqrt(n) if n > 1 else math.inf
        return cls(
            count=n,
            mean_ms=mean,
            std_ms=std,
            min_ms=values[0],
            p50_ms=percentile(values, 50),
            p95_ms=percentile(values, 95),
            p99_ms=percentile(values, 99),
            max_ms=values[-1],
            ci95_low_ms=mean - half,
            ci95_high_ms=mean + half,
        )

    @property
    def cv(self) -> float:
        """Coefficient of variation: std / mean."""
        return self.std_ms / self.mean_ms if self.mean_ms > 0 else math.nan

    @property
    def ci95_half_width_share(self) -> float:
        """Half the confidence interval as a share of the mean: the smallest relative
        difference two such measurements can tell apart."""
        if not self.mean_ms > 0:
            return math.nan
        return (self.ci95_high_ms - self.ci95_low_ms) / 2 / self.mean_ms

    def __str__(self) -> str:
        return (
            f"mean {self.mean_ms:.3f} ms ± {self.ci95_high_ms - self.mean_ms:.3f} (95 % CI), "
            f"std {self.std_ms:.3f}, min {self.min_ms:.3f}, p50 {self.p50_ms:.3f}, "
            f"p95 {self.p95_ms:.3f}, p99 {self.p99_ms:.3f}, max {self.max_ms:.3f} "
            f"(n={self.count})"
        )


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as stream:
            for line in stream:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@dataclass(frozen=True)
class Conditions(ResultMixin):
    """What a figure was measured under, recorded with it so that two figures are compared only
    when their conditions match."""

    device: str
    device_name: str
    dtype: str | None
    batch_size: int | None
    torch_version: str
    cuda_version: str | None
    cudnn_benchmark: bool
    deterministic: bool
    threads: int
    python_version: str
    platform: str

    @classmethod
    def capture(
        cls,
        device: torch.device,
        *,
        dtype: torch.dtype | str | None = None,
        batch_size: int | None = None,
    ) -> Conditions:
        name = torch.cuda.get_device_name(device) if device.type == "cuda" else _cpu_name()
        return cls(
            device=str(device),
            device_name=name,
            dtype=None if dtype is None else str(dtype).removeprefix("torch."),
            batch_size=batch_size,
            torch_version=str(torch.__version__),
            cuda_version=torch.version.cuda,
            cudnn_benchmark=bool(torch.backends.cudnn.benchmark),
            deterministic=torch.are_deterministic_algorithms_enabled(),
            threads=torch.get_num_threads(),
            python_version=platform.python_version(),
            platform=platform.platform(terse=True),
        )


class MeasurementWarning(UserWarning):
    """A measurement that should not be trusted as it is: warm-up too short, spread too wide,
    a model in training mode."""


# A first iteration this many times slower than the median of the rest means warm-up was short.
SLOW_START_RATIO = 1.5
# ... and by at least this much: below it, timer resolution and noise dominate.
SLOW_START_MIN_MS = 0.05
# Above this coefficient of variation two measurements are hard to compare.
WIDE_SPREAD_CV = 0.10


def timing_warnings(samples_ms: Sequence[float], stats: Stats, what: str) -> list[str]:
    """The warnings a series of timings deserves: slow first iterations, a wide spread."""
    out: list[str] = []
    n = len(samples_ms)
    if n >= 4:
        head = max(1, min(5, n // 10))
        rest = sorted(samples_ms[head:])
        rest_median = percentile(rest, 50)
        slowest_head = max(samples_ms[:head])
        if (
            rest_median > 0
            and slowest_head > SLOW_START_RATIO * rest_median
            and slowest_head - rest_median > SLOW_START_MIN_MS
        ):
            out.append(
                f"{what}: the first timed iterations are {slowest_head / rest_median:.1f}x slower "
                f"than the median of the rest ({slowest_head:.3f} ms against "
                f"{rest_median:.3f} ms): the warm-up is too short (caches, autotuning, lazy "
                "initialisation still running); raise warmup"
            )
    if n >= 2 and stats.cv > WIDE_SPREAD_CV:
        out.append(
            f"{what}: the spread is wide (std {stats.cv * 100:.0f} % of the mean, 95 % CI of the "
            f"mean ± {stats.ci95_half_width_share * 100:.1f} %): differences smaller than that "
            "cannot be told apart; run more iterations on a quieter machine"
        )
    return out
