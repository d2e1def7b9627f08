"""memory_plan: measure two training steps at two batch sizes, then predict the peak of each
memory technique and the largest batch that fits (the arithmetic is stepscope's C++ core)."""

from __future__ import annotations

import collections
import contextlib
import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from .. import _core
from .._output import write_file
from ._batch import batch_size_of, call_model, to_device
from ._memory import _state_tensors, _tensor_bytes, process_rss_bytes
from ._timing import resolve_model_device, synchronize


@dataclass(frozen=True)
class PlanRow:
    """One technique's estimate: the peak at `batch` (the measured larger batch, or the
    accumulation row's micro-batch), the largest batch that fits (``-1``: activations did not
    grow with the batch, so they set no bound) and the step time it adds (``None``: not
    estimated; `cost_basis` says why, or which measured figures the estimate rests on)."""

    technique: str
    assumption: str
    batch: int
    fixed_bytes: int  # forward and backward without the batch
    per_sample_bytes: int
    optimizer_peak_bytes: int
    predicted_peak_bytes: int
    largest_batch: int
    step_cost_ms: float | None  # estimated, per step; negative: saves time
    step_cost_share: float | None  # of the measured step
    cost_basis: str
    accumulation_steps: int  # the accumulation row: micro-steps per effective batch

    def peak_at(self, batch: int) -> int:
        """Estimated peak at `batch` samples: forward/backward or the optimizer step."""
        return max(self.fixed_bytes + self.per_sample_bytes * batch, self.optimizer_peak_bytes)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PlanRow:
        return cls(
            technique=str(data["technique"]),
            assumption=str(data["assumption"]),
            batch=int(data["batch"]),
            fixed_bytes=int(data["fixed_bytes"]),
            per_sample_bytes=int(data["per_sample_bytes"]),
            optimizer_peak_bytes=int(data["optimizer_peak_bytes"]),
            predicted_peak_bytes=int(data["predicted_peak_bytes"]),
            largest_batch=int(data["largest_batch"]),
            step_cost_ms=None if data["step_cost_ms"] is None else float(data["step_cost_ms"]),
            step_cost_share=(
                None if data["step_cost_share"] is None else float(data["step_cost_share"])
            ),
            cost_basis=str(data["cost_basis"]),
            accumulation_steps=int(data["accumulation_steps"]),
        )


@dataclass(frozen=True)
class StepTimes:
    """Wall time of a training step's parts at one batch size, in ms (the fastest of the timed
    steps, part by part)."""

    forward_ms: float
    backward_ms: float  # loss and backward
    optimizer_ms: float
    blocks_forward_ms: float  # inside the repeated blocks' forward

    def as_tuple(self) -> tuple[float, float, float, float]:
        return (self.forward_ms, self.backward_ms, self.optimizer_ms, self.blocks_forward_ms)


