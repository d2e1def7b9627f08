"""stepscope.torch.inference_lab: every variant runs or says why not, outputs compared against
the eval fp32 reference, the batch sweep's knee, and the command line."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

import torch
from inference_models import Saturating, greedy, tiny_cnn, tiny_cnn_model, tiny_transformer

from stepscope import torch as sst
from stepscope.torch._inference_lab import VARIANTS, _autotune_skip

HERE = Path(__file__).resolve().parent
# aot_eager runs Dynamo and AOTAutograd without inductor's C++ code generation, which takes
# tens of seconds per graph on a 2-core CPU; one test below runs the default inductor.
QUICK_COMPILE = {"backend": "aot_eager"}


def test_transformer_every_variant_runs_or_says_why() -> None:
    model, example = tiny_transformer()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    threads = torch.get_num_threads()
    result = sst.inference_lab(
        model,
        example,
        device="cpu",
        threads=1,
        warmup=2,
        iters=8,
        compile_options=QUICK_COMPILE,
        max_autotune=False,
        batch_sizes=[1, 2, 4],
        p99_ms=1000.0,
        warn=False,
    )
    assert [v.name for v in result.variants] == list(VARIANTS)
    assert result.conditions.threads == 1 and torch.get_num_threads() == threads
    assert model.training  # the caller's model is left as it was
    for key, value in model.state_dict().items():
        assert torch.equal(value, before[key]), key
    for v in result.variants:
        assert v.available or v.reason, v.name
    eval_ = result.variant("eval")
    assert eval_.available and eval_.max_abs_error == 0.0 and eval_.top1_agreement == 1.0
    assert eval_.speedup_vs_eval == pytest.approx(1.0)
    assert eval_.latency is not None and eval_.latency.count == 8
    assert eval_.p50_ms is not None and eval_.p99_ms is not None
    assert 0 < eval_.p50_ms <= eval_.p99_ms
    assert eval_.throughput_per_s == pytest.approx(4 * 1000 / eval_.latency.mean_ms)
    assert eval_.peak_memory_bytes is not None
    # At least the parameters (fp32) are counted.
    parameters = sum(p.numel() * 4 for p in model.parameters())
    assert eval_.peak_memory_bytes > parameters
    # Train mode with dropout: the outputs move, and that is measured.
    train = result.variant("train-mode")
    assert train.available and train.max_rel_error is not None and train.max_rel_error > 1e-3
    # Half precision: a small, non-zero cost, measured.
    for name in ("autocast", "weights-cast"):
        v = result.variant(name)
        assert v.available, v.reason
        assert v.dtype == "bfloat16"
        assert v.max_rel_error is not None and 0 < v.max_rel_error < 0.1, name
        assert v.top1_agreement is not None and v.top1_agreement > 0.8, name
    weights = result.variant("weights-cast")
    assert weights.peak_memory_bytes is not None and eval_.peak_memory_bytes is not None
    assert weights.peak_memory_bytes < eval_.peak_memory_bytes  # half the bytes per weight
    compiled = result.variant("compile")
    assert compiled.available, compiled.reason
    assert compiled.max_rel_error is not None and compiled.max_rel_error < 1e-4
    assert compiled.first_call_ms is not None and compiled.first_call_ms > 0
    graphs = result.variant("cuda-graphs")
    assert not graphs.available and graphs.reason is not None and "CUDA" in graphs.reason
    autotune = result.variant("compile-max-autotune")
    assert not autotune.available and autotune.reason is not None
    assert "max_autotune=False" in autotune.reason
    int8 = result.variant("int8-dynamic")
    assert int8.available, int8.reason
    assert int8.dtype is not None and "int8" in int8.dtype
    assert int8.max_rel_error is not None and 0 < int8.max_rel_error < 0.2
    assert any("fast path" in note for note in int8.notes)
    assert torch.backends.mha.get_fastpath_enabled()  # put back
    assert result.sweep is not None and [p.batch_size for p in result.sweep.points] == [1, 2, 4]
    assert result.sweep.largest_within_target == 4
    assert result.recommended is not None
    assert result.reading and "Not run" in result.reading and "cuda-graphs" in result.reading
    assert "int8-dynamic" not in result.reading.split("Not run")[1]
    text = str(result)
    assert "not run:" in text and "batch sweep" in text and "CPU tensor memory" in text
    data = json.loads(result.to_json())
    assert [v["name"] for v in data["variants"]] == list(VARIANTS)
    assert data["sweep"]["points"][0]["batch_size"] == 1
    frame = pytest.importorskip("pandas")
    table = result.to_pandas()
    assert isinstance(table, frame.DataFrame) and list(table["name"]) == list(VARIANTS)
    assert table.loc[1, "latency.count"] == 8


def test_cnn_classifier_top1_and_default_compile() -> None:
    model, example = tiny_cnn()
    result = sst.inference_lab(
        model,
        example,
        device="cpu",
        warmup=1,
        iters=5,
        variants=["autocast", "compile", "int8-dynamic"],
        sweep=False,
        warn=False,
    )
    assert [v.name for v in result.variants] == ["eval", "autocast", "compile", "int8-dynamic"]
    assert result.sweep is None
    ref = result.variant("eval")
    assert ref.top1_agreement == 1.0 and ref.throughput_per_s is not None
    autocast = result.variant("autocast")
    assert autocast.available and autocast.top1_agreement is not None
    assert autocast.max_abs_error is not None and autocast.max_abs_error > 0
    # The default torch.compile (inductor): it runs here, or says why it could not.
    compiled = result.variant("compile")
    if compiled.available:
        assert compiled.max_rel_error is not None and compiled.max_rel_error < 1e-3
        assert compiled.top1_agreement == 1.0
    else:
        assert compiled.reason
    int8 = result.variant("int8-dynamic")
    assert int8.available, int8.reason
    assert int8.max_abs_error is not None and int8.max_abs_error > 0
    assert int8.top1_agreement is not None


def test_failures_are_rows_with_reasons() -> None:
    convolutions = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU())
    result = sst.inference_lab(
        convolutions,
        torch.randn(2, 3, 8, 8),
        device="cpu",
        warmup=1,
        iters=3,
        variants=["compile", "int8-dynamic"],
        compile_options={"backend": "no-such-backend"},
        sweep=False,
        warn=False,
    )
    compiled = result.variant("compile")
    assert not compiled.available and compiled.reason is not None
    assert "backend" in compiled.reason.lower()
    int8 = result.variant("int8-dynamic")
    assert not int8.available and int8.reason is not None and "Linear" in int8.reason
    assert result.variant("eval").available
    # A spent budget: the reference still runs, the rest say why not.
    spent = sst.inference_lab(
        convolutions,
        torch.randn(2, 3, 8, 8),
        device="cpu",
        warmup=1,
        iters=3,
        variants=["autocast", "weights-cast"],
        time_budget_s=0.0,
        warn=False,
    )
    assert spent.variant("eval").available
    for name in ("autocast", "weights-cast"):
        reason = spent.variant(name).reason
        assert reason is not None and "budget" in reason
    assert spent.sweep is not None and not spent.sweep.points
    assert "budget" in spent.sweep.stopped_because


def test_batch_sweep_finds_the_knee_and_the_latency_target() -> None:
    # Flat at 100 ms up to 8 items, then 12.5 ms per item: throughput doubles up to batch 8,
    # then stays; p99 meets 250 ms up to batch 16 (200 ms), not at 32 (400 ms). Sleeps, so that
    # busy neighbours on a small machine add only their scheduling delay: the knee holds while
    # that delay stays under a tenth of the 100 ms call (8 ms was seen at load average 8).
    result = sst.inference_lab(
        Saturating(fixed=0.100, per_item=0.0125),
        torch.randn(1, 4),
        device="cpu",
        warmup=1,
        iters=5,
        variants=["eval"],
        batch_sizes=[1, 2, 4, 8, 16, 32],
        p99_ms=250.0,
        warn=False,
    )
    sweep = result.sweep
    assert sweep is not None
    assert [p.batch_size for p in sweep.points] == [1, 2, 4, 8, 16, 32]
    for point in sweep.points:
        assert point.p50_ms >= max(100.0, 12.5 * point.batch_size)  # the sleep
        assert point.p50_ms <= point.p99_ms
        assert point.throughput_per_s <= point.p50_throughput_per_s * 1.5
    assert sweep.knee == 8, str(result)
    assert sweep.largest_within_target == 16, str(result)
    assert "Knee at batch 8" in result.reading
    # Flat all the way (no saturation within the sweep): throughput still rises, no knee.
    flat = sst.inference_lab(
        Saturating(fixed=0.020, per_item=0.0),
        torch.randn(1, 4),
        device="cpu",
        warmup=1,
        iters=3,
        variants=["eval"],
        batch_sizes=[1, 4, 16],
        max_latency_ms=1000.0,
        warn=False,
    )
    assert flat.sweep is not None and flat.sweep.knee is None
    assert "still rises" in flat.sweep.knee_note
    # The latency limit stops the sweep.
    stopped = sst.inference_lab(
        Saturating(fixed=0.020, per_item=0.020),
        torch.randn(1, 4),
        device="cpu",
        warmup=1,
        iters=3,
        variants=["eval"],
        batch_sizes=[1, 2, 4, 8],
        max_latency_ms=60.0,
        warn=False,
    )
    assert stopped.sweep is not None
    assert [p.batch_size for p in stopped.sweep.points] == [1, 2, 4]
    assert "over the limit" in stopped.sweep.stopped_because


def test_generator_first_token_and_tokens_per_second() -> None:
    model, prompt = tiny_transformer()
    result = sst.inference_lab(
        model,
        prompt[:1],
        generate=greedy,
        device="cpu",
        warmup=1,
        iters=4,
        variants=["autocast"],
        warn=False,
    )
    assert result.sweep is None  # not for generators
    for v in result.variants:
        assert v.available, v.reason
        assert v.time_to_first_token_ms is not None and v.time_to_first_token_ms > 0
        assert v.tokens_per_s is not None and v.tokens_per_s > 0
        assert v.p50_ms is not None and v.time_to_first_token_ms <= v.p50_ms
        assert v.token_agreement is not None and 0 <= v.token_agreement <= 1
    assert result.variant("eval").token_agreement == 1.0
    assert result.variant("eval").max_abs_error == 0.0
    assert "tokens/s" in str(result)


def test_max_autotune_only_where_the_budget_allows() -> None:
    assert _autotune_skip(True, None, 0.0) is None
    assert "max_autotune=False" in (_autotune_skip(False, 1.0, 1e6) or "")
    assert "cost is unknown" in (_autotune_skip(None, None, 1e6) or "")
    assert "budget" in (_autotune_skip(None, 20.0, 100.0) or "")
    assert _autotune_skip(None, 2.0, 100.0) is None


def test_html_escapes_every_string() -> None:
    result = sst.inference_lab(
        tiny_cnn_model(),
        torch.randn(2, 3, 8, 8),
        device="cpu",
        warmup=1,
        iters=3,
        variants=["cuda-graphs"],
        sweep=False,
        warn=False,
    )
    hostile = dataclasses.replace(result.variants[1], reason="<script>alert(1)</script>")
    page = dataclasses.replace(result, variants=(result.variants[0], hostile)).to_html()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.startswith("<!DOCTYPE html>")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    return subprocess.run(
        [sys.executable, "-m", "stepscope.lab", "inference", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_cli_writes_json_and_the_table(tmp_path: Path) -> None:
    out = tmp_path / "lab.json"
    page = tmp_path / "lab.html"
    done = _cli(
        f"{HERE / 'inference_models.py'}:cli_cnn",
        "--json",
        str(out),
        "--html",
        str(page),
        "--variants",
        "autocast,int8-dynamic",
        "--iters",
        "3",
        "--max-batch",
        "4",
        "--p99-ms",
        "1000",
        "--threads",
        "1",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert [v["name"] for v in data["variants"]] == ["eval", "autocast", "int8-dynamic"]
    assert data["warmup"] == 1  # from the dict the function returned
    assert data["conditions"]["threads"] == 1
    assert [p["batch_size"] for p in data["sweep"]["points"]] == [1, 2, 4]
    assert "autocast" in done.stdout and "batch sweep" in done.stdout
    assert page.read_text().startswith("<!DOCTYPE html>")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    # A module:function from the current directory, JSON on standard output.
    done = _cli(
        "inference_models:tiny_cnn",
        "--json",
        "-",
        "--variants",
        "eval",
        "--iters",
        "3",
        "--no-sweep",
        cwd=HERE,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["sweep"] is None
    assert "eval" in done.stderr  # the table
    # Never over something that is not a regular file.
    done = _cli("inference_models:tiny_cnn", "--json", str(tmp_path), cwd=HERE)
    assert done.returncode != 0 and "not a regular file" in done.stderr
    done = _cli("no_colon_here", cwd=HERE)
    assert done.returncode != 0 and "MODULE:FUNCTION" in done.stderr
