"""Small models for the inference lab tests (CPU, fast), also loaded by the CLI test as
``inference_models.py:FUNCTION``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import torch

VOCAB = 64


class TinyTransformer(torch.nn.Module):
    """A 2-layer encoder over token ids with a vocabulary head: logits (batch, seq, vocab)."""

    def __init__(self, width: int = 32, layers: int = 2) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, width)
        layer = torch.nn.TransformerEncoderLayer(
            width, nhead=4, dim_feedforward=64, dropout=0.1, batch_first=True
        )
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = torch.nn.Linear(width, VOCAB)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.head(self.encoder(self.embed(tokens)))
        return out


def tiny_transformer() -> tuple[torch.nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return TinyTransformer(), torch.randint(0, VOCAB, (4, 16))


def greedy(model: Any, prompt: torch.Tensor, new_tokens: int = 4) -> Iterator[torch.Tensor]:
    """Greedy decoding without a cache: one token per step, yielded as it comes."""
    tokens = prompt
    for _ in range(new_tokens):
        logits = model(tokens)
        token = logits[:, -1].argmax(-1, keepdim=True)
        tokens = torch.cat([tokens, token], dim=1)
        yield token


def tiny_cnn_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1),
        torch.nn.BatchNorm2d(8),
        torch.nn.ReLU(),
        torch.nn.Dropout(0.2),
        torch.nn.AdaptiveAvgPool2d(4),
        torch.nn.Flatten(),
        torch.nn.Linear(8 * 16, 10),
    )


def tiny_cnn() -> tuple[torch.nn.Module, torch.Tensor]:
    model = tiny_cnn_model()
    return model, torch.randn(16, 3, 16, 16, generator=torch.Generator().manual_seed(1))


def cli_cnn() -> dict[str, Any]:
    """The CLI form with options: a dict."""
    model, example = tiny_cnn()
    return {"model": model, "example": example, "warmup": 1}


class Saturating(torch.nn.Module):
    """A device that costs `fixed` seconds per call until `fixed / per_item` items, then
    `per_item` seconds per item: flat, then linear (a GPU that is not yet full, then full).
    Sleeping, not computing, so that two busy neighbours on the machine do not bend the curve."""

    def __init__(self, fixed: float, per_item: float) -> None:
        super().__init__()
        self.fixed = fixed
        self.per_item = per_item
        self.scale = torch.nn.Parameter(torch.ones(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        time.sleep(max(self.fixed, self.per_item * x.shape[0]))
        return x * self.scale