@dataclass(frozen=True)
class MemoryPlan:
    """The measured figures and one estimated row per technique (the current setting first,
    the gradient-accumulation row last)."""

    parameters: int
    parameter_bytes: int
    gradient_bytes: int
    optimizer_state_bytes: int
    batch_sizes: tuple[int, int]
    peaks_bytes: tuple[int, int]  # forward and backward at each batch size
    optimizer_peak_bytes: int
    capacity_bytes: int
    memory_kind: str  # what the peaks and the capacity measure
    times: tuple[StepTimes, StepTimes]  # at each batch size
    effective_batch: int
    rows: tuple[PlanRow, ...]
    text: str  # the terminal table, as `stepscope plan` prints it
    json: str  # the plan as JSON, as `stepscope plan --json` writes it
    notes: tuple[str, ...]
    measurement: str  # the measurement document `stepscope plan` reads

    def row(self, prefix: str) -> PlanRow:
        """The first row whose technique starts with `prefix`."""
        for row in self.rows:
            if row.technique.startswith(prefix):
                return row
        raise KeyError(prefix)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the measurement (schema ``stepscope.plan_measurement``) atomically, for
        ``stepscope plan PATH``."""
        write_file(path, self.measurement)

    def __str__(self) -> str:
        return self.text.rstrip()


def _slice_batch(value: Any, size: int) -> Any:
    """The first `size` samples of every tensor in `value` (nested tuples, lists, dicts)."""
    if isinstance(value, torch.Tensor):
        return value[:size] if value.dim() > 0 else value
    if isinstance(value, Mapping):
        return {key: _slice_batch(item, size) for key, item in value.items()}
    if isinstance(value, tuple | list):
        return type(value)(_slice_batch(item, size) for item in value)
    return value


def repeated_block_modules(model: torch.nn.Module) -> list[torch.nn.Module]:
    """The most children of one class in any ModuleList or Sequential: the blocks activation
    checkpointing would wrap (none when no class repeats)."""
    best: list[torch.nn.Module] = []
    for module in model.modules():
        if isinstance(module, torch.nn.ModuleList | torch.nn.Sequential):
            children = list(module.children())
            counts = collections.Counter(type(child) for child in children)
            if counts:
                kind, count = counts.most_common(1)[0]
                if count > len(best):
                    best = [child for child in children if type(child) is kind]
    return best if len(best) >= 2 else []


def repeated_blocks(model: torch.nn.Module) -> int:
    """How many blocks activation checkpointing would wrap (0 when there are none)."""
    return len(repeated_block_modules(model))


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


def _time_step(
    model: torch.nn.Module,
    batch: Any,
    loss_fn: Callable[[Any, Any], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    where: torch.device,
    blocks: list[torch.nn.Module],
) -> StepTimes:
    """Wall time of one training step's parts (synchronised on a GPU, perf_counter), and of the
    blocks' forward, summed through forward hooks."""
    inputs, target = to_device(batch, where)
    starts: list[float] = []
    inside = [0.0]

    def before(_module: torch.nn.Module, _args: Any) -> None:
        synchronize(where)
        starts.append(time.perf_counter())

    def after(_module: torch.nn.Module, _args: Any, _output: Any) -> None:
        synchronize(where)
        inside[0] += time.perf_counter() - starts.pop()

    handles = [b.register_forward_pre_hook(before) for b in blocks]
    handles += [b.register_forward_hook(after) for b in blocks]
    try:
        synchronize(where)
        start = time.perf_counter()
        output = call_model(model, inputs)
        synchronize(where)
        forward_end = time.perf_counter()
    finally:
        for handle in handles:
            handle.remove()
    loss_fn(output, target).backward()
    synchronize(where)
    backward_end = time.perf_counter()
    optimizer.step()
    synchronize(where)
    step_end = time.perf_counter()
    optimizer.zero_grad(set_to_none=True)
    return StepTimes(
        forward_ms=(forward_end - start) * 1e3,
        backward_ms=(backward_end - forward_end) * 1e3,
        optimizer_ms=(step_end - backward_end) * 1e3,
        blocks_forward_ms=inside[0] * 1e3,
    )


