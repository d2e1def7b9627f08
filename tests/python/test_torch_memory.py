"""stepscope.torch.memory_phases: the phases, the sizes of parameters, gradients, optimizer
state and activations, and the verdict."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

import torch

from stepscope import torch as sst


def mlp(width: int, hidden: int) -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Linear(width, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1)
    )


def test_adam_state_is_twice_the_weights_and_big_weights_dominate() -> None:
    model = mlp(256, 1024)
    optimizer = torch.optim.Adam(model.parameters())
    batch = (torch.randn(4, 256), torch.randn(4, 1))
    # A 16 MiB device: the ~4 MiB the step holds is well above the 10 % floor.
    result = sst.memory_phases(
        model, batch, torch.nn.functional.mse_loss, optimizer, capacity_bytes=16 * 2**20
    )
    b = result.breakdown
    weights = sum(p.numel() for p in model.parameters()) * 4
    assert result.parameters * 4 == weights == b.parameters_bytes
    assert b.gradients_bytes == weights
    assert b.optimizer_state_bytes == 2 * weights  # exp_avg and exp_avg_sq
    assert 0 < b.activations_bytes < weights
    assert result.verdict == "optimizer_state"
    assert any("less state" in advice for advice in result.advice)
    phases = [(p.step, p.phase) for p in result.phases]
    assert phases[:6] == [
        (0, "to_device"),
        (0, "forward"),
        (0, "loss"),
        (0, "backward"),
        (0, "optimizer_step"),
        (0, "zero_grad"),
    ]
    assert len(phases) == 12
    if not torch.cuda.is_available():
        assert result.phases[0].allocated_bytes is None
        assert result.phases[0].process_rss_bytes is not None
        assert any("need a GPU" in note for note in result.notes)


def test_large_batch_activations_dominate() -> None:
    model = mlp(16, 512)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    batch = (torch.randn(2048, 16), torch.randn(2048, 1))
    result = sst.memory_phases(
        model, batch, torch.nn.functional.mse_loss, optimizer, steps=1, capacity_bytes=32 * 2**20
    )
    b = result.breakdown
    # ReLU's output (2048 x 512 fp32 = 4 MiB) is saved for backward, and the first layer's input.
    assert b.activations_bytes >= 2048 * 512 * 4
    assert b.optimizer_state_bytes == 0  # plain SGD keeps no state
    assert result.verdict == "activations"
    assert any("checkpoint" in advice and "20-30 %" in advice for advice in result.advice)
    assert "activations" in str(result)
    assert result.to_dict()["breakdown"]["activations_bytes"] == b.activations_bytes
    pandas = pytest.importorskip("pandas")
    assert isinstance(result.to_pandas(), pandas.DataFrame)


def test_a_few_mib_on_a_large_machine_is_not_a_concern() -> None:
    """The same Adam MLP against the real capacity (the machine's RAM on the CPU, the GPU's
    memory on a GPU): a few MiB is far under the 10 % floor, so nothing is advised."""
    model = mlp(256, 1024)
    optimizer = torch.optim.Adam(model.parameters())
    batch = (torch.randn(4, 256), torch.randn(4, 1))
    result = sst.memory_phases(model, batch, torch.nn.functional.mse_loss, optimizer)
    assert result.capacity_bytes is not None
    assert result.breakdown.total_bytes < sst.MEMORY_CONCERN_FLOOR * result.capacity_bytes
    assert result.verdict == "not_a_concern"
    assert result.dominant == "optimizer_state"  # still reported, not acted on
    assert len(result.advice) == 1
    assert "memory is not a concern" in result.advice[0]
    assert "optimizer state" in result.advice[0]
    assert not any("less state" in advice for advice in result.advice)
    assert "verdict: not_a_concern" in str(result)


def test_estimate_for_a_billion_parameters() -> None:
    estimate = sst.estimate_training_memory(10**9)
    assert estimate.parameters_bytes == 4 * 10**9
    assert estimate.gradients_bytes == 4 * 10**9
    assert estimate.optimizer_state_bytes == 8 * 10**9
    assert estimate.total_bytes == 16 * 10**9
