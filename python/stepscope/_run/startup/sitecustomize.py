"""stepscope run's start-up hook (docs/run.md): chains the ``sitecustomize`` this one hides,
then installs stepscope's recorder, which waits for the script to import torch.

Loaded by file path, not through the ``stepscope`` package, so that a process that never
imports torch pays for a few small files and nothing else.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import types

_HERE = os.path.dirname(os.path.abspath(__file__))


def _same_folder(entry: str) -> bool:
    try:
        return os.path.samefile(entry or os.curdir, _HERE)
    except OSError:
        return False


def _chain_hidden_sitecustomize() -> None:
    """Runs the ``sitecustomize`` that Python would have found without this folder."""
    others = [entry for entry in sys.path if not _same_folder(entry)]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", others)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["_stepscope_chained_sitecustomize"] = module
    spec.loader.exec_module(module)


def _load_recorder() -> types.ModuleType | None:
    """The ``_run`` folder as a package of its own (``_stepscope_run``): the recorder's modules
    find each other without importing the ``stepscope`` package."""
    folder = os.path.dirname(_HERE)
    spec = importlib.util.spec_from_file_location(
        "_stepscope_run", os.path.join(folder, "__init__.py"), submodule_search_locations=[folder]
    )
    if spec is None or spec.loader is None:
        return None
    package = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = package
    spec.loader.exec_module(package)
    return importlib.import_module("_stepscope_run._recorder")


def _start() -> None:
    try:
        _chain_hidden_sitecustomize()
    finally:
        if os.environ.get("STEPSCOPE_RUN_DISABLE", "") in ("", "0"):
            try:
                recorder = _load_recorder()
                if recorder is not None:
                    recorder.install_from_environment()
            except Exception as error:  # never stop the user's program
                print(f"stepscope run: recorder not installed: {error}", file=sys.stderr)


_start()
