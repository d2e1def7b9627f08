"""Where the input pipeline's time goes (docs/run.md): during the recorded window, the Python
stack of the thread that fetches batches is sampled every few milliseconds, in the process that
iterates the DataLoader (``num_workers=0``) and in each DataLoader worker process.

A sample counts for the input pipeline when the DataLoader's fetch (``torch/utils/data/_utils/
fetch.py``) is on the stack; it is charged to the innermost frame of the user's own code below
the fetch (a ``Dataset.__getitem__``, a decode or augmentation function), or, where only library
code runs (collation), to the innermost frame. Sampling rather than ``cProfile``: its cost does
not grow with the number of Python calls, so the times it reports are not inflated by it.

The owner (the process that records the trace) opens the window by creating a flag file in the
out folder; worker processes, which may have started long before, poll for it, sample while it
exists, and write their counts beside it when it is gone. The owner merges them into the
``stepscope_host`` metadata of its trace (docs/stepscope-host.md).

Part of the recorder's own package (``_run``): it imports nothing from the stepscope package.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import sysconfig
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from ._files import replace_atomically

SAMPLE_INTERVAL_S = 0.005
# How often a worker looks for the window: a stat per 20 ms before and after it.
POLL_INTERVAL_S = 0.02
# How long the owner waits for its workers' counts once the window is closed.
COLLECT_TIMEOUT_S = 2.0
TOP_FUNCTIONS = 10

_FETCH_FILE = os.path.join("torch", "utils", "data", "_utils", "fetch.py")


def _library_folders() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    folders = {paths.get(name, "") for name in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(sorted(os.path.join(folder, "") for folder in folders if folder))


_LIBRARY_FOLDERS = _library_folders()


def _is_library(filename: str) -> bool:
    return (
        filename.startswith("<")
        or filename.startswith(_LIBRARY_FOLDERS)
        or "site-packages" in filename
        or "dist-packages" in filename
    )


def flag_path(out: Path, owner_pid: int) -> Path:
    return out / f".input-window-{owner_pid}"


def _result_path(out: Path, owner_pid: int, worker_pid: int) -> Path:
    return out / f".input-samples-{owner_pid}-{worker_pid}.samples"


def _started_path(out: Path, owner_pid: int, worker_pid: int) -> Path:
    return out / f".input-samples-{owner_pid}-{worker_pid}.started"


# A sample's place: the charged frame's file, qualified name, first line, and current line.
Place = tuple[str, str, int, int]


@dataclass
class SampleCounts:
    """Counts of one or more processes' samples."""

    samples: int = 0  # every sample taken in the window
    fetch_samples: int = 0  # those with the DataLoader's fetch on the stack
    processes: int = 0
    places: Counter[Place] = field(default_factory=Counter)

    def add_frame(self, frame: FrameType | None) -> None:
        self.samples += 1
        chain: list[FrameType] = []
        while frame is not None:
            if frame.f_code.co_filename.endswith(_FETCH_FILE):
                break
            chain.append(frame)
            frame = frame.f_back
        if frame is None or not chain:  # not fetching a batch (waiting for an index, idle)
            return
        self.fetch_samples += 1
        charged = next((f for f in chain if not _is_library(f.f_code.co_filename)), chain[0])
        code = charged.f_code
        name = getattr(code, "co_qualname", code.co_name)
        line = charged.f_lineno or code.co_firstlineno
        self.places[(code.co_filename, name, code.co_firstlineno, line)] += 1

    def merge(self, other: SampleCounts) -> None:
        self.samples += other.samples
        self.fetch_samples += other.fetch_samples
        self.processes += other.processes
        self.places.update(other.places)

    def to_transport(self) -> dict[str, Any]:
        """Everything, for a worker's counts on their way to the owner."""
        return {
            "samples": self.samples,
            "fetch_samples": self.fetch_samples,
            "processes": self.processes,
            "places": [[*place, count] for place, count in self.places.items()],
        }

    @staticmethod
    def from_transport(data: dict[str, Any]) -> SampleCounts:
        counts = SampleCounts(
            samples=int(data["samples"]),
            fetch_samples=int(data["fetch_samples"]),
            processes=int(data["processes"]),
        )
        for file, name, first, line, count in data["places"]:
            counts.places[(str(file), str(name), int(first), int(line))] += int(count)
        return counts

    def functions(self) -> list[dict[str, Any]]:
        """Per function, most samples first: its samples and the line most of them were at."""
        lines: dict[tuple[str, str, int], Counter[int]] = {}
        for (file, name, first, line), count in self.places.items():
            lines.setdefault((file, name, first), Counter())[line] += count
        rows = [
            {
                "file": file,
                "function": name,
                "line": first,
                "hottest_line": by_line.most_common(1)[0][0],
                "samples": sum(by_line.values()),
            }
            for (file, name, first), by_line in lines.items()
        ]
        return sorted(rows, key=lambda row: -int(row["samples"]))


