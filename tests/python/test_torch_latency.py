"""stepscope.torch.latency: ordered, plausible percentiles; eval and training mode; a
generate-style callable's time to first token and per token."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

pytest.importorskip("torch")

import torch
from torch_loops import small_model

from stepscope import torch as sst


def test_percentiles_are_ordered_and_plausible() -> None:
    model = small_model(hidden=64)
    model.eval()
    example = torch.randn(8, 16)
    result = sst.latency(model, example, warmup=5, iters=60, warn=False)
    s = result.stats
    assert s.count == 60
    assert 0 < s.min_ms <= s.p50_ms <= s.p95_ms <= s.p99_ms <= s.max_ms < 100
    assert result.batch_size == 8
    assert result.requests_per_s == pytest.approx(1000 / s.mean_ms)
    assert result.samples_per_s == pytest.approx(8 * 1000 / s.mean_ms)
    assert result.grad_mode == "inference_mode"
    assert not result.model_was_training and not result.notes
    assert not result.generate and result.time_to_first_token is None
    assert result.conditions.dtype == "float32"
    assert "p99" in str(result)


def test_a_known_delay_and_no_grad() -> None:
    seen: list[bool] = []

    def model(x: torch.Tensor) -> torch.Tensor:
        seen.append(torch.is_grad_enabled())
        time.sleep(0.005)
        return x * 2

    result = sst.latency(model, torch.randn(2, 3), warmup=1, iters=10, grad_mode="no_grad")
    assert not any(seen)
    assert 5.0 <= result.stats.p50_ms < 15.0
    assert result.label == "model"


def test_says_when_the_model_is_in_training_mode() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.Dropout(0.5))
    assert model.training
    result = sst.latency(model, torch.randn(4, 16), warmup=1, iters=5, warn=False)
    assert result.model_was_training
    assert any("training mode" in note for note in result.notes)
    assert model.training and model[1].training  # put back as it was
    with pytest.warns(sst.MeasurementWarning, match="training mode"):
        kept = sst.latency(model, torch.randn(4, 16), warmup=1, iters=5, set_eval=False)
    assert any("model.eval()" in w for w in kept.warnings)


def test_generate_style_callable() -> None:
    def generate(prompt: torch.Tensor, tokens: int = 5) -> Iterator[torch.Tensor]:
        time.sleep(0.006)  # prefill
        for k in range(tokens):
            if k:
                time.sleep(0.002)  # one decoding step
            yield prompt[:, :1] + k

    result = sst.latency(generate, torch.zeros(1, 4), warmup=1, iters=6)
    assert result.generate
    assert result.time_to_first_token is not None and result.time_per_output_token is not None
    assert result.time_to_first_token.count == 6
    assert result.time_per_output_token.count == 6 * 4
    assert 6.0 <= result.time_to_first_token.p50_ms < 20.0
    assert 2.0 <= result.time_per_output_token.p50_ms < 10.0
    assert result.tokens_per_s is not None and 50 < result.tokens_per_s <= 500
    assert result.stats.min_ms >= 6.0 + 4 * 2.0
    assert all(request.tokens == 5 for request in result.requests)
    assert "first token" in str(result)


def test_a_one_dimensional_prompt_is_one_request_not_a_batch() -> None:
    def generate(prompt: torch.Tensor) -> Iterator[torch.Tensor]:
        for k in range(3):
            yield prompt[:1] + k

    result = sst.latency(generate, torch.arange(16), warmup=1, iters=3, warn=False)
    assert result.generate
    assert result.batch_size == 1
    assert any("1-D" in note for note in result.notes)
    given = sst.latency(generate, torch.arange(16), warmup=1, iters=3, batch_size=16, warn=False)
    assert given.batch_size == 16  # a batch size given is kept


def test_each_warning_is_shown_once() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.Dropout(0.5))
    with pytest.warns(sst.MeasurementWarning, match="training mode"):
        issued = sst.latency(model, torch.randn(4, 16), warmup=1, iters=5, set_eval=False)
    assert "training mode" not in str(issued)  # already shown as a Python warning
    assert "issued as MeasurementWarning" in str(issued)
    kept = sst.latency(model, torch.randn(4, 16), warmup=1, iters=5, set_eval=False, warn=False)
    assert "warning: " in str(kept) and "training mode" in str(kept)
