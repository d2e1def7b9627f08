"""memory_plan: measure two training steps at two batch sizes, then predict the peak of each
memory technique and the largest batch that fits (the arithmetic is stepscope's C++ core)."""

from __future__ import annotations

import collections
import contextlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from .. import _core
from ._batch import batch_size_of, call_model, to_device
from ._memory import _state_tensors, _tensor_bytes, process_rss_bytes
from ._timing import synchronize


@dataclass(frozen=True)
class PlanRow:
    """One technique's estimate: the peak at the measured batch and the largest batch that fits
    (``-1``: activations did not grow with the batch, so they set no bound)."""

    technique: str
    assumption: str
    fixed_bytes: int  # forward and backward without the batch
    per_sample_bytes: int
    optimizer_peak_bytes: int
    predicted_peak_bytes: int
    largest_batch: int

    def peak_at(self, batch: int) -> int:
        """Estimated peak at `batch` samples: forward/backward or the optimizer step."""
        return max(self.fixed_bytes + self.per_sample_bytes * batch, self.optimizer_peak_bytes)


@dataclass(frozen=True)
class MemoryPlan:
    """The measured figures and one estimated row per technique (the current setting first)."""

    parameters: int
    parameter_bytes: int
    gradient_bytes: int
    optimizer_state_bytes: int
    batch_sizes: tuple[int, int]
    peaks_bytes: tuple[int, int]  # forward and backward at each batch size
    optimizer_peak_bytes: int
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


def _cpu_tensor_bytes_above_start(prof: torch.profiler.profile) -> int:
    """From the profiler's CPU [memory] records: the most bytes allocated during the profile
    beyond what was allocated when it began (tensors, not the process)."""
    fd, name = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(name)
        events = json.loads(Path(name).read_text())["traceEvents"]
    finally:
        os.unlink(name)
    records = sorted(
        (e for e in events if e.get("name") == "[memory]" and e["args"].get("Device Type") == 0),
        key=lambda e: float(e["ts"]),
    )
    if not records:
        return 0
    start = int(records[0]["args"]["Total Allocated"]) - int(records[0]["args"]["Bytes"])
    return max(0, max(int(e["args"]["Total Allocated"]) for e in records) - start)


@contextlib.contextmanager
def _peak(where: torch.device, live_bytes: int, out: list[int]) -> Iterator[None]:
    """Append the peak of the block to `out`: ``torch.cuda.max_memory_allocated`` on a GPU;
    elsewhere `live_bytes` (what was allocated before) plus the most tensor bytes the profiler's
    [memory] records show allocated during the block."""
    synchronize(where)
    if where.type == "cuda":
        torch.cuda.reset_peak_memory_stats(where)
        yield
        synchronize(where)
        out.append(int(torch.cuda.max_memory_allocated(where)))
        return
    activities = [torch.profiler.ProfilerActivity.CPU]
    with torch.profiler.profile(activities=activities, profile_memory=True) as prof:
        yield
    out.append(live_bytes + _cpu_tensor_bytes_above_start(prof))


def step_peaks(
    model: torch.nn.Module,
    batch: Any,
    loss_fn: Callable[[Any, Any], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    where: torch.device,
) -> tuple[int, int, int]:
    """One training step: the peaks of forward+backward and of the optimizer step, and the
    gradients' bytes."""
    parameters = list(model.parameters())
    inputs, target = to_device(batch, where)
    live = _tensor_bytes([*parameters, *_state_tensors(optimizer)])
    peaks: list[int] = []
    with _peak(where, live + _tensor_bytes(_inputs_of((inputs, target))), peaks):
        loss = loss_fn(call_model(model, inputs), target)
        loss.backward()
    grads = [p.grad for p in parameters if p.grad is not None]
    gradients = _tensor_bytes(grads)
    with _peak(where, _tensor_bytes([*parameters, *_state_tensors(optimizer), *grads]), peaks):
        optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    del loss, inputs, target, grads
    return peaks[0], peaks[1], gradients


def _inputs_of(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    items = value.values() if isinstance(value, Mapping) else value
    if isinstance(value, tuple | list | Mapping):
        return [t for item in items for t in _inputs_of(item)]
    return []


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

    One warm-up step at the smaller batch creates the optimizer state; then one step at each
    batch size is measured (the weights change, as in training), forward+backward and the
    optimizer step apart. The peaks are ``torch.cuda.max_memory_allocated`` on a GPU; on the CPU
    the tensor memory of the profiler's [memory] records, and the capacity is the memory
    available to the process: the CPU plan says so in its notes. `shards` adds ZeRO / FSDP rows
    for that many GPUs. Every predicted figure is an estimate: forward and backward linear in
    the batch size, the optimizer step's peak independent of it.
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
    model.train()
    smaller = _slice_batch(batch, small)
    step_peaks(model, smaller, loss_fn, optimizer, where)  # creates the optimizer state
    peak_a, optimizer_a, _ = step_peaks(model, smaller, loss_fn, optimizer, where)
    peak_b, optimizer_b, gradients = step_peaks(model, batch, loss_fn, optimizer, where)
    notes: list[str] = []
    if where.type == "cuda":
        capacity = capacity_bytes or int(torch.cuda.get_device_properties(where).total_memory)
        kind = "GPU tensors (torch.cuda.max_memory_allocated) against the device's memory"
    else:
        capacity = capacity_bytes or _cpu_capacity_bytes() or 0
        kind = (
            "CPU tensors (the profiler's [memory] records, plus parameters and optimizer state) "
            "against the memory available to the process"
        )
        notes.append(
            "measured on the CPU: the peaks are tensor memory from the profiler's CPU [memory] "
            "records (parameters, optimizer state and inputs added), not the process' resident "
            "set, and the capacity is the memory available to the process, not a GPU's"
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
        optimizer_peak=max(optimizer_a, optimizer_b),
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
        optimizer_peak_bytes=max(optimizer_a, optimizer_b),
        capacity_bytes=capacity,
        memory_kind=kind,
        rows=tuple(PlanRow(*row) for row in rows),
        text=text,
        notes=tuple(notes),
    )
