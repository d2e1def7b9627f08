"""The labs from the command line::

    python -m stepscope.lab inference MODULE:FUNCTION [--json PATH|-] [--html PATH]
    stepscope-lab inference MODULE:FUNCTION ...

``MODULE:FUNCTION`` names a function without arguments (MODULE a dotted module importable from
the current directory, or a path to a ``.py`` file) returning ``(model, example_input)`` or a
dict with ``model`` and ``example`` (also ``generate``, ``make_batch``, and any other keyword
argument of :func:`stepscope.torch.inference_lab`, which the command-line options override).
It prints the table and the reading; ``--json`` writes the result (``-`` for standard output,
the table then going to standard error), ``--html`` a self-contained page.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _load(target: str) -> Any:
    module_name, colon, function_name = target.rpartition(":")
    if not colon or not module_name or not function_name:
        raise SystemExit(f"stepscope-lab: expected MODULE:FUNCTION, got {target!r}")
    if module_name.endswith(".py") or os.sep in module_name:
        path = Path(module_name)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None or not path.is_file():
            raise SystemExit(f"stepscope-lab: cannot load {module_name}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
    else:
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        module = importlib.import_module(module_name)
    function = getattr(module, function_name, None)
    if not callable(function):
        raise SystemExit(f"stepscope-lab: {module_name} has no function {function_name}")
    return function()


def _check_output(path: str, what: str) -> None:
    """Refuse to write over anything but a regular file (a device, a FIFO, a folder)."""
    if path == "-":
        return
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise SystemExit(f"stepscope-lab: {what} {path} exists and is not a regular file")


def _inference(args: argparse.Namespace) -> int:
    from ._output import write_file

    try:
        from .torch import inference_lab
    except ImportError as error:
        raise SystemExit(f"stepscope-lab: {error}") from error

    if args.json:
        _check_output(args.json, "--json")
    if args.html:
        _check_output(args.html, "--html")
    loaded = _load(args.target)
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
    result = inference_lab(model, example, **options)
    table = str(result)
    if args.json == "-":
        sys.stdout.write(result.to_json())
        print(table, file=sys.stderr)
    else:
        print(table)
        if args.json:
            result.to_json(args.json)
    if args.html:
        write_file(args.html, result.to_html())
    return 0


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
    return _inference(args)


if __name__ == "__main__":
    sys.exit(main())
