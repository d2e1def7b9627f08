"""The one way the package writes a file: the compiled library's atomic writer (a temporary file
beside the destination, renamed into place; devices and FIFOs are written through, a symlink is
kept and its target replaced), as the ``stepscope`` command writes its outputs."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable, Sequence

from . import _core
from ._core import BadOptionError, TraceIOError
from ._paths import PathLike, checked_path, trace_error


def write_file(path: PathLike, text: str, *, inputs: Iterable[PathLike] = ()) -> None:
    """Write `text` to `path` atomically; a path naming one of `inputs` is refused.

    Raises:
        TraceIOError: the file cannot be written (an OSError too).
        BadOptionError: `path` is one of `inputs`, or a path holds a NUL byte.
    """
    _core.write_file(checked_path(path), text, [checked_path(item) for item in inputs])


def _file_id(path: str) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino, info.st_mode


def check_outputs(
    outputs: Sequence[tuple[str, PathLike]],
    inputs: Iterable[PathLike] = (),
    *,
    regular_only: bool = False,
) -> None:
    """Check, before any work, that each output can be written and destroys nothing: that it is
    none of `inputs` (the same file through any link or spelling, or a file in an input folder),
    that no two outputs name one file, and that a temporary can be created beside it (created
    and removed again; the output itself is untouched). `outputs` pairs how the user named each
    (``--json``) with its path; ``-`` is standard output. With `regular_only`, an existing output
    that is not a regular file (a folder, a device, a FIFO) is refused too.

    Raises:
        BadOptionError: an output is an input or a folder, two outputs are one file, a path
            holds a NUL byte, or (`regular_only`) an output is not a regular file.
        TraceIOError: a temporary cannot be created beside an output.
    """
    taken: dict[tuple[int, int], str] = {}
    for item in inputs:
        path = checked_path(item)
        found = _file_id(path)
        if found is None:
            continue
        taken.setdefault(found[:2], path)
        if stat.S_ISDIR(found[2]):
            # A folder of traces is read one level deep.
            try:
                entries = list(os.scandir(path))
            except OSError:
                continue  # a folder that cannot be listed cannot be read either
            for entry in entries:
                inner = _file_id(entry.path)
                if inner is not None:
                    taken.setdefault(inner[:2], entry.path)
    claimed: dict[object, str] = {}
    for option, given in outputs:
        path = checked_path(given)
        if path == "-":
            continue
        found = _file_id(path)
        if found is not None and found[:2] in taken:
            raise trace_error(
                BadOptionError,
                f"{option} would overwrite the input {taken[found[:2]]}; choose another "
                "output file",
                file=path,
            )
        if regular_only and found is not None and not stat.S_ISREG(found[2]):
            raise trace_error(
                BadOptionError, f"{option} exists and is not a regular file", file=path
            )
        if found is not None and stat.S_ISDIR(found[2]):
            raise trace_error(
                BadOptionError, f"{option}: cannot write the output: it is a folder", file=path
            )
        key: object = found[:2] if found is not None else os.path.realpath(path)
        if key in claimed and not (found is not None and stat.S_ISCHR(found[2])):
            raise trace_error(
                BadOptionError,
                f"{option} and {claimed[key]} name the same file; give each its own",
                file=path,
            )
        claimed[key] = option
        if found is None or stat.S_ISREG(found[2]):
            _probe(path)


def _probe(path: str) -> None:
    # The temporary goes where the writer would put it: beside the file a symlink points to.
    destination = os.path.realpath(path)
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(destination)}.",
            suffix=".tmp",
            dir=os.path.dirname(destination),
        )
    except OSError as error:
        raise trace_error(
            TraceIOError,
            f"cannot create the output file: {error.strerror or error}",
            file=path,
        ) from error
    os.close(handle)
    os.unlink(temporary)
