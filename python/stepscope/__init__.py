"""stepscope: a performance doctor for PyTorch profiler (Kineto) traces.

All analysis happens in the compiled library; this package only wraps its results::

    import stepscope

    report = stepscope.analyze("trace.json.gz")
    print(report)                      # the terminal report
    for rank in report.ranks:          # one dict per rank, as in the JSON document
        print(rank["rank"], rank["diagnosis"])
    report.to_json("report.json")      # the JSON document, written atomically
    report.findings[0].title           # typed findings, largest likely saving first

With PyTorch installed, ``stepscope.torch`` profiles, times and diagnoses from inside a script.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from . import _core
from ._core import TraceError
from ._job import JobReport, merge, summarize

__all__ = [
    "CodeLocation",
    "EventRefs",
    "Evidence",
    "ExpectedGain",
    "Finding",
    "JobReport",
    "Mode",
    "Report",
    "SnapshotReport",
    "TraceError",
    "__version__",
    "analyze",
    "memory_snapshot",
    "merge",
    "summarize",
    "version",
]

__version__: str = _core.version()

# The exception stepscope raises for input it cannot read: its message names the file and,
# where known, the byte offset ("FILE: at byte N: MESSAGE").
TraceError.__module__ = __name__

Mode = Literal["native", "compat-hta", "compat-tb"]

PathLike = str | os.PathLike[str]


def version() -> str:
    """The version of the compiled stepscope library."""
    return _core.version()


@dataclass(frozen=True)
class EventRefs:
    """The trace events a figure rests on: a name, how many, when, in which steps."""

    name: str
    count: int
    first_start_us: float
    last_end_us: float
    steps: tuple[int, ...]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EventRefs:
        return cls(
            name=str(data["name"]),
            count=int(data["count"]),
            first_start_us=float(data["first_start_us"]),
            last_end_us=float(data["last_end_us"]),
            steps=tuple(int(step) for step in data["steps"]),
        )


@dataclass(frozen=True)
class Evidence:
    """One figure of a finding: ``value`` in ``unit`` (``"ms/step"``, ``"%"``, ...)."""

    label: str
    value: float
    unit: str
    events: tuple[EventRefs, ...]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Evidence:
        return cls(
            label=str(data["label"]),
            value=float(data["value"]),
            unit=str(data["unit"]),
            events=tuple(EventRefs.from_dict(refs) for refs in data["events"]),
        )


@dataclass(frozen=True)
class ExpectedGain:
    """The saving per step a finding promises: everything (bound) and what the fix typically
    achieves (likely), in µs and as a share of the mean kept step."""

    bound_us_per_step: float
    likely_us_per_step: float
    bound_share_of_step: float
    likely_share_of_step: float
    method: str

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExpectedGain:
        return cls(
            bound_us_per_step=float(data["bound_us_per_step"]),
            likely_us_per_step=float(data["likely_us_per_step"]),
            bound_share_of_step=float(data["bound_share_of_step"]),
            likely_share_of_step=float(data["likely_share_of_step"]),
            method=str(data["method"]),
        )


@dataclass(frozen=True)
class CodeLocation:
    """The user's code behind a finding (traces with Python stacks or module hierarchy): the
    file and line of the first frame outside torch, site-packages and the standard library (the
    line where that function starts, as PyTorch's tracer records it), and the nn.Module path."""

    file: str | None
    line: int | None
    function: str | None
    module_path: str | None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CodeLocation:
        line = data.get("line")
        return cls(
            file=data.get("file"),
            line=None if line is None else int(line),
            function=data.get("function"),
            module_path=data.get("module_path"),
        )


@dataclass(frozen=True)
class Finding:
    """One finding of the diagnosis (docs/json-schema.md, ``diagnosis.findings``)."""

    id: str
    title: str
    severity: str
    bottleneck: str
    phase: str
    rank: int
    evidence: tuple[Evidence, ...]
    fix: str
    expected_gain: ExpectedGain
    code: CodeLocation | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Finding:
        code = data.get("code")
        return cls(
            id=str(data["id"]),
            title=str(data["title"]),
            severity=str(data["severity"]),
            bottleneck=str(data["bottleneck"]),
            phase=str(data["phase"]),
            rank=int(data["rank"]),
            evidence=tuple(Evidence.from_dict(item) for item in data["evidence"]),
            fix=str(data["fix"]),
            expected_gain=ExpectedGain.from_dict(data["expected_gain"]),
            code=None if code is None else CodeLocation.from_dict(code),
        )

    def to_dict(self) -> dict[str, Any]:
        """The finding as in the JSON document (tuples become lists)."""
        data: dict[str, Any] = json.loads(json.dumps(asdict(self)))
        return data

    def __str__(self) -> str:
        return f"[{self.severity}] {self.title} ({self.id}; fix: {self.fix})"


class Report:
    """One analysis: the JSON document (schema ``stepscope.analyze``) and its terminal rendering.

    Top-level sections are attributes (``report.ranks``, ``report.input``, ``report.timing``,
    ...); ``report["section"]`` works as well. ``str(report)`` is the terminal report.
    """

    __slots__ = ("_data", "_source", "_text")

    def __init__(self, data: Mapping[str, Any], text: str = "") -> None:
        self._data: dict[str, Any] = dict(data)
        self._text = text
        # The arguments of the analysis that made it, so to_html() can draw it again.
        self._source: dict[str, Any] | None = None

    @classmethod
    def from_json(cls, document: str, text: str = "") -> Report:
        """A Report from the JSON text that ``stepscope analyze --json`` writes."""
        data = json.loads(document)
        if not isinstance(data, dict):
            raise ValueError("a stepscope report is a JSON object")
        return cls(data, text)

    # The sections every report has.
    @property
    def schema_version(self) -> int:
        value: int = self._data["schema_version"]
        return value

    @property
    def stepscope_version(self) -> str:
        value: str = self._data["stepscope_version"]
        return value

    @property
    def mode(self) -> str:
        value: str = self._data["mode"]
        return value

    @property
    def input(self) -> dict[str, Any]:
        value: dict[str, Any] = self._data["input"]
        return value

    @property
    def timing(self) -> dict[str, Any]:
        value: dict[str, Any] = self._data["timing"]
        return value

    @property
    def ranks(self) -> list[dict[str, Any]]:
        """One entry per rank, sorted by rank."""
        value: list[dict[str, Any]] = self._data["ranks"]
        return value

    @property
    def findings(self) -> list[Finding]:
        """The findings of every rank, largest likely saving first.

        Within a rank this is the report's own order (``ranks[i].diagnosis.findings``, ranked
        by likely saving per step). Across ranks the lists are merged by the same key, stably,
        so equal savings keep rank order: with one trace it is exactly that rank's list.
        """
        merged = [
            Finding.from_dict(item)
            for entry in self.ranks
            for item in entry.get("diagnosis", {}).get("findings", [])
        ]
        merged.sort(key=lambda finding: -finding.expected_gain.likely_us_per_step)
        return merged

    @property
    def bottleneck(self) -> str:
        """The verdict of the first rank (``ranks[0].diagnosis.bottleneck``): ``input_pipeline``,
        ``healthy``, ...; ``undetermined`` for a report without ranks."""
        if not self.ranks:
            return "undetermined"
        value: str = self.ranks[0].get("diagnosis", {}).get("bottleneck", "undetermined")
        return value

    def rank(self, number: int) -> dict[str, Any]:
        """The section of rank `number`; KeyError when the report has no such rank."""
        for entry in self.ranks:
            if entry.get("rank") == number:
                return entry
        raise KeyError(f"no rank {number} in this report")

    def __getattr__(self, name: str) -> Any:
        # Only called for names that are not attributes: the other top-level sections.
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(
                f"the report has no section {name!r} (sections: {', '.join(self._data)})"
            ) from None

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | {k for k in self._data if k.isidentifier()})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Report) and self._data == other._data

    __hash__ = None  # type: ignore[assignment]

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the JSON document as plain Python data."""
        copy: dict[str, Any] = json.loads(json.dumps(self._data))
        return copy

    def to_json(self, path: PathLike | None = None, *, indent: int | None = 2) -> str:
        """The JSON document as text; with `path`, also written there atomically.

        The file is written to a temporary file in the same folder and renamed into place, so a
        failure never leaves a partial file that looks complete.
        """
        text = json.dumps(self._data, indent=indent, ensure_ascii=False) + "\n"
        if path is not None:
            _write_atomically(os.fspath(path), text)
        return text

    def to_html(self, path: PathLike | None = None, *, top: int | None = None) -> str:
        """The self-contained HTML report (as ``stepscope report`` writes it); written to
        ``path`` atomically when given. The trace is analysed again for the pictures.

        Raises:
            ValueError: the report was read from JSON, so there is no trace to draw.
        """
        if self._source is None:
            raise ValueError("to_html() needs a Report from stepscope.analyze(), not from JSON")
        arguments = dict(self._source)
        if top is not None:
            arguments["top"] = top
        html = _core.analyze_html(**arguments)
        if path is not None:
            _write_atomically(os.fspath(path), html)
        return html

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        ranks = [entry.get("rank") for entry in self.ranks]
        path = self.input.get("path", "?")
        return f"<stepscope.Report {path!r} mode={self.mode} ranks={ranks}>"


def _write_atomically(path: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(
        prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder
    )
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def analyze(
    path: PathLike,
    *,
    mode: Mode = "native",
    rank: int | None = None,
    steps: tuple[int, int] | None = None,
    top: int = 10,
    skip_bad: bool = False,
    threads: int = 2,
) -> Report:
    """Analyse a trace file (``.json``, ``.json.gz``) or a folder with one trace per rank.

    Args:
        path: the trace file or folder.
        mode: ``"native"`` (stepscope's definitions), ``"compat-hta"`` or ``"compat-tb"``
            (reproduce Holistic Trace Analysis' or the TensorBoard plugin's figures).
        rank: analyse only this rank.
        steps: analyse only the kept profiler steps ``(first, last)``, inclusive.
        top: rows in top-N tables.
        skip_bad: in a folder, skip files that fail to load (they are listed in the report).
        threads: 1 parses on one thread, 2 splits and parses in parallel, 0 picks by size.

    Raises:
        TraceError: the input cannot be read; the message names the file.
        ValueError: an argument is out of range.
    """
    arguments: dict[str, Any] = {
        "path": os.fspath(path),
        "mode": mode,
        "rank": rank,
        "steps": None if steps is None else (int(steps[0]), int(steps[1])),
        "top": top,
        "skip_bad": skip_bad,
        "threads": threads,
    }
    document, text = _core.analyze_both(**arguments)
    report = Report.from_json(document, text)
    report._source = arguments
    return report


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
        text = json.dumps(self._data, indent=indent)
        if path is not None:
            _write_atomically(os.fspath(path), text + "\n")
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
    document, text = _core.memory_snapshot(os.fspath(path), top=top)
    return SnapshotReport(json.loads(document), text)
