"""``stepscope.diff()``: two runs compared as ``stepscope diff BEFORE AFTER`` compares them, held
by the compiled library (``_core.NativeDiff``) and rendered from it."""

from __future__ import annotations

import json
import os
from typing import Any

from . import _core
from ._paths import checked_path
from ._report import Mode

__all__ = ["DiffReport", "diff"]

PathLike = str | os.PathLike[str]

# `stepscope diff --fail-if-slower`: the exit status when the after run is slower beyond it.
EXIT_SLOWER = 3


class DiffReport:
    """The comparison (schema ``stepscope.diff``): step time with a bootstrap 95 % interval and
    a verdict, and what changed per phase, op, kernel and finding. ``str(diff)`` is the terminal
    report."""

    __slots__ = ("_data", "_fail_if_slower", "_native", "_text")

    def __init__(self, native: _core.NativeDiff, fail_if_slower: float | None = None) -> None:
        self._native = native
        self._fail_if_slower = fail_if_slower
        self._data: dict[str, Any] | None = None
        self._text: str | None = None

    @property
    def verdict(self) -> str:
        """``faster``, ``slower``, ``no significant change`` or ``undetermined``."""
        return self._native.verdict

    def slower_beyond(self, percent: float) -> bool:
        """Whether the after run is slower than `percent` % with 95 % confidence (the lower
        bound of the interval of after / before exceeds 1 + percent / 100)."""
        return self._native.slower_beyond(percent)

    @property
    def exit_code(self) -> int:
        """What ``stepscope diff`` would exit with: 3 when ``fail_if_slower`` was given and the
        after run is slower beyond it, else 0."""
        if self._fail_if_slower is not None and self.slower_beyond(self._fail_if_slower):
            return EXIT_SLOWER
        return 0

    @property
    def step_change(self) -> dict[str, float]:
        """Mean step times (ns), the change as a share of before, the ratio after / before
        and its interval (``ratio_low``, ``ratio_high``) at ``confidence``."""
        return self._native.step_change()

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the JSON document as plain Python data."""
        if self._data is None:
            self._data = json.loads(self._native.to_json())
        copy: dict[str, Any] = json.loads(json.dumps(self._data))
        return copy

    def to_json(self, path: PathLike | None = None, *, indent: int | None = None) -> str:
        """The JSON document as ``stepscope diff --json`` writes it (laid out with `indent`
        when given); with `path`, also written there atomically."""
        if path is None:
            return self._native.to_json(indent)
        return self._native.write_json(checked_path(path), indent)

    def to_text(self, path: PathLike | None = None, *, top: int | None = None) -> str:
        """The terminal report; with `path`, also written there atomically."""
        if path is None:
            return self._native.to_text(top)
        return self._native.write_text(checked_path(path), top)

    def to_html(self, path: PathLike | None = None) -> str:
        """The self-contained HTML page (as ``stepscope diff --html``); with `path`, also
        written there atomically."""
        if path is None:
            return self._native.to_html()
        return self._native.write_html(checked_path(path))

    def __str__(self) -> str:
        if self._text is None:
            self._text = self._native.to_text()
        return self._text

    def __repr__(self) -> str:
        return f"<stepscope.DiffReport verdict={self.verdict!r}>"


def diff(
    before: PathLike,
    after: PathLike,
    *,
    mode: Mode = "native",
    rank: int | None = None,
    steps: tuple[int, int] | None = None,
    top: int = 10,
    skip_bad: bool = False,
    threads: int = 0,
    group_by_shape: bool = False,
    hta_rounding: bool = True,
    seed: int = 1,
    resamples: int = 10000,
    fail_if_slower: float | None = None,
) -> DiffReport:
    """Compare two runs (trace files or folders), with the options of ``stepscope diff``.

    Args:
        before, after: the runs' trace files or folders.
        mode, rank, steps, top, skip_bad, threads, group_by_shape, hta_rounding: as for
            :func:`stepscope.analyze`, applied to both sides (threads 0 picks by size).
        seed: bootstrap seed (the same seed gives the same interval).
        resamples: bootstrap resamples, 100 to 1000000.
        fail_if_slower: a percentage; ``exit_code`` is 3 when the after run is slower than it
            with 95 % confidence.

    Raises:
        TraceError: a run cannot be read (the subclass says why; the message names the file).
        BadOptionError: an argument is out of range, or a path holds a NUL byte.
    """
    if fail_if_slower is not None and not fail_if_slower >= 0:
        raise _core.BadOptionError("fail_if_slower must be a percentage of at least 0")
    native = _core.diff(
        checked_path(before),
        checked_path(after),
        mode=mode,
        rank=rank,
        steps=None if steps is None else (int(steps[0]), int(steps[1])),
        top=top,
        skip_bad=skip_bad,
        threads=threads,
        group_by_shape=group_by_shape,
        hta_rounding=hta_rounding,
        seed=seed,
        resamples=resamples,
    )
    return DiffReport(native, fail_if_slower)
