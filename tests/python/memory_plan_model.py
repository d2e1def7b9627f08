"""A small transformer for the memory planner's test, run in a fresh process per measurement
(nothing from one configuration stays allocated in the next). ``python memory_plan_model.py
plan`` prints the plan's predictions; ``python memory_plan_model.py measure OPTIMIZER BATCH``
measures one configuration the way memory_plan does (a warm-up step, then the peaks of one
step)."""

from __future__ import annotations

import json
import sys

import torch

from stepscope import torch as sst
from stepscope.torch._memory_plan import step_peaks

SEQUENCE = 64
VOCABULARY = 8_000


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
    model, optimizer, batch = setup(optimizer_name, batch_size)
    cpu = torch.device("cpu")
    step_peaks(model, batch, loss_fn, optimizer, cpu)  # creates the optimizer state
    forward_backward, optimizer_step, _ = step_peaks(model, batch, loss_fn, optimizer, cpu)
    return max(forward_backward, optimizer_step)


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
                    "peak_16": plan.rows[0].peak_at(16),
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
