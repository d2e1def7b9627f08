"""A small transformer for the memory planner's test, run in a fresh process per measurement
(nothing from one configuration stays allocated in the next). ``python memory_plan_model.py
plan [SAVE]`` prints the plan's predictions (and saves the measurement); ``python
memory_plan_model.py measure OPTIMIZER BATCH`` measures one configuration the way memory_plan
does (a warm-up step, then the peaks of one step); ``python memory_plan_model.py recompute``
prints the plan's checkpointing cost for a 4-block variant next to the measured difference of
checkpointed and plain forward+backward."""

from __future__ import annotations

import json
import sys
import time

import torch

from stepscope import torch as sst
from stepscope.torch._memory_plan import step_peaks

SEQUENCE = 64
VOCABULARY = 8_000


class SmallTransformer(torch.nn.Module):
    def __init__(self, blocks: int = 2) -> None:
        super().__init__()
        self.embedding = torch.nn.Embedding(VOCABULARY, 256)
        self.blocks = torch.nn.ModuleList(
            torch.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)
            for _ in range(blocks)
        )
        self.head = torch.nn.Linear(256, 10)
        self.checkpointed = False  # activation checkpointing on every block

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        hidden = self.embedding(tokens)
        for block in self.blocks:
            if self.checkpointed:
                hidden = torch.utils.checkpoint.checkpoint(block, hidden, use_reentrant=False)
            else:
                hidden = block(hidden)
        return self.head(hidden.mean(dim=1))  # type: ignore[no-any-return]


def setup(
    optimizer_name: str, batch_size: int, blocks: int = 2
) -> tuple[SmallTransformer, torch.optim.Optimizer, tuple[torch.Tensor, torch.Tensor]]:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = SmallTransformer(blocks)
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


def forward_backward_ms(model: SmallTransformer, batch: tuple[torch.Tensor, torch.Tensor]) -> float:
    start = time.perf_counter()
    loss_fn(model(batch[0]), batch[1]).backward()
    elapsed = time.perf_counter() - start
    model.zero_grad(set_to_none=True)
    return elapsed * 1e3


def recompute() -> dict[str, float]:
    """The plan's estimate for checkpointing every block of a 4-block model, and the measured
    extra forward+backward time of checkpointing (the fastest of interleaved runs each way, as
    the plan times its steps)."""
    # Short steps and many of them: the fastest of many short runs is the least disturbed by
    # other processes on a shared machine.
    model, optimizer, batch = setup("AdamW", 8, blocks=4)
    plan = sst.memory_plan(model, batch, loss_fn, optimizer, timing_repeats=9)
    plain: list[float] = []
    checkpointed: list[float] = []
    for _ in range(2):  # warm-up, both ways
        for flag in (False, True):
            model.checkpointed = flag
            forward_backward_ms(model, batch)
    for _ in range(15):
        model.checkpointed = False
        plain.append(forward_backward_ms(model, batch))
        model.checkpointed = True
        checkpointed.append(forward_backward_ms(model, batch))
    row = plan.row("checkpoint every block")
    assert row.step_cost_ms is not None
    return {
        "predicted_ms": row.step_cost_ms,
        "measured_ms": min(checkpointed) - min(plain),
        "plain_ms": min(plain),
    }


def main() -> None:
    if sys.argv[1] == "recompute":
        print(json.dumps(recompute()))
        return
    if sys.argv[1] == "plan":
        model, optimizer, batch = setup("AdamW", 16)
        save = sys.argv[2] if len(sys.argv) > 2 else None
        plan = sst.memory_plan(model, batch, loss_fn, optimizer, save=save)
        # The same measurement against a smaller device, where 20.5 samples' activations fit
        # with the margin: the accumulation row must split an effective batch of 64.
        current = plan.rows[0]
        document = json.loads(plan.measurement)
        document["capacity_bytes"] = int(
            (current.fixed_bytes + current.per_sample_bytes * 20.5) / 0.9
        )
        small = sst.plan_from_measurement(json.dumps(document), effective_batch=64)
        accumulation = small.row("gradient accumulation")
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
                    "micro_batch": accumulation.batch,
                    "accumulation_steps": accumulation.accumulation_steps,
                    "micro_peak": accumulation.predicted_peak_bytes,
                }
            )
        )
    else:
        print(json.dumps({"peak": measure(sys.argv[2], int(sys.argv[3]))}))


if __name__ == "__main__":
    main()
