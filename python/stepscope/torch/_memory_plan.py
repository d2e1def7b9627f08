"""memory_plan: measure two training steps at two batch sizes, then predict the peak of each
memory technique and the largest batch that fits (the arithmetic is stepscope's C++ core)."""

from __future__ import annotations

import collections
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from .. import _core
from ._batch import batch_size_of, call_model, to_device
from ._memory import PeakMemory, _state_tensors, _tensor_bytes, process_rss_bytes
from ._timing import synchronize


@dataclass(frozen=True)
class PlanRow:
    """One technique's estimate: the peak at the measured batch and the largest batch that fits
    (``-1``: activations did not grow with the batch, so they set no bound)."""

    technique: str
    assumption: str
    fixed_bytes: int
    per_sample_bytes: int
    predicted_peak_bytes: int
    largest_batch: int

    def peak_at(self, batch: int) -> int:
        """Estimated peak at `batch` samples."""
        return self.fixed_bytes + self.per_sample_bytes * batch


@dataclass(frozen=True)
class MemoryPlan:
    """The measured figures and one estimated row per technique (the current setting first)."""

    parameters: int
    parameter_bytes: int
    gradient_bytes: int
    optimizer_state_bytes: int
    batch_sizes: tuple[int, int]
    peaks_bytes: tuple[int, int]
    capacity_bytes: int
    memory_kind: str  # what the peaks and the capacity measure
    rows: tuple[PlanRow, ...]
    text: str
    notes: tuple[str, ...]

    def row(self, prefix: str) -> PlanRow:
        """The first row whose technique starts with `prefix`."""
        for row in self.rows:
            if row.technique.startswith(prefix):
                return row
        raise KeyError(prefix)

    def __str__(self) -> str:
        return "\n".join([self.text.rstrip(), *(f"note: {n}" for n in self.notes)])


def _slice_batch(value: Any, size: int) -> Any:
    """The first `size` samples of every tensor in `value` (nested tuples, lists, dicts)."""
    if isinstance(value, torch.Tensor):
        return value[:size] if value.dim() > 0 else value
    if isinstance(value, Mapping):
        return {key: _slice_batch(item, size) for key, item in value.items()}
    if isinstance(value, tuple | list):
        return type(value)(_slice_batch(item, size) for item in value)
    return value


def repeated_blocks(model: torch.nn.Module) -> int:
    """The most children of one class in any ModuleList or Sequential: the blocks activation
    checkpointing would wrap (0 when there are none)."""
    best = 0
    for module in model.modules():
        if isinstance(module, torch.nn.ModuleList | torch.nn.Sequential):
            counts = collections.Counter(type(child) for child in module.children())
            if counts:
                best = max(best, max(counts.values()))
    return best if best >= 2 else 0


def _optimizer_name(optimizer: torch.optim.Optimizer) -> str:
    name = type(optimizer).__name__
    if name == "SGD" and any(g.get("momentum", 0) for g in optimizer.param_groups):
        return "SGD momentum"
    return name


def _cpu_capacity_bytes() -> int | None:
    """What this process could still grow to: MemAvailable plus its resident set (Linux)."""
    try:
        found = re.search(r"^MemAvailable:\s+(\d+)\s+kB", Path("/proc/meminfo").read_text(), re.M)
    except OSError:
        return None
    rss = process_rss_bytes()
    if found is None or rss is None:
        return None
    return int(found.group(1)) * 1024 + rss


def memory_plan(
    model: torch.nn.Module,
    batch: Any,
    loss_fn: Callable[[Any, Any], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    *,
    smaller_batch: int | None = None,
    shards: int = 1,
    capacity_bytes: int | None = None,
    safety_margin: float = 0.10,
    device: torch.device | str | None = None,
) -> MemoryPlan:
    """Measure real training steps on `batch` = ``(inputs, target)`` and on its first
    `smaller_batch` samples (default half), then estimate each technique's peak.

    One warm-up step at the smaller batch creates gradients and optimizer state; then one step
    at each batch size is measured (the weights change, as in training). The peak is
    ``torch.cuda.max_memory_allocated`` on a GPU and the process' peak resident set on the CPU,
    where the capacity is the memory available to the process: the CPU plan says so in its
    notes. `shards` adds ZeRO / FSDP rows for that many GPUs. Every predicted figure is an
    estimate from a peak linear in the batch size.
    """
    size = batch_size_of(batch)
    if size is None or size < 2:
        raise ValueError("memory_plan: the batch needs a leading dimension of at least 2")
    small = smaller_batch if smaller_batch is not None else size // 2
    if not 1 <= small < size:
        raise ValueError(f"memory_plan: smaller_batch must be in [1, {size}), got {small}")
    first = next(model.parameters(), None)
    where = (
        torch.device(device)
        if device is not None
        else (first.device if first is not None else torch.device("cpu"))
    )
    parameters = list(model.parameters())
    peak = PeakMemory(where)
    gradients = 0

    def step(samples: Any) -> int | None:
        nonlocal gradients
        inputs, target = to_device(samples, where)
        synchronize(where)
        peak.reset()
        loss = loss_fn(call_model(model, inputs), target)
        loss.backward()
        gradients = _tensor_bytes(p.grad for p in parameters if p.grad is not None)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        synchronize(where)
        del loss, inputs, target
        return peak.peak_bytes()

    model.train()
    smaller = _slice_batch(batch, small)
    step(smaller)
    peak_a = step(smaller)
    peak_b = step(batch)
    if peak_a is None or peak_b is None:
        raise RuntimeError(f"memory_plan: no peak memory here ({peak.kind})")
    notes: list[str] = []
    if where.type == "cuda":
        capacity = capacity_bytes or int(torch.cuda.get_device_properties(where).total_memory)
        kind = "GPU tensors (torch.cuda.max_memory_allocated) against the device's memory"
    else:
        capacity = capacity_bytes or _cpu_capacity_bytes() or 0
        kind = "process resident memory (VmHWM) against the memory available to the process"
        notes.append(
            "measured on the CPU: the peaks are the whole process' resident memory (the Python "
            "interpreter and libraries are in the fixed part) and the capacity is the memory "
            "available to it, not a GPU's"
        )
    state = _tensor_bytes(_state_tensors(optimizer))
    blocks = repeated_blocks(model)
    ok, error, text, rows, _fixed, _per_sample = _core.memory_plan(
        parameter_count=sum(p.numel() for p in parameters),
        parameter_bytes=_tensor_bytes(parameters),
        gradient_bytes=gradients,
        optimizer_state_bytes=state,
        optimizer=_optimizer_name(optimizer),
        batch_a=small,
        peak_a=peak_a,
        batch_b=size,
        peak_b=peak_b,
        capacity_bytes=capacity,
        repeated_blocks=blocks,
        shards=shards,
        safety_margin=safety_margin,
    )
    if not ok:
        raise ValueError(f"memory_plan: {error}")
    if blocks < 3:
        notes.append(
            f"{blocks} repeated blocks found (ModuleList / Sequential): checkpointing rows need 3"
        )
    return MemoryPlan(
        parameters=sum(p.numel() for p in parameters),
        parameter_bytes=_tensor_bytes(parameters),
        gradient_bytes=gradients,
        optimizer_state_bytes=state,
        batch_sizes=(small, size),
        peaks_bytes=(peak_a, peak_b),
        capacity_bytes=capacity,
        memory_kind=kind,
        rows=tuple(PlanRow(*row) for row in rows),
        text=text,
        notes=tuple(notes),
    )