def step_times(
    model: torch.nn.Module,
    batch: Any,
    loss_fn: Callable[[Any, Any], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    where: torch.device,
    blocks: list[torch.nn.Module],
    repeats: int = 5,
) -> StepTimes:
    """The fastest of `repeats` timed training steps, part by part, after one untimed step at
    this batch size (allocator and kernel caches, the profiler's teardown). The fastest, not
    the median: on a shared machine the other processes only ever add time."""
    _time_step(model, batch, loss_fn, optimizer, where, [])
    runs = [_time_step(model, batch, loss_fn, optimizer, where, blocks) for _ in range(repeats)]
    return StepTimes(*(min(run.as_tuple()[part] for run in runs) for part in range(4)))


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
    effective_batch: int | None = None,
    link_gbps: float | None = None,
    timing_repeats: int = 5,
    save: str | os.PathLike[str] | None = None,
    device: torch.device | str | None = None,
) -> MemoryPlan:
    """Measure real training steps on `batch` = ``(inputs, target)`` and on its first
    `smaller_batch` samples (default half), then estimate each technique's peak and step-time
    cost.

    One warm-up step at the smaller batch creates the optimizer state; then one step at each
    batch size is measured (the weights change, as in training), forward+backward and the
    optimizer step apart. The peaks are ``torch.cuda.max_memory_allocated`` on a GPU; on the CPU
    the tensor memory of the profiler's [memory] records, and the capacity is the memory
    available to the process: the CPU plan says so in its notes. Then, after one untimed step,
    `timing_repeats` steps at each batch size are timed without the profiler (the fastest of
    each part: forward, loss and backward, optimizer step, and the repeated blocks' forward),
    synchronised on a GPU.

    `shards` adds ZeRO / FSDP rows for that many GPUs, costed at `link_gbps` GB/s of bus
    bandwidth (default ``_core.default_link_gbps``); `effective_batch` (default: the batch) is
    what the gradient-accumulation row splits into micro-batches that fit. `save` writes the
    measurement for ``stepscope plan PATH`` (as :meth:`MemoryPlan.save`). Every predicted
    figure is an estimate: forward and backward linear in the batch size, the optimizer step's
    peak independent of it.
    """
    size = batch_size_of(batch)
    if size is None or size < 2:
        raise ValueError("memory_plan: the batch needs a leading dimension of at least 2")
    small = smaller_batch if smaller_batch is not None else size // 2
    if not 1 <= small < size:
        raise ValueError(f"memory_plan: smaller_batch must be in [1, {size}), got {small}")
    if timing_repeats < 1:
        raise ValueError("memory_plan: timing_repeats must be >= 1")
    where = resolve_model_device(model, device)
    parameters = list(model.parameters())
    model.train()
    smaller = _slice_batch(batch, small)
    step_peaks(model, smaller, loss_fn, optimizer, where)  # creates the optimizer state
    peak_a, optimizer_a, _ = step_peaks(model, smaller, loss_fn, optimizer, where)
    peak_b, optimizer_b, gradients = step_peaks(model, batch, loss_fn, optimizer, where)
    blocks = repeated_block_modules(model)
    times_a = step_times(model, smaller, loss_fn, optimizer, where, blocks, timing_repeats)
    times_b = step_times(model, batch, loss_fn, optimizer, where, blocks, timing_repeats)
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
    document = _core.plan_measurement_document(
        parameter_count=sum(p.numel() for p in parameters),
        parameter_bytes=_tensor_bytes(parameters),
        gradient_bytes=gradients,
        optimizer_state_bytes=_tensor_bytes(_state_tensors(optimizer)),
        optimizer=_optimizer_name(optimizer),
        device="cuda" if where.type == "cuda" else "cpu",
        batch_a=small,
        peak_a=peak_a,
        batch_b=size,
        peak_b=peak_b,
        optimizer_peak=max(optimizer_a, optimizer_b),
        capacity_bytes=capacity,
        repeated_blocks=len(blocks),
        timing_a=times_a.as_tuple(),
        timing_b=times_b.as_tuple(),
        notes=notes,
    )
    plan = plan_from_measurement(
        document,
        shards=shards,
        safety_margin=safety_margin,
        effective_batch=effective_batch,
        link_gbps=link_gbps,
        memory_kind=kind,
    )
    if save is not None:
        plan.save(save)
    return plan


def plan_from_measurement(
    document: str,
    *,
    shards: int = 1,
    safety_margin: float = 0.10,
    effective_batch: int | None = None,
    link_gbps: float | None = None,
    memory_kind: str = "as measured (see the notes)",
    file: str = "<measurement>",
) -> MemoryPlan:
    """The plan from a measurement document (what :meth:`MemoryPlan.save` writes), through the
    same C++ reader and arithmetic as ``stepscope plan``."""
    if effective_batch is not None and effective_batch < 1:
        raise ValueError("memory_plan: effective_batch must be >= 1")
    ok, error, text, plan_json = _core.memory_plan_document(
        document,
        file,
        shards,
        safety_margin,
        effective_batch or 0,
        link_gbps if link_gbps is not None else _core.default_link_gbps,
    )
    if not ok:
        raise ValueError(f"memory_plan: {error}")
    data = json.loads(plan_json)
    m = data["measured"]

    def times(key: str) -> StepTimes:
        t = m[key]
        return StepTimes(
            t["forward_ms"], t["backward_ms"], t["optimizer_ms"], t["blocks_forward_ms"]
        )

    return MemoryPlan(
        parameters=int(m["parameter_count"]),
        parameter_bytes=int(m["parameter_bytes"]),
        gradient_bytes=int(m["gradient_bytes"]),
        optimizer_state_bytes=int(m["optimizer_state_bytes"]),
        batch_sizes=(int(m["batch_a"]), int(m["batch_b"])),
        peaks_bytes=(int(m["peak_a_bytes"]), int(m["peak_b_bytes"])),
        optimizer_peak_bytes=int(m["optimizer_peak_bytes"]),
        capacity_bytes=int(m["capacity_bytes"]),
        memory_kind=memory_kind,
        times=(times("timing_a"), times("timing_b")),
        effective_batch=int(data["options"]["effective_batch"]),
        rows=tuple(PlanRow.from_dict(row) for row in data["rows"]),
        text=text,
        json=plan_json,
        notes=tuple(str(note) for note in data["notes"]),
        measurement=document,
    )
