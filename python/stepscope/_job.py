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
from ._core import TraceError
from ._output import write_file

__all__ = ["JobReport", "merge", "summarize"]


def summarize(trace_path: str | os.PathLike[str], *, mode: str = "native") -> str:
    """Analyse one rank's trace and return its summary (JSON text) for :func:`merge`.

    Raises:
        TraceError: the trace cannot be read; the message names the file.
    """
    ok, text = _core.summarize_json(os.fspath(trace_path), mode)
    if not ok:
        raise TraceError(text)
    return str(text)


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


def _summary_text(item: str | os.PathLike[str]) -> tuple[str, str]:
    if isinstance(item, str) and item.lstrip().startswith("{"):
        return item, "summary"
    path = os.fspath(item)
    with open(path, encoding="utf-8") as source:
        return source.read(), path


def merge(summaries: Sequence[str | os.PathLike[str]], *, run: int | None = None) -> JobReport:
    """The job report from rank summaries: each item is summary JSON text or a summary file.

    Raises:
        TraceError: a summary cannot be read; the message names it.
    """
    texts: list[str] = []
    names: list[str] = []
    for index, item in enumerate(summaries):
        text, name = _summary_text(item)
        texts.append(text)
        names.append(name if name != "summary" else f"summary {index}")
    ok, document, text = _core.merge_json(texts, names, run)
    if not ok:
        raise TraceError(document)
    return JobReport(str(document), str(text))
