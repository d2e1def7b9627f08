"""The job analysis from Python: summarise one rank's trace (map), merge summaries (reduce).

All the analysis runs in the compiled library; ``merge`` over summaries gives exactly the
``job`` object of ``stepscope analyze FOLDER --json``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from . import _core
from ._core import NotJsonError, TraceIOError
from ._output import write_file
from ._paths import checked_path, trace_error

__all__ = ["JobReport", "Summary", "merge", "summarize"]


class Summary(str):
    """One rank's summary as JSON text, as :func:`summarize` returns it. :func:`merge` reads a
    plain ``str`` as a path, so summary text from elsewhere (a database, a message queue) is
    passed wrapped: ``merge([Summary(text), "rank1.summary.json"])``."""

    __slots__ = ()


def summarize(trace_path: str | os.PathLike[str], *, mode: str = "native") -> Summary:
    """Analyse one rank's trace and return its summary (JSON text) for :func:`merge`.

    Raises:
        TraceError: the trace cannot be read; the message names the file and the subclass says
            why, as for :func:`stepscope.analyze`. BadOptionError for an unknown `mode` or a
            path holding a NUL byte.
    """
    path = checked_path(trace_path)
    if os.path.isdir(path):
        # The loader would read a folder as one trace per rank; a summary is of one file.
        raise trace_error(TraceIOError, "cannot open: it is a folder", file=path)
    return Summary(_core.summarize_json(path, mode))


class JobReport:
    """The job-level report: ``.job`` is the ``job`` object of the JSON document."""

    def __init__(self, document: str, text: str) -> None:
        self._document = document
        self._text = text
        parsed: dict[str, Any] = json.loads(document)
        self.job: dict[str, Any] = parsed["job"]

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """The JSON document (``{"schema": "stepscope.job", ..., "job": {...}}``); written to
        ``path`` too when given, atomically."""
        if path is not None:
            write_file(path, self._document)
        return self._document

    def to_text(self) -> str:
        """The job section of the terminal report."""
        return self._text

    def __str__(self) -> str:
        return self._text


def _summary_text(item: Summary | str | os.PathLike[str]) -> tuple[str, str | None]:
    """The text of one item and the file it came from (None for a Summary)."""
    if isinstance(item, Summary):
        return str(item), None
    path = checked_path(item)
    try:
        with open(path, "rb") as source:
            data = source.read()
    except OSError as error:
        raise trace_error(
            TraceIOError, f"cannot open: {error.strerror or error}", file=path
        ) from error
    try:
        return data.decode("utf-8"), path
    except UnicodeDecodeError as error:
        raise trace_error(
            NotJsonError, "not a JSON summary: not UTF-8 text", file=path, byte_offset=error.start
        ) from error


def merge(
    summaries: Sequence[Summary | str | os.PathLike[str]], *, run: int | None = None
) -> JobReport:
    """The job report from rank summaries: each item is a :class:`Summary` (the text
    :func:`summarize` returns) or the path of a summary file (``stepscope summarize -o``). A
    ``str`` is always a path, whatever it holds.

    Raises:
        TraceIOError: a summary file cannot be read.
        NotJsonError: a summary is not JSON (not UTF-8, or malformed).
        NotTraceError: a summary is JSON but not a stepscope rank summary.
        BadOptionError: no summaries, or a path holding a NUL byte.
        Each names the summary in ``.file``: its path, or ``summary N`` for the N-th item given
        as a Summary.
    """
    if isinstance(summaries, str | os.PathLike):
        # One path would otherwise be read as a sequence of one-character paths.
        raise TypeError("merge() takes a sequence of summaries, not one")
    texts: list[str] = []
    names: list[str] = []
    for index, item in enumerate(summaries):
        text, name = _summary_text(item)
        texts.append(text)
        names.append(name if name is not None else f"summary {index}")
    document, text = _core.merge_json(texts, names, run)
    return JobReport(document, text)
