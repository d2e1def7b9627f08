"""The generation rules on greedy decoding loops recorded with real PyTorch on the CPU.

kv-cache-missing reads shapes only, so a CPU trace shows it: without a cache the attention's
query length grows by one per token, with a cache it is 1. per-token-sync needs a GPU: on the CPU
`.item()` blocks on nothing and leaves no GPU idle, so it must stay silent here; its firing is
covered by the C++ fixture tests (tests/unit/rule_generation_test.cpp).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

PROMPT = 4
NEW_TOKENS = 8
HEADS = 2
HEAD_DIM = 16


class TinyDecoder:
    """One attention layer and a language-model head: enough to show the attention's shapes."""

    def __init__(self, vocab: int = 50) -> None:
        width = HEADS * HEAD_DIM
        self.embed = torch.nn.Embedding(vocab, width)
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.head = torch.nn.Linear(width, vocab)

    def split(self, x: Any) -> Any:
        return x.view(1, -1, HEADS, HEAD_DIM).transpose(1, 2)

    def __call__(self, ids: Any, cache: list[Any] | None, manual: bool) -> Any:
        q, k, v = (self.split(t) for t in self.qkv(self.embed(ids)).chunk(3, dim=-1))
        if cache is not None:
            if cache:
                k = torch.cat([cache[0], k], dim=2)
                v = torch.cat([cache[1], v], dim=2)
            cache[:] = [k, v]
        causal = q.shape[2] > 1
        if manual:
            scores = q @ k.transpose(-2, -1) / HEAD_DIM**0.5
            if causal:
                mask = torch.ones(q.shape[2], k.shape[2], dtype=torch.bool).tril()
                scores = scores.masked_fill(~mask, float("-inf"))
            out = scores.softmax(-1) @ v
        else:
            out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return self.head(out.transpose(1, 2).reshape(1, -1, HEADS * HEAD_DIM))


def generate(model: TinyDecoder, *, cache: bool, manual: bool) -> list[int]:
    """Greedy decoding with `.item()` per token, as a hand-written loop often does."""
    ids = torch.arange(PROMPT).unsqueeze(0)
    past: list[Any] | None = [] if cache else None
    tokens: list[int] = []
    step_input = ids
    for _ in range(NEW_TOKENS):
        logits = model(step_input if cache else ids, past, manual)
        next_token = logits[:, -1].argmax(-1, keepdim=True)
        tokens.append(next_token.item())
        ids = torch.cat([ids, next_token], dim=1)
        step_input = next_token
    return tokens


def record(path: Path, *, cache: bool, manual: bool = False) -> Path:
    """Four profiled generations (one per step), shapes recorded."""
    from torch.profiler import ProfilerActivity, profile, schedule

    torch.manual_seed(0)
    model = TinyDecoder()
    with (
        torch.inference_mode(),
        profile(
            activities=[ProfilerActivity.CPU],
            record_shapes=True,
            schedule=schedule(wait=0, warmup=1, active=3, repeat=1),
            on_trace_ready=lambda p: p.export_chrome_trace(str(path)),
        ) as profiler,
    ):
        for _ in range(4):
            generate(model, cache=cache, manual=manual)
            profiler.step()
    return path


def cli() -> str:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    if not command:
        pytest.skip("no stepscope command: set STEPSCOPE_CLI or pip install .")
    return command


def findings(trace: Path) -> dict[str, Any]:
    done = subprocess.run(
        [cli(), "analyze", str(trace), "--json", "-"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)["ranks"][0]["diagnosis"]["findings"]
    return {finding["id"]: finding for finding in found}


@pytest.mark.parametrize("manual", [False, True], ids=["sdpa", "matmul"])
def test_recomputing_the_whole_sequence_is_found(tmp_path: Path, manual: bool) -> None:
    found = findings(record(tmp_path / "no_cache.json", cache=False, manual=manual))
    assert "kv-cache-missing" in found
    lengths = found["kv-cache-missing"]["evidence"][1]["value"]
    assert lengths == PROMPT + NEW_TOKENS - 1
    # No GPU, no sync: `.item()` on the CPU costs nothing to wait for.
    assert "per-token-sync" not in found


@pytest.mark.parametrize("manual", [False, True], ids=["sdpa", "matmul"])
def test_a_kv_cache_keeps_it_silent(tmp_path: Path, manual: bool) -> None:
    found = findings(record(tmp_path / "cache.json", cache=True, manual=manual))
    assert "kv-cache-missing" not in found
