"""Files the recorder writes into the out folder: each appears whole or not at all, since the
owner process and ``stepscope run`` read the folder while other processes still write to it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def replace_atomically(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Writes ``path`` through a hidden file beside it (which readers of the folder skip), then
    renames it into place."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        with open(partial, "wb") as stream:
            write(stream)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
