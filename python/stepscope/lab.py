"""The labs from the command line::

    python -m stepscope.lab inference MODULE:FUNCTION [--json PATH|-] [--html PATH]
    stepscope-lab inference MODULE:FUNCTION ...

``MODULE:FUNCTION`` names a function without arguments (MODULE a dotted module importable from
the current directory, or a path to a ``.py`` file) returning ``(model, example_input)`` or a
dict with ``model`` and ``example`` (also ``generate``, ``make_batch``, and any other keyword
argument of :func:`stepscope.torch.inference_lab`, which the command-line options override).
It prints the table and the reading; ``--json`` writes the result (``-`` for standard output,
the table then going to standard error), ``--html`` a self-contained page. Both are checked
before anything runs, and neither may name the model's file or a module it imports. Ctrl-C ends
the lab with one line and exit status 130.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ._core import TraceError
from ._output import check_outputs, write_file

# The exit status of a lab stopped by Ctrl-C: 128 + SIGINT.
EXIT_INTERRUPTED = 130


def _split(target: str) -> tuple[str, str]:
    module_name, colon, function_name = target.rpartition(":")
    if not colon or not module_name or not function_name:
        raise SystemExit(f"stepscope-lab: expected MODULE:FUNCTION, got {target!r}")
    return module_name, function_name


def _is_file(module_name: str) -> bool:
    return module_name.endswith(".py") or os.sep in module_name


def _importable_from_cwd() -> None:
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())


def _source_file(target: str) -> str | None:
    """The file MODULE:FUNCTION names, found without running it (a dotted module's parent
    packages are imported); None when it cannot be found, which loading then reports."""
    module_name, _ = _split(target)
    if _is_file(module_name):
        return module_name
    _importable_from_cwd()
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None and spec.has_location else None


def _load(target: str) -> Any:
    module_name, function_name = _split(target)
    if _is_file(module_name):
        path = Path(module_name)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None or not path.is_file():
            raise SystemExit(f"stepscope-lab: cannot load {module_name}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
    else:
        _importable_from_cwd()
        module = importlib.import_module(module_name)
    function = getattr(module, function_name, None)
    if not callable(function):
        raise SystemExit(f"stepscope-lab: {module_name} has no function {function_name}")
    return function()


def _module_files(names: Iterable[str]) -> list[str]:
    files = (getattr(sys.modules.get(name), "__file__", None) for name in names)
    return [file for file in files if isinstance(file, str)]


def _check_outputs(outputs: list[tuple[str, str]], inputs: list[str]) -> None:
    """Every output writable and none of the inputs, else exit before the lab runs."""
    try:
        check_outputs(outputs, inputs, regular_only=True)
    except TraceError as error:
        raise SystemExit(f"stepscope-lab: {error}") from None


def _inference(args: argparse.Namespace) -> int:
    named = (("--json", args.json), ("--html", args.html))
    outputs = [(option, path) for option, path in named if path]
    source = _source_file(args.target)
    inputs = [source] if source else []
    _check_outputs(outputs, inputs)
    try:
        from .torch import inference_lab
    except ImportError as error:
        raise SystemExit(f"stepscope-lab: {error}") from error

    imported = set(sys.modules)
    loaded = _load(args.target)
    # What the target imported, its own helpers among them, is known only once it has run.
    inputs += _module_files(set(sys.modules) - imported)
    _check_outputs(outputs, inputs)
    options: dict[str, Any]
    if isinstance(loaded, dict):
        options = dict(loaded)
        if "model" not in options or "example" not in options:
            raise SystemExit("stepscope-lab: the dict needs 'model' and 'example'")
        model = options.pop("model")
        example = options.pop("example")
    elif isinstance(loaded, tuple | list) and len(loaded) == 2:
        model, example = loaded
        options = {}
    else:
        raise SystemExit(
            "stepscope-lab: the function must return (model, example) or a dict with them"
        )
    given = {
        "device": args.device,
        "warmup": args.warmup,
        "iters": args.iters,
        "max_batch": args.max_batch,
        "max_latency_ms": args.max_latency_ms,
        "p99_ms": args.p99_ms,
        "time_budget_s": args.budget,
        "threads": args.threads,
    }
    options.update({k: v for k, v in given.items() if v is not None})
    if args.variants:
        options["variants"] = [v.strip() for v in args.variants.split(",") if v.strip()]
    if args.no_sweep:
        options["sweep"] = False
    if args.compile_backend:
        options["compile_options"] = {"backend": args.compile_backend}
    # The table printed below lists each warning; issued as Python warnings too, each would
    # be printed twice.
    options["warn"] = False
    result = inference_lab(model, example, **options)
    table = str(result)
    if args.json == "-":
        sys.stdout.write(result.to_json())
        print(table, file=sys.stderr)
    else:
        print(table)
        if args.json:
            _write(args.json, result.to_json(), inputs)
    if args.html:
        _write(args.html, result.to_html(), inputs)
    return 0


def _write(path: str, text: str, inputs: list[str]) -> None:
    try:
        write_file(path, text, inputs=inputs)
    except TraceError as error:
        raise SystemExit(f"stepscope-lab: {error}") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="stepscope-lab", description="stepscope labs: measure what each technique buys"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    inference = commands.add_parser(
        "inference",
        help="the inference lab: eval/inference_mode, half precision, compile, int8, batch sweep",
        description=(__doc__ or "").strip().splitlines()[0],
    )
    inference.add_argument("target", help="MODULE:FUNCTION returning (model, example) or a dict")
    inference.add_argument("--json", metavar="PATH", help="write the result as JSON (- stdout)")
    inference.add_argument("--html", metavar="PATH", help="write a self-contained HTML page")
    inference.add_argument("--device", help="cpu, cuda, cuda:1 (default: CUDA when available)")
    inference.add_argument("--warmup", type=int, help="untimed calls per variant (3)")
    inference.add_argument("--iters", type=int, help="timed requests per variant (30)")
    inference.add_argument("--budget", type=float, help="time budget in seconds (300)")
    inference.add_argument(
        "--threads",
        type=int,
        help="torch.set_num_threads for the lab (1 is steadier on a busy CPU)",
    )
    inference.add_argument("--p99-ms", type=float, help="latency target for the batch sweep")
    inference.add_argument("--max-batch", type=int, help="largest batch of the sweep (64)")
    inference.add_argument(
        "--max-latency-ms", type=float, help="stop the sweep when p99 passes this"
    )
    inference.add_argument("--variants", help="comma-separated subset (eval always runs)")
    inference.add_argument("--no-sweep", action="store_true", help="skip the batch sweep")
    inference.add_argument(
        "--compile-backend", help="torch.compile backend (default inductor; aot_eager is quick)"
    )
    args = parser.parse_args(argv)
    try:
        return _inference(args)
    except KeyboardInterrupt:
        # As a shell reports a command ended by SIGINT, and as `stepscope monitor` exits.
        print("stepscope-lab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
