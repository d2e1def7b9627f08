"""The one way the package writes a file: the compiled library's atomic writer (a temporary file
beside the destination, renamed into place; devices and FIFOs are written through, a symlink is
kept and its target replaced), as the ``stepscope`` command writes its outputs."""

from __future__ import annotations

import os

from . import _core

PathLike = str | os.PathLike[str]


def write_file(path: PathLike, text: str, *, inputs: tuple[str, ...] = ()) -> None:
    """Write `text` to `path` atomically; a path naming one of `inputs` is refused.

    Raises:
        TraceIOError: the file cannot be written (an OSError too).
        BadOptionError: `path` is one of `inputs`.
    """
    _core.write_file(os.fspath(path), text, list(inputs))
