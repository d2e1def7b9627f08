"""A small transformer for the memory planner's test, run in a fresh process per measurement
(glibc keeps freed memory in the resident set, so one process per configuration keeps the
measurements apart). ``python memory_plan_model.py plan`` prints the plan's predictions;
``python memory_plan_model.py measure OPTIMIZER BATCH`` measures one configuration the same way
memory_plan does (a warm-up step, then the peak of one step)."""

from __future__ import annotations

import json
import sys

import torch

from stepscope import torch as sst
from stepscope.torch._memory import PeakMemory

SEQUENCE = 64
VOCABULARY = 60_000


class SmallTransformer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embedding = torch.nn.Embedding(VOCABULARY, 256)
        self.blocks = torch.nn.ModuleList(
            torch.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)
            for _ in range(2)
        )
        self.head = torch.nn.Linear(256, 10)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        hidden = self.embedding(tokens)
        for block in self.blocks:
            hidden = block(hidden)
        return self.head(hidden.mean(dim=1))  # type: ignore[no-any-return]


def setup(
    optimizer_name: str, batch_size: int
) -> tuple[torch.nn.Module, torch.optim.Optimizer, tuple[torch.Tensor, torch.Tensor]]:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = SmallTransformer()
    optimizer: torch.optim.Optimizer = (
        torch.optim.AdamW(model.parameters())
        if optimizer_name == "AdamW"
        else torch.optim.SGD(model.parameters(), lr=0.01)
    )
    tokens = torch.randint(0, VOCABULARY, (batch_size, SEQUENCE))
    return model, optimizer, (tokens, torch.randint(0, 10, (batch_size,)))


def loss_fn(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.cross_entropy(output, target)


def measure(optimizer_name: str, batch_size: int) -> int:
    model, optimizer, (tokens, target) = setup(optimizer_name, batch_size)
    peak = PeakMemory(torch.device("cpu"))
    value = None
    for _ in range(2):  # the first step creates gradients and optimizer state
        peak.reset()
        loss_fn(model(tokens), target).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        value = peak.peak_bytes()
    assert value is not None
    return value


def main() -> None:
    if sys.argv[1] == "plan":
        model, optimizer, batch = setup("AdamW", 16)
        plan = sst.memory_plan(model, batch, loss_fn, optimizer)
        print(
            json.dumps(
                {
                    "batch_48": plan.rows[0].peak_at(48),
                    "sgd_16": next(
                        r.peak_at(16) for r in plan.rows if r.technique == "optimizer SGD"
                    ),
                    "peaks": list(plan.peaks_bytes),
                    "batches": list(plan.batch_sizes),
                    "notes": list(plan.notes),
                    "text": str(plan),
                }
            )
        )
    else:
        print(json.dumps({"peak": measure(sys.argv[2], int(sys.argv[3]))}))


if __name__ == "__main__":
    main()
