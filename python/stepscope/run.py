"""``python -m stepscope.run [options] SCRIPT ARGS...``: ``stepscope run`` where only Python can be
launched (docs/run.md). Runs SCRIPT (or ``-m MODULE``) in this interpreter with the recorder
installed, then prints the diagnosis of the traces and writes ``report.html`` beside them. The
exit status is the script's.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import time
import traceback
from pathlib import Path

from ._run import _recorder

STARTUP_FOLDER = Path(__file__).resolve().parent / "_run" / "startup"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m stepscope.run",
        description="Run a PyTorch script unchanged, record a window of its steps, diagnose them.",
    )
    parser.add_argument("--out", help="folder for the traces (default: stepscope-run-<time>)")
    parser.add_argument("--skip", type=int, default=5, help="steps left out first (warm-up)")
    parser.add_argument("--steps", type=int, default=5, help="steps recorded")
    parser.add_argument("--step-fn", default="", help="MODULE:FUNCTION whose calls are the steps")
    parser.add_argument(
        "--seconds", type=float, default=0.0, help="a time window when no step is found"
    )
    parser.add_argument("--stacks", action="store_true", help="record Python stacks")
    parser.add_argument(
        "--stop-after-window", action="store_true", help="end the script once its window is written"
    )
    parser.add_argument(
        "--memory",
        action="store_true",
        help="CUDA: record the allocator's history; diagnose a snapshot at out of memory",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no notices")
    parser.add_argument("-m", dest="module", help="run a module, as python -m does")
    parser.add_argument("script", nargs="?", help="the script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return parser


def _settings(options: argparse.Namespace) -> _recorder.Settings:
    if options.skip < 0 or options.steps < 1 or options.seconds < 0:
        raise SystemExit("stepscope run: --skip wants >= 0, --steps >= 1, --seconds >= 0")
    if options.step_fn and ":" not in options.step_fn:
        raise SystemExit("stepscope run: --step-fn wants MODULE:FUNCTION")
    out = options.out or time.strftime("stepscope-run-%Y%m%d-%H%M%S")
    return _recorder.Settings(
        out=Path(out).resolve(),
        skip=options.skip,
        steps=options.steps,
        step_fn=options.step_fn,
        seconds=options.seconds,
        stacks=options.stacks,
        stop_after_window=options.stop_after_window,
        memory=options.memory,
    )


def _run_target(options: argparse.Namespace) -> int:
    """Runs the script as ``python SCRIPT`` would; its exit status."""
    try:
        if options.module:
            sys.argv = [
                options.module,
                *([options.script] if options.script else []),
                *options.args,
            ]
            runpy.run_module(options.module, run_name="__main__", alter_sys=True)
        else:
            sys.argv = [options.script, *options.args]
            sys.path.insert(0, str(Path(options.script).resolve().parent))
            runpy.run_path(options.script, run_name="__main__")
    except SystemExit as exit_request:
        code = exit_request.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def _diagnose_out_of_memory(out: Path) -> None:
    """--memory: each snapshot taken at an out-of-memory error, as ``stepscope memory``."""
    from . import memory_snapshot

    for path in sorted(out.glob(f"*{_recorder.OUT_OF_MEMORY_SUFFIX}")):
        print(f"\nOut of CUDA memory: the allocator's state at the error ({path})")
        try:
            print(memory_snapshot(path), flush=True)
        except Exception as error:
            print(f"stepscope run: {error}", file=sys.stderr)


def _diagnose(out: Path, quiet: bool) -> None:
    notes = sorted(out.glob(f"*{_recorder.NOTE_SUFFIX}")) if out.is_dir() else []
    for note in notes:
        print(f"stepscope run: note: {note.read_text(encoding='utf-8').strip()}", file=sys.stderr)
    if out.is_dir():
        _diagnose_out_of_memory(out)
    traces = sorted(out.glob(f"*{_recorder.TRACE_SUFFIX}")) if out.is_dir() else []
    if not traces:
        if not notes:
            print(
                "stepscope run: no trace was written: the script ran no step past --skip "
                "(optimizer steps, model forwards or --step-fn calls)",
                file=sys.stderr,
            )
        return
    from . import analyze

    try:
        report = analyze(traces[0] if len(traces) == 1 else out)
    except Exception as error:
        print(f"stepscope run: the analysis failed: {error}", file=sys.stderr)
        return
    print(report, flush=True)
    report.to_html(out / "report.html")
    if not quiet:
        print(f"stepscope run: wrote {out / 'report.html'}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    if not options.script and not options.module:
        _parser().error("a script (or -m MODULE) to run is needed")
    settings = _settings(options)
    if settings.out.is_dir() and any(settings.out.glob(f"*{_recorder.TRACE_SUFFIX}")):
        print(f"stepscope run: {settings.out} already holds traces; choose another --out")
        return 2
    # Processes the script starts (torchrun workers, spawned ranks) get the hook too.
    os.environ.update(settings.to_environment())
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(STARTUP_FOLDER), os.environ.get("PYTHONPATH", "")) if p
    )
    if not options.quiet:
        print(f"stepscope run: traces go to {settings.out}", file=sys.stderr)
    recorder = _recorder.install(settings)
    status = _run_target(options)
    if recorder is not None:
        recorder.finish_at_exit()
    sys.stdout.flush()
    _diagnose(settings.out, options.quiet)
    return status


if __name__ == "__main__":
    sys.exit(main())
