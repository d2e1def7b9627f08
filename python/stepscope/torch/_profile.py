"""profile: torch.profiler with a schedule, written where the user asks, diagnosed on exit."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

import torch
from torch.profiler import ProfilerActivity

from .. import Mode, Report, analyze

# Names the trace engine reads as phase markers (docs/rules.md, metrics.md §phases): an
# annotation `## forward ##` opens the forward phase, and so on.
PHASES = ("forward", "backward", "optimizer", "data loading")


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
        with_stack: bool = True,
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
        self._report: Report | None = None
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
        self._profiler.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._profiler.__exit__(kind, error, traceback)
        if kind is None and self._analyze and self.trace_files:
            self._report = analyze(self.trace_files[-1], mode=self.mode)

    def step(self) -> None:
        """Mark the end of a training step (``ProfilerStep#N`` in the trace)."""
        self._profiler.step()
        self.steps_taken += 1

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Label a part of the step for the trace engine: ``forward``, ``backward``,
        ``optimizer`` or ``data loading`` (an annotation ``## forward ##`` and so on).

        DataLoader iteration, ``Optimizer.step`` and autograd's backward are recognised without
        labels; label what the engine cannot infer, such as the forward pass or a custom loader.
        """
        if name not in PHASES:
            raise ValueError(f"profile.phase: {name!r} is not one of {', '.join(PHASES)}")
        with torch.profiler.record_function(f"## {name} ##"):
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
    with_stack: bool = True,
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
    `steps` steps once (``torch.profiler.schedule(wait, warmup, active=steps, repeat=1)``). It
    records shapes, memory and Python stacks by default, the CPU, and CUDA when available. The
    trace is written as ``tensorboard_trace_handler`` writes it, ``out/<worker>.<ns>.pt.trace.json``
    (``worker`` defaults to ``<host>_<pid>``), so TensorBoard, HTA and ``stepscope analyze out/``
    read the folder. On leaving the block, the trace is analysed and ``prof.report`` holds the
    diagnosis (``analyze=False`` defers that to the first use of ``prof.report``).
    """
    return Profile(
        steps=steps,
        out=out,
        wait=wait,
        warmup=warmup,
        record_shapes=record_shapes,
        profile_memory=profile_memory,
        with_stack=with_stack,
        activities=activities,
        worker_name=worker_name,
        use_gzip=use_gzip,
        analyze=analyze,
        mode=mode,
    )
