"""``stepscope.analyze()`` and the Report it returns.

The analysis runs once, in the compiled library, which keeps it (``_core.NativeReport``); the
terminal report, the HTML page, the JSON document, the findings and the annotated trace are all
rendered from that object, never from a second reading of the trace. The JSON document is parsed
only when a section of it is asked for, and then once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

from . import _core
from ._findings import Finding
from ._output import write_file
from ._paths import checked_path

if TYPE_CHECKING:
    import pandas

__all__ = ["Mode", "Report", "Table", "analyze"]

Mode = Literal["native", "compat-hta", "compat-tb"]
# The tables to_pandas() builds, one row per entry of every rank.
Table = Literal["findings", "steps", "operators", "kernels"]

PathLike = str | os.PathLike[str]


class Report:
    """One analysis: the JSON document (schema ``stepscope.analyze``) and its renderings.

    Top-level sections are attributes (``report.ranks``, ``report.input``, ``report.timing``,
    ...); ``report["section"]`` works as well. ``str(report)`` is the terminal report.
    """

    __slots__ = ("_data", "_native", "_text")

    def __init__(self, data: Mapping[str, Any], text: str = "") -> None:
        self._data: dict[str, Any] | None = dict(data)
        self._text: str | None = text
        # The library's report, for a Report from analyze(); None for one read from JSON.
        self._native: _core.NativeReport | None = None

    @classmethod
    def from_json(cls, document: str, text: str = "") -> Report:
        """A Report from the JSON text that ``stepscope analyze --json`` writes."""
        data = json.loads(document)
        if not isinstance(data, dict):
            raise ValueError("a stepscope report is a JSON object")
        return cls(data, text)

    @classmethod
    def _from_native(cls, native: _core.NativeReport) -> Report:
        report = cls({})
        report._data = None
        report._text = None
        report._native = native
        return report

    @property
    def _document(self) -> dict[str, Any]:
        """The JSON document, parsed on first use."""
        if self._data is None:
            assert self._native is not None
            self._data = json.loads(self._native.to_json())
        return self._data

    def _require_native(self, what: str) -> _core.NativeReport:
        if self._native is None:
            raise ValueError(f"{what} needs a Report from stepscope.analyze(), not from JSON")
        return self._native

    # The sections every report has.
    @property
    def schema_version(self) -> int:
        value: int = self._document["schema_version"]
        return value

    @property
    def stepscope_version(self) -> str:
        value: str = self._document["stepscope_version"]
        return value

    @property
    def mode(self) -> str:
        value: str = self._document["mode"]
        return value

    @property
    def input(self) -> dict[str, Any]:
        value: dict[str, Any] = self._document["input"]
        return value

    @property
    def timing(self) -> dict[str, Any]:
        value: dict[str, Any] = self._document["timing"]
        return value

    @property
    def ranks(self) -> list[dict[str, Any]]:
        """One entry per rank, sorted by rank."""
        value: list[dict[str, Any]] = self._document["ranks"]
        return value

    @property
    def findings(self) -> list[Finding]:
        """The findings of every rank, largest likely saving first.

        Within a rank this is the report's own order (``ranks[i].diagnosis.findings``, ranked
        by likely saving per step). Across ranks the lists are merged by the same key, stably,
        so equal savings keep rank order: with one trace it is exactly that rank's list.
        """
        if self._native is not None:
            entries = self._native.findings()
        else:
            entries = [
                item
                for entry in self.ranks
                for item in entry.get("diagnosis", {}).get("findings", [])
            ]
        merged = [Finding.from_dict(item) for item in entries]
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
            return self._document[name]
        except KeyError:
            raise AttributeError(
                f"the report has no section {name!r} (sections: {', '.join(self._document)})"
            ) from None

    def __getitem__(self, key: str) -> Any:
        return self._document[key]

    def __contains__(self, key: object) -> bool:
        return key in self._document

    def __iter__(self) -> Iterator[str]:
        return iter(self._document)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | {k for k in self._document if k.isidentifier()})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Report) and self._document == other._document

    __hash__ = None  # type: ignore[assignment]

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the JSON document as plain Python data."""
        copy: dict[str, Any] = json.loads(json.dumps(self._document))
        return copy

    def to_json(self, path: PathLike | None = None, *, indent: int | None = 2) -> str:
        """The JSON document as text; with `path`, also written there atomically.

        The file is written to a temporary file in the same folder and renamed into place, so a
        failure never leaves a partial file that looks complete. A path naming the analysed
        trace is refused (BadOptionError), as by ``stepscope analyze --json``.
        """
        if self._native is not None:
            if path is None:
                return self._native.to_json(indent)
            return self._native.write_json(checked_path(path), indent)
        text = json.dumps(self._document, indent=indent, ensure_ascii=False) + "\n"
        if path is not None:
            write_file(path, text)
        return text

    def to_text(
        self, path: PathLike | None = None, *, top: int | None = None, width: int = 100
    ) -> str:
        """The terminal report (``top`` rows per table, default the analysis' own; no line
        longer than ``width`` columns); written to ``path`` atomically when given."""
        if self._native is None:
            if top is not None or self._text is None:
                raise ValueError("to_text(top=...) needs a Report from stepscope.analyze()")
            text = self._text
        elif path is not None:
            return self._native.write_text(checked_path(path), top, width)
        else:
            text = self._native.to_text(top, width)
        if path is not None:
            write_file(path, text)
        return text

    def to_html(self, path: PathLike | None = None, *, top: int | None = None) -> str:
        """The self-contained HTML report (as ``stepscope report`` writes it), drawn from this
        analysis without reading the trace again; written to ``path`` atomically when given.

        Raises:
            ValueError: the report was read from JSON, so there is no analysis to draw.
        """
        native = self._require_native("to_html()")
        if path is None:
            return native.to_html(top)
        return native.write_html(checked_path(path), top)

    def annotate(self, out_path: PathLike) -> None:
        """Write the analysed trace with the findings as markers on a process of their own, as
        ``stepscope analyze TRACE --annotate OUT`` does (gzip when `out_path` ends in ``.gz``),
        for Perfetto or chrome://tracing. One trace file only, not a folder.

        Raises:
            BadOptionError: the report is of a folder, or `out_path` names the trace.
            TraceIOError: the trace cannot be read again or the output cannot be written.
        """
        self._require_native("annotate()").annotate(checked_path(out_path))

    def what_if(
        self,
        *,
        loader: float | None = None,
        no_syncs: bool = False,
        launch_us: float | None = None,
        ops: Mapping[str, float] | None = None,
        kernels: Mapping[str, float] | None = None,
        tensor_cores: bool = False,
    ) -> dict[str, Any]:
        """The first rank's kept steps re-timed under a change, as ``stepscope whatif`` does:
        the step predicted and the critical path before and after (the JSON keys of
        ``stepscope whatif --json``, times in µs).

        Args:
            loader: share of the data-loading wait left; 0: every batch ready at once.
            no_syncs: blocking calls (synchronize, ``.item()``) stop waiting for the GPU.
            launch_us: each launch call costs at most this many µs (CUDA graphs: about 2).
            ops: op name to how many times faster, e.g. ``{"aten::mm": 2.0}``.
            kernels: kernel group (``fp32-matmul`` or ``communication``) to how many times
                faster, e.g. ``{"communication": 2.0}``.
            tensor_cores: fp32 matmul kernels on tensor cores at the GPU's half-precision peak,
                with the casts autocast adds.

        Raises:
            BadOptionError: nothing to change, a value out of range, or a folder of ranks.
        """
        native = self._require_native("what_if()")
        op_texts = [f"{name}={factor}x" for name, factor in (ops or {}).items()]
        kernel_texts = [f"{group}={factor}x" for group, factor in (kernels or {}).items()]
        result: dict[str, Any] = json.loads(
            native.what_if_json(
                loader=loader,
                no_syncs=no_syncs,
                launch_us=launch_us,
                ops=op_texts,
                kernels=kernel_texts,
                tensor_cores=tensor_cores,
            )
        )
        return result

    def to_pandas(self, table: Table = "findings") -> pandas.DataFrame:
        """One of the report's tables as a DataFrame, one row per entry and a ``rank`` column:
        ``findings`` (flattened, times in µs), ``steps``, ``operators`` or ``kernels`` (the
        columns of the JSON document, whose names carry their units). Needs pandas."""
        try:
            import pandas
        except ImportError as error:  # pragma: no cover - depends on the environment
            raise ImportError("to_pandas() needs pandas: pip install pandas") from error
        if table == "findings":
            rows = [finding.to_dict() for finding in self.findings]
            return pandas.json_normalize(rows)
        if table not in _TABLE_ROWS:
            raise ValueError(f"table must be one of {', '.join(_TABLES)}, not {table!r}")
        rows = [
            {"rank": entry.get("rank"), **row}
            for entry in self.ranks
            for row in _TABLE_ROWS[table](entry)
        ]
        return pandas.json_normalize(rows)

    def __str__(self) -> str:
        if self._text is None:
            assert self._native is not None
            self._text = self._native.to_text()
        return self._text

    def __repr__(self) -> str:
        ranks = [entry.get("rank") for entry in self.ranks]
        path = self.input.get("path", "?")
        return f"<stepscope.Report {path!r} mode={self.mode} ranks={ranks}>"


