"""stepscope.torch.benchmark against an independent measurement of a known sleep, and the
statistics against the standard library."""

from __future__ import annotations

import math
import statistics
import time

import pytest

pytest.importorskip("torch")

import torch

from stepscope import torch as sst
from stepscope.torch._results import percentile, t_quantile_975

SLEEP_MS = 20.0


def test_statistics_agree_with_an_independent_measurement_of_a_sleep() -> None:
    independent: list[float] = []

    def nap() -> None:
        time.sleep(SLEEP_MS / 1000)

    # The independent measurement: the same calls, timed around each by the test itself.
    for _ in range(8):
        begin = time.monotonic()
        nap()
        independent.append((time.monotonic() - begin) * 1000)
    result = sst.benchmark(nap, warmup=2, iters=8, device="cpu", batch_size=4, warn=False)
    s = result.stats
    assert s.count == 8 == len(result.samples_ms)
    assert s.min_ms >= SLEEP_MS  # a sleep never ends early
    assert s.min_ms <= s.p50_ms <= s.p95_ms <= s.p99_ms <= s.max_ms
    assert s.ci95_low_ms <= s.mean_ms <= s.ci95_high_ms
    # Both see the sleep plus a scheduling delay of a few milliseconds at most (medians: a
    # shared machine may delay one wake-up by more).
    assert abs(s.p50_ms - statistics.median(independent)) < 3.0
    assert s.p50_ms < SLEEP_MS + 5.0
    assert result.throughput_per_s == pytest.approx(4 * 1000 / s.mean_ms)
    c = result.conditions
    assert c.device == "cpu" and c.batch_size == 4 and c.torch_version == torch.__version__
    assert c.threads == torch.get_num_threads()
    assert result.clock == "synchronised perf_counter_ns"
    assert "mean" in str(result)
    data = result.to_dict()
    assert data["stats"]["count"] == 8 and data["conditions"]["device"] == "cpu"


def test_stats_match_the_standard_library() -> None:
    values = [5.0, 1.0, 4.0, 2.0, 3.0, 10.0, 7.0]
    s = sst.Stats.of(values)
    assert s.mean_ms == pytest.approx(statistics.fmean(values))
    assert s.std_ms == pytest.approx(statistics.stdev(values))
    assert s.p50_ms == pytest.approx(statistics.median(values))
    ordered = sorted(values)
    assert percentile(ordered, 95) == pytest.approx(
        statistics.quantiles(values, n=20, method="inclusive")[-1]
    )
    half = t_quantile_975(6) * statistics.stdev(values) / math.sqrt(7)
    assert s.ci95_high_ms - s.mean_ms == pytest.approx(half)
    # The t quantile: the table, then an expansion that meets the normal quantile.
    assert t_quantile_975(1) == pytest.approx(12.706)
    assert t_quantile_975(30) == pytest.approx(2.042)
    assert t_quantile_975(31) == pytest.approx(2.0395, abs=1e-3)
    assert t_quantile_975(120) == pytest.approx(1.9799, abs=1e-3)
    assert t_quantile_975(10**6) == pytest.approx(1.95996, abs=1e-4)
    assert sst.Stats.of([]).count == 0


def test_short_warmup_and_wide_spread_warn() -> None:
    calls = iter(range(1000))

    def cold_then_warm() -> None:
        # Slow first two calls (cold), then quick and steady.
        time.sleep(0.03 if next(calls) < 2 else 0.002)

    with pytest.warns(sst.MeasurementWarning, match="warm-up is too short"):
        result = sst.benchmark(cold_then_warm, warmup=0, iters=12, device="cpu")
    assert any("warm-up" in w for w in result.warnings)
    assert any("spread is wide" in w for w in result.warnings)  # the cold calls widen it

    calls = iter(range(1000))
    result = sst.benchmark(cold_then_warm, warmup=3, iters=12, device="cpu", warn=False)
    assert not any("warm-up" in w for w in result.warnings)


def test_a_tensor_workload() -> None:
    a = torch.randn(64, 64)
    result = sst.benchmark(
        lambda: a @ a, warmup=3, iters=20, dtype=a.dtype, label="matmul", warn=False
    )
    assert result.label == "matmul"
    assert result.conditions.dtype == "float32"
    assert 0 < result.stats.min_ms < 50
    table = pytest.importorskip("pandas")
    assert isinstance(result.to_pandas(), table.DataFrame)
    assert len(result.to_pandas()) == 20
    with pytest.raises(ValueError):
        sst.benchmark(lambda: None, iters=0)
