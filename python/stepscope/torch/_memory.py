"""memory_phases: where memory goes in a training step, phase by phase, and what to do."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from ._batch import call_model, to_device
from ._results import Conditions, ResultMixin, rows_to_pandas
from ._timing import resolve_model_device, synchronize

if TYPE_CHECKING:
    import pandas

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def _status_kib(field: str) -> int | None:
    try:
        found = re.search(rf"^{field}:\s+(\d+)\s+kB", _STATUS.read_text(), re.MULTILINE)
    except OSError:
        return None
    return int(found.group(1)) * 1024 if found else None


def process_rss_bytes() -> int | None:
    """The process' resident memory (Linux), else None."""
    return _status_kib("VmRSS")


class PeakMemory:
    """Peak memory since the last :meth:`reset`: ``torch.cuda.max_memory_allocated`` on a GPU;
    elsewhere the process' peak resident set (Linux VmHWM, reset through /proc/self/clear_refs),
    or None where neither exists."""

    def __init__(self, device: torch.device) -> None:
        self.device = device
        if device.type == "cuda":
            self.kind = "torch.cuda.max_memory_allocated (tensors on the GPU)"
        elif _status_kib("VmHWM") is not None:
            self.kind = "process peak resident memory (VmHWM), everything in the process"
        else:  # pragma: no cover - not Linux
            self.kind = "unavailable on this platform"

    def reset(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(self.device)
            return
        # Kernels before 4.0, or no /proc: the peak then covers the whole process life.
        with contextlib.suppress(OSError):
            _CLEAR_REFS.write_text("5")

    def peak_bytes(self) -> int | None:
        if self.device.type == "cuda":
            return int(torch.cuda.max_memory_allocated(self.device))
        return _status_kib("VmHWM")


def _tensor_bytes(tensors: Iterable[torch.Tensor]) -> int:
    """Bytes of the storages behind `tensors`, each storage counted once."""
    seen: dict[int, int] = {}
    for tensor in tensors:
        storage = tensor.untyped_storage()
        seen[storage.data_ptr()] = storage.nbytes()
    return sum(seen.values())


def _state_tensors(optimizer: torch.optim.Optimizer) -> Iterator[torch.Tensor]:
    for state in optimizer.state.values():
        for value in state.values():
            if isinstance(value, torch.Tensor) and value.dim() > 0:  # not the step counters
                yield value


@contextmanager
def _saved_for_backward(excluded: set[int], out: dict[int, int]) -> Iterator[None]:
    """Record the storages autograd saves for backward (the activations), except `excluded`."""

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        # Tensors without a plain storage (sparse, nested, fakes) are not counted.
        with contextlib.suppress(RuntimeError, NotImplementedError):
            storage = tensor.untyped_storage()
            if storage.data_ptr() not in excluded:
                out[storage.data_ptr()] = storage.nbytes()
        return tensor

    def unpack(tensor: torch.Tensor) -> torch.Tensor:
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        yield


PHASE_NAMES = ("to_device", "forward", "loss", "backward", "optimizer_step", "zero_grad")


@dataclass(frozen=True)
class PhaseMemory:
    """Memory after one phase of the step (GPU figures None on the CPU)."""

    step: int
    phase: str
    allocated_bytes: int | None
    reserved_bytes: int | None
    peak_allocated_bytes: int | None  # peak during this phase
    process_rss_bytes: int | None


@dataclass(frozen=True)
class MemoryBreakdown(ResultMixin):
    """What the step keeps in memory, by kind, in bytes."""

    parameters_bytes: int
    gradients_bytes: int
    optimizer_state_bytes: int
    activations_bytes: int  # tensors saved for backward, parameters left out

    @property
    def total_bytes(self) -> int:
        return (
            self.parameters_bytes
            + self.gradients_bytes
            + self.optimizer_state_bytes
            + self.activations_bytes
        )


def estimate_training_memory(
    parameters: int, *, bytes_per_value: int = 4, optimizer_states: int = 2
) -> MemoryBreakdown:
    """The memory a model of `parameters` parameters needs before activations: weights,
    gradients and `optimizer_states` copies (Adam/AdamW 2, SGD with momentum 1). For 1e9 fp32
    parameters with Adam: 4 GB weights, 4 GB gradients, 8 GB optimizer state."""
    weights = parameters * bytes_per_value
    return MemoryBreakdown(weights, weights, weights * optimizer_states, 0)


@dataclass(frozen=True)
class MemoryPhases(ResultMixin):
    """Memory through a training step and what dominates it."""

    phases: tuple[PhaseMemory, ...]
    breakdown: MemoryBreakdown
    parameters: int
    peak_allocated_bytes: int | None
    peak_reserved_bytes: int | None
    # "activations", "optimizer_state", "parameters_and_gradients", "fragmentation", or
    # "not_a_concern" when the step's memory is under MEMORY_CONCERN_FLOOR of the capacity.
    verdict: str
    dominant: str  # what holds the most memory, whatever the verdict
    capacity_bytes: int | None  # the GPU's total memory, or the machine's RAM on the CPU
    advice: tuple[str, ...]
    notes: tuple[str, ...]
    conditions: Conditions

    def to_pandas(self) -> pandas.DataFrame:
        """One row per phase of each step."""
        return rows_to_pandas(self.phases)

    def __str__(self) -> str:
        def mib(value: int | None) -> str:
            return "n/a" if value is None else f"{value / 2**20:,.2f} MiB"

        b = self.breakdown
        gpu = self.peak_allocated_bytes is not None
        if gpu:
            lines = [f"{'step':>4} {'phase':<15} {'allocated':>12} {'reserved':>12} {'peak':>12}"]
        else:
            lines = [f"{'step':>4} {'phase':<15} {'process RSS':>12}"]
        for p in self.phases:
            if gpu:
                lines.append(
                    f"{p.step:>4} {p.phase:<15} {mib(p.allocated_bytes):>12} "
                    f"{mib(p.reserved_bytes):>12} {mib(p.peak_allocated_bytes):>12}"
                )
            else:
                lines.append(f"{p.step:>4} {p.phase:<15} {mib(p.process_rss_bytes):>12}")
        lines.append(
            f"parameters {mib(b.parameters_bytes)} ({self.parameters:,}), gradients "
            f"{mib(b.gradients_bytes)}, optimizer state {mib(b.optimizer_state_bytes)}, "
            f"activations {mib(b.activations_bytes)}"
        )
        lines.append(f"verdict: {self.verdict}")
        lines += [f"  - {a}" for a in self.advice]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


# Below this share of the capacity (the GPU's memory, or the machine's RAM on the CPU), the
# step's parameters, gradients, optimizer state and activations together are no memory problem:
# 25 MiB of optimizer state in a 16 GiB machine needs no advice.
MEMORY_CONCERN_FLOOR = 0.10


def _machine_memory_bytes() -> int | None:
    """MemTotal (Linux), else None."""
    try:
        found = re.search(r"^MemTotal:\s+(\d+)\s+kB", Path("/proc/meminfo").read_text(), re.M)
    except OSError:
        return None
    return int(found.group(1)) * 1024 if found else None


def _not_a_concern_advice(total: int, capacity: int, dominant: str) -> tuple[str, ...]:
    return (
        f"memory is not a concern: parameters, gradients, optimizer state and activations hold "
        f"{total / 2**20:,.2f} MiB, {total / capacity:.1%} of {capacity / 2**30:,.2f} GiB "
        f"(under the {MEMORY_CONCERN_FLOOR:.0%} floor); the largest part is "
        f"{dominant.replace('_', ' ')}, and no change is needed for memory",
    )


# Fragmentation: the allocator reserves this much more than the peak of live tensors.
FRAGMENTATION_RATIO = 1.5
FRAGMENTATION_MIN_BYTES = 256 * 2**20

ADVICE = {
    "activations": (
        "bf16 autocast: torch.autocast(device_type, dtype=torch.bfloat16) halves most saved "
        "activations",
        "activation checkpointing: torch.utils.checkpoint.checkpoint(block, x, "
        "use_reentrant=False) on the largest blocks; costs 20-30 % more compute",
        "gradient accumulation: a smaller micro-batch, loss / k, optimizer.step() every k "
        "micro-batches: the same effective batch",
        "a smaller batch, if the training recipe allows it",
    ),
    "optimizer_state": (
        "an optimizer with less state: SGD with momentum keeps 1 copy of the weights, Adam 2",
        "8-bit optimizer state (bitsandbytes.optim.AdamW8bit), or shard the state across GPUs "
        "(FSDP / ZeRO)",
        "mixed precision does not shrink fp32 optimizer state",
    ),
    "parameters_and_gradients": (
        "shard weights and gradients across GPUs (FullyShardedDataParallel)",
        "bf16 weights and gradients, with care for the optimizer's precision",
    ),
    "fragmentation": (
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True lets the allocator grow segments "
        "instead of caching many sizes",
        "keep tensor shapes stable from step to step (pad variable lengths to a few buckets)",
    ),
}


def memory_phases(
    model: torch.nn.Module,
    batch: Any,
    loss_fn: Callable[[Any, Any], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    *,
    device: torch.device | str | None = None,
    steps: int = 2,
    capacity_bytes: int | None = None,
) -> MemoryPhases:
    """Run `steps` real training steps on `batch` = ``(inputs, target)`` and measure memory
    after each phase: moving data, forward, loss, backward, optimizer step and zero_grad.

    The model's weights change, as in training. On a GPU each phase has allocated, reserved and
    the peak during the phase (``torch.cuda`` statistics); on the CPU those need a GPU and are
    None, and the process' resident memory is given instead. Everywhere: the bytes of
    parameters, gradients (after backward), optimizer state (after the step) and activations
    (tensors autograd saves for backward, found with saved-tensor hooks, parameters left out),
    from the last step; the verdict is what dominates, with advice, unless all of it is under
    ``MEMORY_CONCERN_FLOOR`` (10 %) of `capacity_bytes` (default: the GPU's total memory, or the
    machine's RAM on the CPU): then the verdict is ``"not_a_concern"`` and nothing is advised.
    """
    if steps < 1:
        raise ValueError("memory_phases: steps must be >= 1")
    first = next(model.parameters(), None)
    where = resolve_model_device(model, device)
    cuda = where.type == "cuda"
    parameters = list(model.parameters())
    parameter_storages = {p.untyped_storage().data_ptr() for p in parameters}
    rows: list[PhaseMemory] = []
    saved: dict[int, int] = {}
    gradients = 0
    state = 0
    peak_allocated = 0
    peak_reserved = 0

    def mark(step: int, phase: str) -> None:
        nonlocal peak_allocated, peak_reserved
        synchronize(where)
        if cuda:
            allocated = int(torch.cuda.memory_allocated(where))
            reserved = int(torch.cuda.memory_reserved(where))
            peak = int(torch.cuda.max_memory_allocated(where))
            peak_allocated = max(peak_allocated, peak)
            peak_reserved = max(peak_reserved, int(torch.cuda.max_memory_reserved(where)))
            rows.append(PhaseMemory(step, phase, allocated, reserved, peak, process_rss_bytes()))
            torch.cuda.reset_peak_memory_stats(where)
        else:
            rows.append(PhaseMemory(step, phase, None, None, None, process_rss_bytes()))

    model.train()
    if cuda:
        synchronize(where)
        torch.cuda.reset_peak_memory_stats(where)
    for step in range(steps):
        inputs, target = to_device(batch, where)
        mark(step, "to_device")
        saved = {}
        with _saved_for_backward(parameter_storages, saved):
            output = call_model(model, inputs)
            mark(step, "forward")
            loss = loss_fn(output, target)
        mark(step, "loss")
        loss.backward()
        mark(step, "backward")
        gradients = _tensor_bytes(p.grad for p in parameters if p.grad is not None)
        optimizer.step()
        mark(step, "optimizer_step")
        state = _tensor_bytes(_state_tensors(optimizer))
        optimizer.zero_grad(set_to_none=True)
        mark(step, "zero_grad")
        del output, loss, inputs, target
    breakdown = MemoryBreakdown(
        parameters_bytes=_tensor_bytes(parameters),
        gradients_bytes=gradients,
        optimizer_state_bytes=state,
        activations_bytes=sum(saved.values()),
    )
    kinds = {
        "activations": breakdown.activations_bytes,
        "optimizer_state": breakdown.optimizer_state_bytes,
        "parameters_and_gradients": breakdown.parameters_bytes + breakdown.gradients_bytes,
    }
    dominant = max(kinds, key=lambda kind: kinds[kind])
    verdict = dominant
    notes: list[str] = []
    if (
        cuda
        and peak_reserved >= FRAGMENTATION_RATIO * peak_allocated
        and (peak_reserved - peak_allocated >= FRAGMENTATION_MIN_BYTES)
    ):
        verdict = "fragmentation"
        notes.append(
            f"the allocator reserved {peak_reserved / 2**20:,.0f} MiB for a peak of "
            f"{peak_allocated / 2**20:,.0f} MiB of tensors"
        )
    if not cuda:
        notes.append(
            "on the CPU, allocated / reserved / peak per phase and fragmentation need a GPU "
            "(torch.cuda memory statistics): the sizes of parameters, gradients, optimizer state "
            "and activations are exact, process_rss_bytes is the whole process"
        )
    capacity = capacity_bytes or (
        int(torch.cuda.get_device_properties(where).total_memory)
        if cuda
        else _machine_memory_bytes()
    )
    advice = ADVICE[verdict]
    if (
        verdict != "fragmentation"
        and capacity
        and breakdown.total_bytes < MEMORY_CONCERN_FLOOR * capacity
    ):
        verdict = "not_a_concern"
        advice = _not_a_concern_advice(breakdown.total_bytes, capacity, dominant)
    return MemoryPhases(
        phases=tuple(rows),
        breakdown=breakdown,
        parameters=sum(p.numel() for p in parameters),
        peak_allocated_bytes=peak_allocated if cuda else None,
        peak_reserved_bytes=peak_reserved if cuda else None,
        verdict=verdict,
        dominant=dominant,
        capacity_bytes=capacity,
        advice=advice,
        notes=tuple(notes),
        conditions=Conditions.capture(where, dtype=first.dtype if first is not None else None),
    )