def _steps_rows(rank: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = rank.get("steps", {}).get("steps", [])
    return rows


def _operators_rows(rank: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = rank.get("operators", {}).get("rows", [])
    return rows


def _kernels_rows(rank: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The top kernels of each device (``kernels.devices[].top``), with a ``device`` column."""
    return [
        {"device": device.get("device"), **row}
        for device in rank.get("kernels", {}).get("devices", [])
        for row in device.get("top", [])
    ]


_TABLE_ROWS = {"steps": _steps_rows, "operators": _operators_rows, "kernels": _kernels_rows}
_TABLES = ("findings", *_TABLE_ROWS)


def analyze(
    path: PathLike,
    *,
    mode: Mode = "native",
    rank: int | None = None,
    steps: tuple[int, int] | None = None,
    top: int = 10,
    skip_bad: bool = False,
    threads: int = 0,
    group_by_shape: bool = False,
    hta_rounding: bool = True,
) -> Report:
    """Analyse a trace file (PyTorch profiler ``.json`` / ``.json.gz``, Nsight Systems ``.sqlite``
    / ``.nsys-rep``) or a folder with one trace per rank.

    Args:
        path: the trace file or folder.
        mode: ``"native"`` (stepscope's definitions), ``"compat-hta"`` or ``"compat-tb"``
            (reproduce Holistic Trace Analysis' or the TensorBoard plugin's figures).
        rank: analyse only this rank.
        steps: analyse only the kept profiler steps ``(first, last)``, inclusive.
        top: rows in top-N tables.
        skip_bad: in a folder, skip files that fail to load (they are listed in the report).
        threads: 1 runs on one thread, 2 imports and analyses on two, 0 picks by size.
        group_by_shape: the operator table per input shape as well as per name.
        hta_rounding: compat-hta only: emulate HTA's µs rounding (False keeps nanoseconds).

    Raises:
        TraceError: the input cannot be read; the message names the file. The subclass says
            why: TraceIOError, NotJsonError, NotTraceError, LimitExceededError,
            UnsupportedError.
        BadOptionError: an argument is out of range, or the path holds a NUL byte (a
            TraceError and a ValueError).
    """
    native = _core.analyze(
        checked_path(path),
        mode=mode,
        rank=rank,
        steps=None if steps is None else (int(steps[0]), int(steps[1])),
        top=top,
        skip_bad=skip_bad,
        threads=threads,
        group_by_shape=group_by_shape,
        hta_rounding=hta_rounding,
    )
    return Report._from_native(native)
