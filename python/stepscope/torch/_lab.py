"""lab: the three-run lab. Same seed, same data, back to back: fp32, bf16 autocast, bf16
autocast plus torch.compile; samples per second and peak memory for each, and the reading."""

from __future__ import annotations

import contextlib
import dataclasses
import math
import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from ._batch import batch_size_of, call_model, to_device
from ._memory import PeakMemory
from ._results import Conditions, ResultMixin, Stats, rows_to_pandas
from ._timing import now_ns, resolve_device, synchronize

if TYPE_CHECKING:
    import pandas

# A jump under 20 % from fp32 to bf16 says precision is not what limits the step; the same
# cut for compile says the kernels are already fused (or the step is bound elsewhere).
JUMP = 0.20

RUNS = ("fp32", "bf16", "bf16+compile")


@dataclass(frozen=True)
class LabRun:
    """One run of the lab."""

    name: str  # "fp32", "bf16" or "bf16+compile"
    available: bool
    reason: str | None  # why the run could not run
    samples_per_s: float | None
    step: Stats | None  # timed steps (after warm-up), data loading included
    warmup_ms: float | None  # all warm-up steps together (compilation shows here)
    peak_memory_bytes: int | None
    final_loss: float | None
    speedup_vs_fp32: float | None


@dataclass(frozen=True)
class LabResult(ResultMixin):
    """The three runs and what they say."""

    runs: tuple[LabRun, ...]
    precision_jump: float | None  # bf16 samples/s over fp32, minus 1
    compile_jump: float | None  # bf16+compile samples/s over bf16, minus 1
    precision_is_bottleneck: bool | None
    kernels_already_fused: bool | None
    reading: str
    peak_memory_kind: str
    steps: int
    warmup: int
    seed: int
    conditions: Conditions

    def run(self, name: str) -> LabRun:
        for run in self.runs:
            if run.name == name:
                return run
        raise KeyError(name)

    def to_pandas(self) -> pandas.DataFrame:
        """One row per run."""
        return rows_to_pandas(self.runs)

    def __str__(self) -> str:
        lines = [f"{'run':<13} {'samples/s':>11} {'step p50':>11} {'peak memory':>12}  vs fp32"]
        for r in self.runs:
            if not r.available:
                lines.append(f"{r.name:<13} unavailable: {r.reason}")
                continue
            memory = f"{r.peak_memory_bytes / 2**20:,.1f} MiB" if r.peak_memory_bytes else "n/a"
            step = f"{r.step.p50_ms:.2f} ms" if r.step else "n/a"
            speed = f"{r.speedup_vs_fp32:.2f}x" if r.speedup_vs_fp32 else ""
            lines.append(
                f"{r.name:<13} {r.samples_per_s or 0:>11,.1f} {step:>11} {memory:>12}  {speed}"
            )
        lines.append(f"peak memory: {self.peak_memory_kind}")
        lines.append(self.reading)
        return "\n".join(lines)


def _batches(loader: Iterable[Any], count: int) -> Iterator[Any]:
    """The first `count` batches, starting the loader again if it runs out."""
    given = 0
    while given < count:
        empty = True
        for batch in loader:
            empty = False
            yield batch
            given += 1
            if given == count:
                return
        if empty:
            raise ValueError("lab: the loader gave no batches")


def _seed(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


def _unavailable_reason(name: str, device: torch.device) -> str | None:
    if name == "fp32":
        return None
    if device.type == "cuda" and not torch.cuda.is_bf16_supported():
        return f"bf16 is not supported on {torch.cuda.get_device_name(device)}"
    if name == "bf16+compile" and not hasattr(torch, "compile"):
        return "this PyTorch has no torch.compile"
    return None


def _one_run(
    name: str,
    model_fn: Callable[[], torch.nn.Module],
    loader: Iterable[Any],
    loss_fn: Callable[[Any, Any], torch.Tensor],
    optimizer_fn: Callable[[Iterable[torch.nn.Parameter]], torch.optim.Optimizer],
    *,
    steps: int,
    warmup: int,
    seed: int,
    device: torch.device,
    compile_options: dict[str, Any],
    peak: PeakMemory,
) -> LabRun:
    _seed(seed)
    model = model_fn().to(device)
    model.train()
    optimizer = optimizer_fn(model.parameters())
    forward: Callable[..., Any] = model
    if name == "bf16+compile":
        torch.compiler.reset()
        forward = torch.compile(model, **compile_options)
    autocast = (
        torch.autocast(device_type=device.type, dtype=torch.bfloat16)
        if name != "fp32"
        else contextlib.nullcontext()
    )
    _seed(seed)  # the same data order in every run, whatever model_fn drew
    times: list[float] = []
    samples = 0
    warmup_ns = 0
    loss_value = math.nan
    synchronize(device)
    peak.reset()
    begin = now_ns()
    for index, batch in enumerate(_batches(loader, steps)):
        inputs, target = to_device(batch, device)
        with autocast:
            output = call_model(forward, inputs)
            loss = loss_fn(output, target)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        synchronize(device)
        end = now_ns()
        if index < warmup:
            warmup_ns += end - begin
        else:
            times.append((end - begin) / 1e6)
            samples += batch_size_of(inputs) or 1
        begin = end
        if index == steps - 1:
            loss_value = float(loss.detach().float().item())
    total_s = math.fsum(times) / 1000.0
    if name == "bf16+compile":
        torch.compiler.reset()
    return LabRun(
        name=name,
        available=True,
        reason=None,
        samples_per_s=samples / total_s if total_s > 0 else None,
        step=Stats.of(times),
        warmup_ms=warmup_ns / 1e6,
        peak_memory_bytes=peak.peak_bytes(),
        final_loss=loss_value,
        speedup_vs_fp32=None,
    )


def _reading(
    precision_jump: float | None, compile_jump: float | None, compile_reason: str | None
) -> tuple[str, bool | None, bool | None]:
    parts: list[str] = []
    precision_bound: bool | None = None
    fused: bool | None = None
    if precision_jump is None:
        parts.append("bf16 could not run, so precision cannot be judged.")
    elif precision_jump <= -JUMP:
        precision_bound = False
        parts.append(
            f"bf16 is {-precision_jump * 100:.0f} % slower than fp32: precision is not the "
            "bottleneck, and here the casts cost more than bf16 saves (a device without fast "
            "bf16, small ops, or a noisy machine: repeat the lab)."
        )
    elif precision_jump < JUMP:
        precision_bound = False
        parts.append(
            f"bf16 changes samples/s by {precision_jump * 100:+.0f} % over fp32 (under "
            f"{JUMP * 100:.0f} %): precision is not the bottleneck; the step waits on something "
            "else, usually input (see loader_vs_compute or profile)."
        )
    else:
        precision_bound = True
        parts.append(
            f"bf16 gives {precision_jump * 100:+.0f} % over fp32: the math was limiting; keep "
            "bf16 autocast."
        )
    if compile_jump is None:
        parts.append(f"torch.compile: unavailable ({compile_reason or 'not run'}).")
    elif compile_jump < JUMP:
        fused = True
        parts.append(
            f"torch.compile changes it by {compile_jump * 100:+.0f} % over bf16 (under "
            f"{JUMP * 100:.0f} %): kernels are already fused, or the step is bound elsewhere."
        )
    else:
        fused = False
        parts.append(
            f"torch.compile gives {compile_jump * 100:+.0f} % over bf16: room in kernel fusion; "
            "keep it."
        )
    if precision_bound and fused is False:
        parts.append("Large jumps from both: room in both precision and fusion.")
    return " ".join(parts), precision_bound, fused


def lab(
    model_fn: Callable[[], torch.nn.Module],
    loader: Iterable[Any],
    loss_fn: Callable[[Any, Any], torch.Tensor],
    *,
    steps: int = 55,
    warmup: int = 5,
    optimizer_fn: Callable[[Iterable[torch.nn.Parameter]], torch.optim.Optimizer] | None = None,
    device: torch.device | str | None = None,
    seed: int = 0,
    compile: bool = True,
    compile_options: Mapping[str, Any] | None = None,
) -> LabResult:
    """The three-run lab: train `steps` steps three times back to back, with the same seed and
    the same data (the first `steps` batches of `loader`, in the same order): fp32, bf16
    autocast, bf16 autocast plus ``torch.compile``.

    Each batch is ``(inputs, target)``; a step is ``loss_fn(model(inputs), target)``, backward,
    ``optimizer.step()``, ``zero_grad()``, with ``model = model_fn()`` built fresh for each run
    (``inputs`` a tuple: positional arguments; a dict: keyword arguments). The optimizer is
    ``optimizer_fn(params)``, AdamW(lr=1e-3) by default. The first `warmup` steps are not timed
    (compilation happens there); the loader is iterated in each run, so input cost counts, as
    in training.

    The reading: a jump under 20 % from fp32 to bf16 means precision is not the bottleneck (the
    device waits on something else, usually input); a jump under 20 % from compile means the
    kernels are already fused; large jumps mean room in both. A run that cannot run (bf16 on a
    GPU without it, compile failing or ``compile=False``) is marked unavailable with the reason.

    The compile run calls ``torch.compiler.reset()`` before and after it, so that earlier lab
    runs do not count against Dynamo's recompile limit: other compiled functions of the process
    compile again on their next call.

    Peak memory: ``torch.cuda.max_memory_allocated`` on a GPU; on the CPU the process' peak
    resident memory during the run (Linux, VmHWM reset before each run), else None.
    """
    if warmup < 0 or steps <= warmup:
        raise ValueError("lab: need warmup >= 0 and steps > warmup")
    where = resolve_device(device)
    make_optimizer = optimizer_fn or (lambda params: torch.optim.AdamW(params, lr=1e-3))
    options = dict(compile_options or {})
    peak = PeakMemory(where)
    runs: list[LabRun] = []
    compile_reason: str | None = None
    for name in RUNS:
        reason = _unavailable_reason(name, where)
        if name == "bf16+compile" and not compile:
            reason = "disabled by the caller (compile=False)"
        if reason is None:
            try:
                runs.append(
                    _one_run(
                        name,
                        model_fn,
                        loader,
                        loss_fn,
                        make_optimizer,
                        steps=steps,
                        warmup=warmup,
                        seed=seed,
                        device=where,
                        compile_options=options,
                        peak=peak,
                    )
                )
                continue
            except Exception as error:
                if name == "fp32":
                    raise
                first_line = (str(error).strip().splitlines() or [""])[0]
                reason = f"{type(error).__name__}: {first_line}"[:300]
                if name == "bf16+compile":
                    torch.compiler.reset()
        if name == "bf16+compile":
            compile_reason = reason
        runs.append(LabRun(name, False, reason, None, None, None, None, None, None))
    base = runs[0].samples_per_s
    runs = [
        dataclasses.replace(
            r, speedup_vs_fp32=r.samples_per_s / base if base and r.samples_per_s else None
        )
        for r in runs
    ]

    def jump(after: LabRun, before: LabRun) -> float | None:
        if after.samples_per_s and before.samples_per_s:
            return after.samples_per_s / before.samples_per_s - 1.0
        return None

    precision_jump = jump(runs[1], runs[0])
    compile_jump = jump(runs[2], runs[1])
    reading, precision_bound, fused = _reading(precision_jump, compile_jump, compile_reason)
    return LabResult(
        runs=tuple(runs),
        precision_jump=precision_jump,
        compile_jump=compile_jump,
        precision_is_bottleneck=precision_bound,
        kernels_already_fused=fused,
        reading=reading,
        peak_memory_kind=peak.kind,
        steps=steps,
        warmup=warmup,
        seed=seed,
        conditions=Conditions.capture(where),
    )
