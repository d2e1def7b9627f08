"""stepscope.torch.lab: three runs, back to back, and the reading."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("torch")

import torch
from torch_loops import loader, small_model

from stepscope import torch as sst
from stepscope.torch._lab import _reading


@pytest.fixture
def one_thread() -> Iterator[None]:
    """One intra-op thread: on a small shared machine, OpenMP workers spinning after bf16 ops
    delay the wake-up of the sleeping loader by up to 20 ms a step (seen on 2 shared cores),
    which would measure the machine, not the loop."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.usefixtures("one_thread")
def test_input_bound_training_reads_precision_is_not_the_bottleneck() -> None:
    # 4 samples x 15 ms of sleep per batch against well under a millisecond of compute.
    result = sst.lab(
        small_model,
        loader(delay=0.015),
        torch.nn.functional.mse_loss,
        steps=5,
        warmup=1,
        # aot_eager runs the real torch.compile stack (Dynamo, AOTAutograd) without the
        # C++ code generation that takes tens of seconds on a 2-core CPU.
        compile_options={"backend": "aot_eager"},
    )
    assert [run.name for run in result.runs] == ["fp32", "bf16", "bf16+compile"]
    assert all(run.available for run in result.runs), str(result)
    for run in result.runs:
        assert run.samples_per_s is not None and 0 < run.samples_per_s < 4 / 0.060
        assert run.step is not None and run.step.count == 4
        assert run.step.min_ms >= 60.0  # the sleep
        assert run.peak_memory_bytes is not None and run.peak_memory_bytes > 0
        assert run.final_loss is not None
    assert result.runs[0].speedup_vs_fp32 == pytest.approx(1.0)
    assert result.precision_jump is not None and abs(result.precision_jump) < 0.2
    assert result.precision_is_bottleneck is False
    assert "precision is not the bottleneck" in result.reading
    assert result.kernels_already_fused is True
    # Same seed, same data: fp32 and bf16 end near the same loss.
    fp32, bf16 = result.runs[0].final_loss, result.runs[1].final_loss
    assert fp32 is not None and bf16 is not None
    assert bf16 == pytest.approx(fp32, rel=0.1, abs=0.05)
    frame = pytest.importorskip("pandas")
    table = result.to_pandas()
    assert isinstance(table, frame.DataFrame) and list(table["name"]) == [
        "fp32",
        "bf16",
        "bf16+compile",
    ]
    assert result.to_dict()["runs"][2]["name"] == "bf16+compile"


def test_compile_unavailable_is_a_row_with_the_reason() -> None:
    data = [(torch.randn(8, 16), torch.randn(8, 1)) for _ in range(3)]
    off = sst.lab(small_model, data, torch.nn.functional.mse_loss, steps=3, warmup=1, compile=False)
    run = off.run("bf16+compile")
    assert not run.available and run.reason is not None and "compile=False" in run.reason
    assert run.samples_per_s is None
    assert "unavailable" in off.reading and "unavailable" in str(off)
    # A backend that does not exist fails inside torch.compile: the row says why.
    broken = sst.lab(
        small_model,
        data,
        torch.nn.functional.mse_loss,
        steps=3,
        warmup=1,
        compile_options={"backend": "no-such-backend"},
    )
    run = broken.run("bf16+compile")
    assert not run.available and run.reason is not None and "backend" in run.reason.lower()
    assert broken.run("fp32").available and broken.run("bf16").available


def test_the_reading() -> None:
    text, precision, fused = _reading(0.05, 0.02, None)
    assert precision is False and fused is True
    assert "precision is not the bottleneck" in text and "already fused" in text
    text, precision, fused = _reading(0.8, 0.5, None)
    assert precision is True and fused is False
    assert "room in both" in text
    text, precision, fused = _reading(-0.6, 0.0, None)
    assert precision is False and "slower than fp32" in text
    text, precision, fused = _reading(0.5, None, "no compiler")
    assert precision is True and fused is None and "no compiler" in text
