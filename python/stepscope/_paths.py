"""Paths on their way to the compiled library, and the TraceErrors raised about them from Python.

The library takes a path as a C string, so a NUL byte in it would end the path early there and
another file would be read or written: every path is checked here before it crosses.
"""

from __future__ import annotations

import os

from ._core import (
    BadOptionError,
    LimitExceededError,
    NotJsonError,
    NotTraceError,
    TraceError,
    TraceIOError,
    UnsupportedError,
)

PathLike = str | os.PathLike[str]

# The `kind` of each class, as the library sets it on the errors it raises.
_KINDS: dict[type[TraceError], str] = {
    TraceIOError: "io",
    NotJsonError: "not_json",
    NotTraceError: "not_trace",
    LimitExceededError: "limit_exceeded",
    UnsupportedError: "unsupported",
    BadOptionError: "bad_option",
}


def printable(text: str, *, keep_newlines: bool) -> str:
    # As the library prints names: control characters would drive the terminal.
    kept = "\n\t" if keep_newlines else ""
    return "".join(
        f"\\x{ord(c):02x}" if (ord(c) < 0x20 and c not in kept) or c == "\x7f" else c for c in text
    )


def trace_error(
    kind: type[TraceError],
    message: str,
    *,
    file: str | None,
    byte_offset: int | None = None,
) -> TraceError:
    """A `kind` error worded and filled in as the library's own ("FILE: at byte N: MESSAGE",
    with ``kind``, ``file`` and ``byte_offset``)."""
    parts = [printable(file, keep_newlines=False)] if file else []
    if byte_offset is not None:
        parts.append(f"at byte {byte_offset}")
    parts.append(printable(message, keep_newlines=True))
    error = kind(": ".join(parts))
    vars(error).update(kind=_KINDS[kind], file=file or "", byte_offset=byte_offset)
    return error


def checked_path(path: PathLike) -> str:
    """`path` as the text the library gets.

    Raises:
        BadOptionError: the path holds a NUL byte.
    """
    text = os.fspath(path)
    if isinstance(text, str) and "\x00" in text:
        raise trace_error(BadOptionError, "a path cannot hold a NUL byte", file=text)
    return text
