"""The one way the package writes a file: the compiled library's atomic writer (a temporary file
beside the destination, renamed into place; devices and FIFOs are written through, a symlink is
kept and its target replaced), as the ``stepscope`` command writes its outputs."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence

from . import _core
from ._core import BadOptionError
from ._paths import PathLike, checked_path, trace_error


def write_file(path: PathLike, text: str, *, inputs: Iterable[PathLike] = ()) -> None:
    """Write `text` to `path` atomically; a path naming one of `inputs` is refused.

    Raises:
        TraceIOError: the file cannot be written (an OSError too).
        BadOptionError: `path` is one of `inputs`, or a path holds a NUL byte.
    """
    _core.write_file(checked_path(path), text, [checked_path(item) for item in inputs])


def check_outputs(
    outputs: Sequence[tuple[str, PathLike]],
    inputs: Iterable[PathLike] = (),
    *,
    regular_only: bool = False,
) -> None:
    """Check, before any work, what the ``stepscope`` command checks: that no output is one of
    `inputs` (the same file through any link or spelling, or a trace in an input folder), that
    no two outputs name one file, and that each can be written (a temporary is created beside it
    and removed; the output itself is untouched). `outputs` pairs how the user named each
    (``--json``) with its path; ``-`` is standard output. With `regular_only`, an existing output
    that is not a regular file (a device, a FIFO) is refused too.

    Raises:
        BadOptionError: an output is an input or a folder, two outputs are one file, a path
            holds a NUL byte, or (`regular_only`) an output is not a regular file.
        TraceIOError: an output cannot be written.
    """
    named = [(option, checked_path(path)) for option, path in outputs]
    for option, path in named:
        if path == "-" or not regular_only:
            continue
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue  # not there yet: written as a new regular file
        if not stat.S_ISREG(mode):
            raise trace_error(
                BadOptionError, f"{option} exists and is not a regular file", file=path
            )
    _core.check_outputs([checked_path(item) for item in inputs], named)
