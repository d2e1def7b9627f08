"""Watch this process and its children while a block of your own script runs.

The same figures as ``stepscope monitor -- COMMAND`` (GPU utilisation, memory, power and clocks
through NVML; CPU, memory, I/O and context switches of this process and of its children, such as
DataLoader workers), sampled by a C++ thread that never takes the GIL::

    from stepscope.monitor import monitor

    with monitor(interval=0.1) as mon:
        train_one_epoch()
    print(mon)                     # distributions (p5, p50, p95) and the verdict
    mon.verdict["id"]              # "host-bound", "input-bound", "device-busy", ...
    mon.to_json("timeline.json")   # the whole timeline (schema "stepscope.monitor")

The sampling thread's own CPU time is subtracted from this process's figures and reported as
``mon.summary["monitor_cpu_share_of_core"]``.
"""

from __future__ import annotations

import json
import os
from types import TracebackType
from typing import Any

from . import _core
from ._output import write_file

__all__ = ["Monitor", "monitor"]

PathLike = str | os.PathLike[str]


class Monitor:
    """Samples this process tree between ``start()`` and ``stop()`` (or around a ``with`` block).

    The figures (``summary``, ``verdict``, ``timeline``) are there once sampling has stopped.
    """

    __slots__ = ("_core", "_document", "_text")

    def __init__(self, interval: float = 0.1, *, gpus: bool = True) -> None:
        self._core = _core.LiveMonitor(float(interval), gpus)
        self._document: dict[str, Any] | None = None
        self._text = ""

    def start(self) -> Monitor:
        """Start sampling; returns the monitor."""
        self._core.start()
        return self

    def stop(self) -> None:
        """Stop sampling and compute the summary (a second call does nothing)."""
        if self._document is not None:
            return
        self._core.stop()
        document = json.loads(self._core.timeline_json())
        if not isinstance(document, dict):
            raise RuntimeError("the monitor's timeline is not a JSON object")
        self._document = document
        self._text = self._core.summary_text()

    def __enter__(self) -> Monitor:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def status(self) -> str:
        """The latest figures on one line, while sampling runs."""
        return self._core.status_line()

    @property
    def gpu_status(self) -> str:
        """Empty when NVML answered; otherwise why there are no GPU figures."""
        return self._core.gpu_status()

    @property
    def timeline(self) -> dict[str, Any]:
        """The whole document: header, ``summary`` and ``samples`` (see docs/json-schema.md)."""
        if self._document is None:
            raise RuntimeError("the figures are there once the monitor has stopped")
        return self._document

    @property
    def summary(self) -> dict[str, Any]:
        """Distributions (p5, p50, p95, mean, max) of each figure, the verdict, the own cost."""
        value: dict[str, Any] = self.timeline["summary"]
        return value

    @property
    def verdict(self) -> dict[str, Any]:
        """The kind of bottleneck: ``bottleneck``, ``id``, ``headline``, ``reasons``,
        ``next_step``."""
        value: dict[str, Any] = self.summary["verdict"]
        return value

    @property
    def samples(self) -> list[dict[str, Any]]:
        """One entry per kept sample."""
        value: list[dict[str, Any]] = self.timeline["samples"]
        return value

    def to_json(self, path: PathLike | None = None, *, indent: int | None = None) -> str:
        """The timeline as JSON text; with `path`, also written there atomically."""
        text = json.dumps(self.timeline, indent=indent, ensure_ascii=False) + "\n"
        if path is not None:
            write_file(path, text)
        return text

    def to_csv(self, path: PathLike | None = None) -> str:
        """The samples as CSV text (one row per sample); with `path`, also written there."""
        self.timeline  # noqa: B018 - raises when still running
        text = self._core.timeline_csv()
        if path is not None:
            write_file(path, text)
        return text

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        if self._document is None:
            return "<stepscope.monitor.Monitor running>"
        return f"<stepscope.monitor.Monitor verdict={self.verdict['id']!r}>"


def monitor(interval: float = 0.1, *, gpus: bool = True) -> Monitor:
    """A monitor to use as ``with monitor(interval=0.1) as mon: ...``.

    Args:
        interval: seconds between samples (0.001 to 3600).
        gpus: sample the GPUs through NVML; where there is none, only the CPU side is sampled.
    """
    return Monitor(interval, gpus=gpus)
