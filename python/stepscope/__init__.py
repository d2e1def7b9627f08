"""stepscope: a performance doctor for PyTorch profiler (Kineto) traces.

All analysis happens in the compiled library; this package only wraps its results::

    import stepscope

    report = stepscope.analyze("trace.json.gz")
    print(report)                      # the terminal report
    for rank in report.ranks:          # one dict per rank, as in the JSON document
        print(rank["rank"], rank["diagnosis"])
    report.to_json("report.json")      # the JSON document, written atomically
    report.findings[0].title           # typed findings, largest likely saving first
    report.to_html("report.html")      # drawn from the same analysis, not a second one
    change = stepscope.diff("before.json.gz", "after.json.gz")
    print(change.verdict)              # faster, slower, no significant change, undetermined

With PyTorch installed, ``stepscope.torch`` profiles, times and diagnoses from inside a script.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from . import _core
from ._core import (
    BadOptionError,
    LimitExceededError,
    NotJsonError,
    NotTraceError,
    TraceError,
    TraceIOError,
    UnsupportedError,
)
from ._diff import DiffReport, diff
from ._findings import CodeLocation, EventRefs, Evidence, ExpectedGain, Finding
from ._job import JobReport, Summary, merge, summarize
from ._output import write_file
from ._paths import checked_path
from ._report import Mode, Report, Table, analyze

__all__ = [
    "BadOptionError",
    "CodeLocation",
    "DiffReport",
    "EventRefs",
    "Evidence",
    "ExpectedGain",
    "Finding",
    "JobReport",
    "LimitExceededError",
    "Mode",
    "NotJsonError",
    "NotTraceError",
    "Report",
    "SnapshotReport",
    "Summary",
    "Table",
    "TraceError",
    "TraceIOError",
    "UnsupportedError",
    "__version__",
    "analyze",
    "diff",
    "memory_snapshot",
    "merge",
    "summarize",
    "version",
]

__version__: str = _core.version()

# The exceptions stepscope raises for input it cannot read: the message names the file and,
# where known, the byte offset ("FILE: at byte N: MESSAGE"); the instance has `kind`, `file` and
# `byte_offset` too. One subclass per kind of failure, all ValueErrors; TraceIOError is an
# OSError as well.
for _error in (
    TraceError,
    TraceIOError,
    NotJsonError,
    NotTraceError,
    LimitExceededError,
    UnsupportedError,
    BadOptionError,
):
    _error.__module__ = __name__
del _error

PathLike = str | os.PathLike[str]


def version() -> str:
    """The version of the compiled stepscope library."""
    return _core.version()


class SnapshotReport:
    """What a CUDA memory snapshot says (schema ``stepscope.memory_snapshot``, see
    docs/json-schema.md): per device the allocator's state and the allocation trace's peak and
    never-freed allocations by site. ``str(report)`` is the terminal report."""

    __slots__ = ("_data", "_text")

    def __init__(self, data: Mapping[str, Any], text: str = "") -> None:
        self._data: dict[str, Any] = dict(data)
        self._text = text

    @property
    def devices(self) -> list[dict[str, Any]]:
        value: list[dict[str, Any]] = self._data["devices"]
        return value

    def to_dict(self) -> dict[str, Any]:
        return json.loads(json.dumps(self._data))  # type: ignore[no-any-return]

    def to_json(self, path: PathLike | None = None, *, indent: int | None = 2) -> str:
        """The JSON document as text; with `path`, also written there atomically."""
        text = json.dumps(self._data, indent=indent)
        if path is not None:
            write_file(path, text + "\n")
        return text

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"<stepscope.SnapshotReport {self._data.get('file')!r}>"


def memory_snapshot(path: PathLike, *, top: int = 10) -> SnapshotReport:
    """Read a snapshot written by ``torch.cuda.memory._dump_snapshot()`` (plain or gzip) with
    stepscope's own pickle reader, which never executes anything from the file.

    Raises:
        TraceError: the file is not a readable snapshot; the message names it and the byte.
    """
    document, text = _core.memory_snapshot(checked_path(path), top=top)
    return SnapshotReport(json.loads(document), text)
