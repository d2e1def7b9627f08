"""stepscope.torch.memory_plan on the CPU: the plan measured at batches 8 and 16 with AdamW
predicts the peak of batch 48, of SGD in place of AdamW and of the gradient-accumulation
micro-batch, each checked against a measured run of that configuration in a fresh process (CPU
tensor memory from the profiler's [memory] records); its checkpointing cost is checked against
a measured checkpointed run; and `stepscope plan` on the saved measurement prints the same
table as Python."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")

import torch

from stepscope import torch as sst

HERE = Path(__file__).parent
TOLERANCE = 0.15  # of the measured peak
# Of the measured recompute time. Wall time on a shared CPU is noisy (other processes, caches):
# this checks that the estimate has the right order of magnitude, not that it is precise.
RECOMPUTE_TOLERANCE = 0.50


def run(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(HERE / "memory_plan_model.py"), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def cli() -> str:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    if not command:
        pytest.skip("no stepscope command: set STEPSCOPE_CLI or pip install .")
    return command


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc")
def test_batch_scaling_optimizer_choice_and_accumulation_match_measured_runs(
    tmp_path: Path,
) -> None:
    plan = run("plan", str(tmp_path / "measurement.json"))
    assert plan["batches"] == [8, 16]
    assert any("measured on the CPU" in note for note in plan["notes"])
    measured_48 = run("measure", "AdamW", "48")["peak"]
    measured_sgd = run("measure", "SGD", "16")["peak"]
    peak_16 = plan["peak_16"]  # the measured setting's step peak
    for predicted, measured in ((plan["batch_48"], measured_48), (plan["sgd_16"], measured_sgd)):
        assert abs(predicted - measured) <= TOLERANCE * measured, (predicted, measured)
        # The prediction is closer than "no change from the measured setting" would be: a plan
        # that ignored the batch or the optimizer would fail here.
        assert abs(predicted - measured) < abs(measured - peak_16), (
            predicted,
            measured,
            peak_16,
        )
    # Gradient accumulation on a device where ~20 samples fit: 64 samples in micro-batches of
    # the largest that fits, and the micro-batch's measured peak as predicted.
    micro = plan["micro_batch"]
    assert micro == 20
    assert plan["accumulation_steps"] == 4  # ceil(64 / 20)
    measured_micro = run("measure", "AdamW", str(micro))["peak"]
    assert abs(plan["micro_peak"] - measured_micro) <= TOLERANCE * measured_micro, (
        plan["micro_peak"],
        measured_micro,
    )


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc")
def test_cli_plans_the_saved_measurement_like_python(tmp_path: Path) -> None:
    saved = tmp_path / "measurement.json"
    plan = run("plan", str(saved))
    document = json.loads(saved.read_text())
    assert document["schema"] == "stepscope.plan_measurement"
    assert document["timing_b"]["forward_ms"] > 0
    done = subprocess.run(
        [cli(), "plan", str(saved)], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.rstrip() == plan["text"]
    # Options change the table the same way in both front ends.
    done = subprocess.run(
        [cli(), "plan", str(saved), "--shards", "8", "--batch", "100", "--json", "-"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    from_cli = json.loads(done.stdout)
    from_python = sst.plan_from_measurement(saved.read_text(), shards=8, effective_batch=100)
    assert from_cli == json.loads(from_python.json)
    assert any(row["technique"].startswith("ZeRO-3") for row in from_cli["rows"])
    assert from_cli["options"]["effective_batch"] == 100


def test_a_broken_measurement_is_refused_with_its_offset(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    text = '{"schema": "stepscope.plan_measurement", "schema_version": "1"}'
    broken.write_text(text)
    done = subprocess.run(
        [cli(), "plan", str(broken)], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 2
    assert str(broken) in done.stderr
    assert "schema_version must be an integer" in done.stderr
    offset = text.index('"1"')  # the culprit
    assert f"at byte {offset}:" in done.stderr, done.stderr


def test_the_recompute_cost_has_the_measured_order_of_magnitude() -> None:
    result = run("recompute")
    predicted, measured = result["predicted_ms"], result["measured_ms"]
    assert measured > 0, result
    assert abs(predicted - measured) <= RECOMPUTE_TOLERANCE * measured, result


def test_the_plan_lists_each_technique_as_an_estimate() -> None:
    model = torch.nn.Sequential(*(torch.nn.Linear(64, 64) for _ in range(4)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    batch = (torch.randn(8, 64), torch.randn(8, 64))
    plan = sst.memory_plan(
        model, batch, torch.nn.functional.mse_loss, optimizer, shards=4, capacity_bytes=2**34
    )
    techniques = [row.technique for row in plan.rows]
    assert techniques[0] == "current (SGD momentum)"
    assert "optimizer SGD momentum" not in techniques
    assert "checkpoint every block (4)" in techniques
    assert "ZeRO-3 / FSDP over 4 GPUs" in techniques
    assert "estimated" in str(plan)
    # Every row has a step cost or says why not, with the figures it rests on.
    for row in plan.rows:
        assert row.cost_basis, row.technique
        assert row.step_cost_ms is not None or "not estimated" in row.cost_basis
    assert plan.row("current").step_cost_ms == 0
    recompute_ms = plan.row("checkpoint every block").step_cost_ms
    assert recompute_ms is not None and recompute_ms > 0
    assert "measured at batch 8" in plan.row("checkpoint every block").cost_basis
    assert plan.row("bf16 autocast").step_cost_ms is None  # not estimated on the CPU
    assert "at 100 GB/s" in plan.row("ZeRO-3").cost_basis
    assert plan.times[1].forward_ms > 0
    assert plan.optimizer_state_bytes == plan.parameter_bytes  # one momentum buffer
    zero3 = plan.row("ZeRO-3")
    assert zero3.fixed_bytes < plan.rows[0].fixed_bytes


def test_a_batch_of_one_is_refused() -> None:
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="at least 2"):
        sst.memory_plan(
            model, (torch.randn(1, 4), torch.randn(1, 1)), torch.nn.functional.mse_loss, optimizer
        )