class ThreadSampler:
    """Samples one thread's Python stack from a daemon thread until stopped."""

    def __init__(self, thread_ident: int) -> None:
        self.counts = SampleCounts(processes=1)
        self._ident = thread_ident
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name="stepscope-input-sampler", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> SampleCounts:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)
        return self.counts

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_INTERVAL_S):
            self.counts.add_frame(sys._current_frames().get(self._ident))


def _watch_window(out: Path, owner_pid: int, thread_ident: int) -> None:
    """A worker's watcher: waits for the owner's window, samples it, writes the counts."""
    flag = flag_path(out, owner_pid)
    while not flag.exists():
        if not _owner_alive(owner_pid):
            return
        time.sleep(POLL_INTERVAL_S)
    worker_pid = os.getpid()
    try:
        _started_path(out, owner_pid, worker_pid).touch()
    except OSError:
        return
    sampler = ThreadSampler(thread_ident)
    sampler.start()
    while flag.exists():
        time.sleep(POLL_INTERVAL_S)
    counts = sampler.stop()
    with contextlib.suppress(OSError):
        replace_atomically(
            _result_path(out, owner_pid, worker_pid),
            lambda stream: stream.write(json.dumps(counts.to_transport()).encode()),
        )


def _process_running(pid: int) -> bool:
    """False once the process has ended, zombie included (not yet reaped by its parent)."""
    if not os.path.isdir("/proc/self"):
        return True  # cannot tell without /proc: wait for its counts as long as allowed
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            state = stat.read().rpartition(")")[2].split()[:1]
    except OSError:
        return False
    return state not in (["Z"], ["X"], ["x"])


def _owner_alive(owner_pid: int) -> bool:
    return os.getppid() == owner_pid


def watch_from_worker(out: Path) -> None:
    """Called at the start of a DataLoader worker process: watches for its parent's window."""
    owner_pid = os.getppid()
    threading.Thread(
        target=_watch_window,
        args=(out, owner_pid, threading.get_ident()),
        name="stepscope-input-watcher",
        daemon=True,
    ).start()


class InputWindow:
    """The owner's side: opens the window, samples its own fetching thread, gathers the
    workers' counts when it closes."""

    def __init__(self, out: Path) -> None:
        self._out = out
        self._owner = os.getpid()
        self._sampler = ThreadSampler(threading.main_thread().ident or threading.get_ident())

    def open(self) -> None:
        self._out.mkdir(parents=True, exist_ok=True)
        flag_path(self._out, self._owner).touch()
        self._sampler.start()

    def close(self) -> SampleCounts:
        counts = self._sampler.stop()
        flag_path(self._out, self._owner).unlink(missing_ok=True)
        counts.merge(self._gather_workers())
        return counts

    def _gather_workers(self) -> SampleCounts:
        """The counts of every worker that saw the window, waiting briefly for their files."""
        merged = SampleCounts()
        started = list(self._out.glob(f".input-samples-{self._owner}-*.started"))
        deadline = time.monotonic() + COLLECT_TIMEOUT_S
        for marker in started:
            result = marker.with_suffix(".samples")
            pid = marker.stem.rpartition("-")[2]
            worker_pid = int(pid) if pid.isdigit() else -1
            # A worker shut down inside the window (its DataLoader iterator freed, as when a
            # Ctrl-C unwinds the training loop) never writes: waiting for it would only delay
            # the process's exit.
            while (
                not result.exists()
                and time.monotonic() < deadline
                and (worker_pid < 0 or _process_running(worker_pid))
            ):
                time.sleep(0.01)
            # A worker that ended inside the window wrote nothing: its samples are lost.
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                merged.merge(SampleCounts.from_transport(json.loads(result.read_text("utf-8"))))
            for leftover in (marker, result):
                leftover.unlink(missing_ok=True)
        return merged


def input_functions(counts: SampleCounts) -> dict[str, Any]:
    """The ``input_functions`` entry of ``stepscope_host`` (the owner's counts merged with its
    workers'), file names relative to the working folder where they lie inside it."""
    data: dict[str, Any] = {
        "samples": counts.samples,
        "fetch_samples": counts.fetch_samples,
        "processes": counts.processes,
        "worker_processes": max(0, counts.processes - 1),
        "interval_ms": SAMPLE_INTERVAL_S * 1000,
        "functions": counts.functions()[:TOP_FUNCTIONS],
    }
    here = os.getcwd()
    for item in data["functions"]:
        relative = os.path.relpath(item["file"], here) if os.path.isabs(item["file"]) else ""
        if relative and not relative.startswith(os.pardir):
            item["file"] = relative
    return data
