"""Small PyTorch models, datasets and loops for the stepscope.torch tests (CPU, fast)."""

from __future__ import annotations

import time

import torch
from torch.utils.data import DataLoader, Dataset

FEATURES = 16


class SlowDataset(Dataset[tuple[torch.Tensor, torch.Tensor]]):
    """A regression dataset whose __getitem__ sleeps `delay` seconds: a slow input pipeline."""

    def __init__(self, size: int = 64, delay: float = 0.0) -> None:
        self.size = size
        self.delay = delay

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        if self.delay:
            time.sleep(self.delay)
        generator = torch.Generator().manual_seed(index)
        x = torch.randn(FEATURES, generator=generator)
        return x, x.sum(0, keepdim=True)


def small_model(hidden: int = 32) -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Linear(FEATURES, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1)
    )


def loader(
    delay: float = 0.0, batch_size: int = 4, size: int = 64
) -> DataLoader[tuple[torch.Tensor, torch.Tensor]]:
    return DataLoader(SlowDataset(size, delay), batch_size=batch_size, shuffle=True)


class Trainer:
    """A model, its optimizer and one training step."""

    def __init__(self, hidden: int = 32) -> None:
        torch.manual_seed(0)
        self.model = small_model(hidden)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01)

    def step(self, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss
