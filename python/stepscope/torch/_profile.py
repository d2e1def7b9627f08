"""profile: torch.profiler with a schedule, written where the user asks, diagnosed on exit."""

from __future__ import annotations

import json
import os
import socket
import statistics
import threading
import time
import warnings
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import torch
from torch.profiler import ProfilerAction, ProfilerActivity

from .. import Mode, Report, analyze

# Names the trace engine reads as phase markers (docs/rules.md, metrics.md §phases): an
# annotation `## forward ##` opens the forward phase, and so on. Other names are recorded as
# they are (`## loss ##`) and shown under their own name.
PHASES = ("forward", "backward", "optimizer", "data loading")

# Recorded steps slower than this many times the steps outside the profile: overhead shows.
OVERHEAD_WARNING_RATIO = 1.25
# First half of the recorded steps slower than this many times the second half: still warming.
STEADY_STATE_RATIO = 1.2


# The trace's top-level key for the host conditions (docs/stepscope-host.md): a
# torch.profiler trace records no thread or core counts, and the thread-oversubscription rule
# needs them.
HOST_METADATA_KEY = "stepscope_host"


def _child_processes() -> list[int]:
    """This process's children from /proc (Linux); empty where /proc cannot tell."""
    children: list[int] = []
    try:
        for task in Path(f"/proc/{os.getpid()}/task").iterdir():
            children += [int(p) for p in (task / "children").read_text().split()]
    except (OSError, ValueError):
        return []
    return children


# Children that run no training work: torch.compile's compile workers (idle while the loop
# runs), and multiprocessing's resource tracker and fork server (started by any library that uses
# multiprocessing, and left running for the life of the process).
_IDLE_HELPER_MARKERS = (
    b"compile_worker",
    b"multiprocessing.resource_tracker",
    b"multiprocessing.forkserver",
)


def _is_idle_helper(pid: int) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return any(marker in cmdline for marker in _IDLE_HELPER_MARKERS)


def host_conditions() -> dict[str, Any]:
    """The counts recorded under ``stepscope_host``: cores this process may run on, the
    threads torch starts, processes of this job on this host, and child processes (DataLoader
    workers, each with one intra-op thread by default) now."""
    affinity = getattr(os, "sched_getaffinity", None)
    cpu_count = os.cpu_count()
    cores = len(affinity(0)) if affinity is not None else cpu_count
    local = os.environ.get("LOCAL_WORLD_SIZE", "")
    if local.isdigit() and int(local) >= 1:
        processes, source = int(local), "LOCAL_WORLD_SIZE"
    elif torch.distributed.is_available() and torch.distributed.is_initialized():
        # Other ranks may share this host, but nothing says how many: 1 is a lower bound.
        processes, source = 1, "unknown"
    else:
        processes, source = 1, "default"
    workers = [pid for pid in _child_processes() if not _is_idle_helper(pid)]
    return {
        "cores_available": cores,
        "cpu_count": cpu_count,
        "intra_op_threads": torch.get_num_threads(),
        "inter_op_threads": torch.get_num_interop_threads(),
        "local_processes": processes,
        "local_processes_source": source,
        "dataloader_workers": len(workers),
    }


class ProfileTooShortError(RuntimeError):
    """The loop called ``step()`` fewer than ``wait + warmup + steps`` times: the trace would
    hold fewer steps than asked for (or none), and its figures would not be the ones asked for."""


class ProfileWarning(UserWarning):
    """Something in the profiled run makes its figures less trustworthy (overhead, warm-up)."""


@dataclass(frozen=True)
class ProfileOverhead:
    """Step time while the profiler recorded against step time while it did not, both measured
    by the profile's own clock around the loop body (``prof.step()`` excluded). ``ratio`` above 1
    is time the profiler added to each recorded step."""

    recorded_step_ms: float  # median over the recorded steps
    reference_step_ms: float  # median over the steps outside the profile
    reference_steps: int
    ratio: float
    includes_first_step: bool  # the only reference was the loop's first step (one-off costs)

    def __str__(self) -> str:
        return (
            f"recorded steps {self.recorded_step_ms:.3f} ms against {self.reference_step_ms:.3f}"
            f" ms outside the profile ({self.reference_steps} step(s)): {self.ratio:.2f}x"
        )


def measure_overhead(
    step_seconds: Sequence[float], wait: int, warmup: int, active: int
) -> ProfileOverhead | None:
    """Overhead from per-step wall times (index 0 = the loop's first step): recorded steps
    against the steps before the schedule (wait) and after it. The first step carries one-off
    costs (lazy initialisation, DataLoader start-up): it is a reference only when there is no
    other. None when there is no step of either kind."""
    recorded = list(step_seconds[wait + warmup : wait + warmup + active])
    others = list(step_seconds[1:wait]) + list(step_seconds[wait + warmup + active :])
    first_only = False
    if not others and wait > 0 and step_seconds:
        others, first_only = [step_seconds[0]], True
    if not recorded or not others:
        return None
    recorded_ms = statistics.median(recorded) * 1000
    reference_ms = statistics.median(others) * 1000
    ratio = recorded_ms / reference_ms if reference_ms > 0 else float("inf")
    return ProfileOverhead(recorded_ms, reference_ms, len(others), ratio, first_only)


def still_warming_up(recorded_seconds: Sequence[float]) -> tuple[float, float] | None:
    """(first half, second half) medians in ms when the recorded step times are still falling:
    the first half slower than STEADY_STATE_RATIO times the second. None when steady."""
    if len(recorded_seconds) < 2:
        return None
    half = len(recorded_seconds) // 2
    first = statistics.median(recorded_seconds[:half]) * 1000
    second = statistics.median(recorded_seconds[len(recorded_seconds) - half :]) * 1000
    if second > 0 and first > STEADY_STATE_RATIO * second:
        return first, second
    return None


class _ModuleAnnotations:
    """The nn.Module hierarchy without Python stacks: each module's forward becomes a
    ``nn.Module: <Class>_<n>`` annotation (the names PyTorch's tracer gives with stacks), through
    global module hooks. Costs a record_function per module call, far less than stacks."""

    def __init__(self) -> None:
        self._names: weakref.WeakKeyDictionary[torch.nn.Module, str] = weakref.WeakKeyDictionary()
        self._counts: dict[str, int] = {}
        self._local = threading.local()
        self._handles: list[Any] = []

    def _stack(self) -> list[tuple[torch.nn.Module, Any]]:
        stack: list[tuple[torch.nn.Module, Any]] | None = getattr(self._local, "stack", None)
        if stack is None:
            stack = []
            self._local.stack = stack
        return stack

    def _name(self, module: torch.nn.Module) -> str:
        name = self._names.get(module)
        if name is None:
            kind = type(module).__name__
            number = self._counts.get(kind, 0)
            self._counts[kind] = number + 1
            name = f"nn.Module: {kind}_{number}"
            self._names[module] = name
        return name

    def _enter(self, module: torch.nn.Module, _inputs: Any) -> None:
        if torch.compiler.is_compiling():  # compiled regions: no graph break for a label
            return
        span = torch.autograd.profiler.record_function(self._name(module))
        span.__enter__()
        self._stack().append((module, span))

    def _exit(self, module: torch.nn.Module, _inputs: Any, _output: Any) -> None:
        if torch.compiler.is_compiling():
            return
        stack = self._stack()
        if not any(entry is module for entry, _ in stack):
            return
        while stack:
            entry, span = stack.pop()
            span.__exit__(None, None, None)
            if entry is module:
                break

    def install(self) -> None:
        hooks = torch.nn.modules.module
        self._handles = [
            hooks.register_module_forward_pre_hook(self._enter),
            hooks.register_module_forward_hook(self._exit, always_call=True),
        ]

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []
        stack = self._stack()
        while stack:
            stack.pop()[1].__exit__(None, None, None)


class Profile:
    """A running profile: call :meth:`step` once per training step; after the ``with`` block
    :attr:`report` is the diagnosis of the trace, :attr:`trace_files` where it was written."""

    def __init__(
        self,
        *,
        steps: int = 5,
        out: str | os.PathLike[str] = "traces",
        wait: int = 1,
        warmup: int = 1,
        record_shapes: bool = True,
        profile_memory: bool = True,
        with_stack: bool = False,
        with_modules: bool = True,
        activities: Sequence[ProfilerActivity] | None = None,
        worker_name: str | None = None,
        use_gzip: bool = False,
        analyze: bool = True,
        mode: Mode = "native",
    ) -> None:
        if steps < 1 or wait < 0 or warmup < 0:
            raise ValueError("profile: steps must be >= 1, wait and warmup >= 0")
        self.steps = steps
        self.wait = wait
        self.warmup = warmup
        self.out = Path(out)
        self.worker_name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        self.use_gzip = use_gzip
        self.mode: Mode = mode
        self._analyze = analyze
        if activities is None:
            activities = [ProfilerActivity.CPU]
            if torch.cuda.is_available():
                activities.append(ProfilerActivity.CUDA)
        self.activities = list(activities)
        self.trace_files: list[Path] = []
        self.steps_taken = 0
        self.with_stack = with_stack
        self.with_modules = with_modules
        # Wall time of each step's loop body (prof.step() itself excluded: it writes the trace).
        self.step_seconds: list[float] = []
        self._step_began = 0.0
        self.overhead: ProfileOverhead | None = None
        self.warnings: list[str] = []
        # With stacks, PyTorch's tracer records nn.Module frames itself.
        self._modules = (
            _ModuleAnnotations()
            if with_modules and not with_stack and ProfilerActivity.CPU in self.activities
            else None
        )
        self._report: Report | None = None
        self._host_recorded = False
        self._handler = torch.profiler.tensorboard_trace_handler(
            str(self.out), worker_name=self.worker_name, use_gzip=use_gzip
        )
        self._profiler = torch.profiler.profile(
            activities=self.activities,
            schedule=torch.profiler.schedule(wait=wait, warmup=warmup, active=steps, repeat=1),
            on_trace_ready=self._trace_ready,
            record_shapes=record_shapes,
            profile_memory=profile_memory,
            with_stack=with_stack,
            with_modules=with_modules,
        )

    @property
    def profiler(self) -> torch.profiler.profile:
        """The underlying ``torch.profiler.profile`` (for ``key_averages()`` and the like)."""
        return self._profiler

    def _trace_files_now(self) -> set[Path]:
        if not self.out.is_dir():
            return set()
        return {p for p in self.out.iterdir() if p.name.startswith(self.worker_name + ".")}

    def _trace_ready(self, profiler: Any) -> None:
        before = self._trace_files_now()
        self._handler(profiler)
        self.trace_files += sorted(self._trace_files_now() - before)

    def __enter__(self) -> Profile:
        if self._modules is not None:
            self._modules.install()
        self._profiler.__enter__()
        self._step_began = time.perf_counter()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._profiler.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._record_host()  # the block ends while recording: __exit__ writes the trace
        try:
            self._profiler.__exit__(kind, error, traceback)
        finally:
            if self._modules is not None:
                self._modules.remove()
        if kind is not None:
            return
        needed = self.wait + self.warmup + self.steps
        if self.steps_taken < needed:
            recorded = max(0, self.steps_taken - self.wait - self.warmup)
            raise ProfileTooShortError(
                f"stepscope.torch.profile: the loop called step() {self.steps_taken} times, "
                f"fewer than wait={self.wait} + warmup={self.warmup} + steps={self.steps} = "
                f"{needed}: {recorded} of {self.steps} steps were recorded, so the trace does "
                f"not measure what was asked; run the loop at least {needed} steps or pass "
                "smaller steps/wait/warmup"
            )
        self._check_measurements()
        if self._analyze and self.trace_files:
            self._report = analyze(self.trace_files[-1], mode=self.mode)

    def _record_host(self) -> None:
        """Host conditions into the trace being recorded (metadata added while it records)."""
        if not self._host_recorded:
            self._profiler.add_metadata_json(HOST_METADATA_KEY, json.dumps(host_conditions()))
            self._host_recorded = True

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        warnings.warn(message, ProfileWarning, stacklevel=3)

    def _check_measurements(self) -> None:
        """Profiler overhead and steady state, from the profile's own step clock."""
        self.overhead = measure_overhead(self.step_seconds, self.wait, self.warmup, self.steps)
        if self.overhead is not None and self.overhead.ratio >= OVERHEAD_WARNING_RATIO:
            cheaper = "with_stack=False, " if self.with_stack else ""
            self._warn(
                f"stepscope.torch.profile: profiler overhead shows: {self.overhead}; the trace "
                f"overstates host time; {cheaper}record_shapes=False or profile_memory=False "
                "record less"
            )
        start = self.wait + self.warmup
        falling = still_warming_up(self.step_seconds[start : start + self.steps])
        if falling is not None:
            self._warn(
                "stepscope.torch.profile: step times were still falling while recording (median "
                f"{falling[0]:.3f} ms in the first half of the recorded steps, {falling[1]:.3f} "
                "ms in the second): the loop had not reached a steady state (DataLoader "
                f"prefetch, caches, autotuning); start recording later, e.g. wait={self.wait + 3}"
            )

    def step(self) -> None:
        """Mark the end of a training step (``ProfilerStep#N`` in the trace)."""
        self.step_seconds.append(time.perf_counter() - self._step_began)
        if self._profiler.current_action == ProfilerAction.RECORD_AND_SAVE:
            self._record_host()  # the last recorded step: the trace is written by step()
        self._profiler.step()
        self.steps_taken += 1
        self._step_began = time.perf_counter()

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Label a part of the step for the trace engine (an annotation ``## name ##``):
        ``forward``, ``backward``, ``optimizer`` and ``data loading`` are its phases; any other
        name is recorded and shown as it is.

        DataLoader iteration, ``Optimizer.step`` and autograd's backward are recognised without
        labels; label what the engine cannot infer, such as the forward pass or a custom loader.
        """
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"profile.phase: the name must be a non-empty string, not {name!r}")
        with torch.profiler.record_function(f"## {name.strip()} ##"):
            yield

    @property
    def trace_file(self) -> Path | None:
        """The trace written by this profile, None before it is written."""
        return self.trace_files[-1] if self.trace_files else None

    @property
    def report(self) -> Report:
        """The diagnosis of the trace (``stepscope.analyze`` on it), computed on first use when
        the profile was created with ``analyze=False``.

        Raises:
            RuntimeError: no trace was written, with the reason.
        """
        if self._report is None:
            if not self.trace_files:
                needed = self.wait + self.warmup + 1
                raise RuntimeError(
                    f"stepscope.torch.profile wrote no trace: the loop called step() "
                    f"{self.steps_taken} times; recording starts after wait={self.wait} + "
                    f"warmup={self.warmup} steps, so at least {needed} steps are needed (and "
                    "the trace is written when the active steps end or the block exits)"
                )
            self._report = analyze(self.trace_files[-1], mode=self.mode)
        return self._report

    def __repr__(self) -> str:
        return (
            f"<stepscope.torch.Profile steps={self.steps} wait={self.wait} warmup={self.warmup} "
            f"out={str(self.out)!r} trace={self.trace_file}>"
        )


def profile(
    steps: int = 5,
    out: str | os.PathLike[str] = "traces",
    *,
    wait: int = 1,
    warmup: int = 1,
    record_shapes: bool = True,
    profile_memory: bool = True,
    with_stack: bool = False,
    with_modules: bool = True,
    activities: Sequence[ProfilerActivity] | None = None,
    worker_name: str | None = None,
    use_gzip: bool = False,
    analyze: bool = True,
    mode: Mode = "native",
) -> Profile:
    """Profile `steps` training steps with ``torch.profiler`` and diagnose them::

        with stepscope.torch.profile(steps=5, out="traces/") as prof:
            for batch in loader:
                train_step(batch)
                prof.step()
        print(prof.report)

    The schedule skips `wait` steps, warms the profiler up for `warmup` steps, then records
    `steps` steps once (``torch.profiler.schedule(wait, warmup, active=steps, repeat=1)``); a
    loop shorter than ``wait + warmup + steps`` raises :class:`ProfileTooShortError` on leaving
    the block. It records shapes, memory and the nn.Module hierarchy (each module's forward as
    a ``nn.Module: <Class>_<n>`` annotation) by default, the CPU, and CUDA when available.
    ``with_stack=True`` adds Python stacks (file:line per op), at a cost that can distort a
    Python-heavy loop many times over. On leaving the block the profile compares its recorded
    steps with the steps around them (``prof.overhead``) and warns (:class:`ProfileWarning`)
    when the profiler's overhead shows or the step times were still falling. The
    trace is written as ``tensorboard_trace_handler`` writes it, ``out/<worker>.<ns>.pt.trace.json``
    (``worker`` defaults to ``<host>_<pid>``), so TensorBoard, HTA and ``stepscope analyze out/``
    read the folder. The trace also records the host's conditions under the top-level key
    ``stepscope_host`` (cores available, intra- and inter-op threads, processes of the job on
    this host from ``LOCAL_WORLD_SIZE``, DataLoader worker processes), which torch.profiler does
    not record and the thread-oversubscription rule reads. On leaving the block, the trace is
    analysed and ``prof.report`` holds the diagnosis (``analyze=False`` defers that to the
    first use of ``prof.report``).
    """
    return Profile(
        steps=steps,
        out=out,
        wait=wait,
        warmup=warmup,
        record_shapes=record_shapes,
        profile_memory=profile_memory,
        with_stack=with_stack,
        with_modules=with_modules,
        activities=activities,
        worker_name=worker_name,
        use_gzip=use_gzip,
        analyze=analyze,
        mode=mode,
    )
