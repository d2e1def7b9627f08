#!/usr/bin/env python3
"""Run HTA (Holistic Trace Analysis) on a trace and dump the figures stepscope computes.

Needs the third-party packages HolisticTraceAnalysis==0.5.0 (and its runtime
dependency psutil, which the 0.5.0 wheel does not declare: ``pip install
HolisticTraceAnalysis==0.5.0 psutil``); everything else is stdlib.

Usage: ``python3 bench/hta_figures.py TRACE_DIR_OR_FILE [--out figures.json]``.
A single file is symlinked into a temporary folder, because HTA only takes
folders.  The idle-time breakdown, the launch statistics and the queue summary
are called with the trace's own ranks (HTA defaults to rank 0 and raises a
bare ValueError when there is none).  Every figure is computed inside its own
try/except; a failure is recorded as {"error": "..."} and the run goes on.
All times are microseconds, as HTA reports them.  The JSON also holds the wall
time of the import, of the load (TraceAnalysis construction) and of each
figure, and the peak RSS (ru_maxrss, KiB).

Measured on this machine (2 cores, Python 3.11.7, HTA 0.5.0, pandas 3.1.1,
numpy 2.4.6; three runs, warm file cache):

* trace_diff/control (35 MB uncompressed, 109,123 events, rank 3): import
  0.4 s, load (TraceAnalysis construction, JSON parser) 1.7 s, all seven
  figures 0.27 s, 2.6 s wall for the whole script; peak RSS 247 MiB
  (ru_maxrss 253,000 KiB).
* amd_trace: load 0.02 s, figures 0.06 s, peak RSS 100 MiB.
* 1 GB made by gen_large_trace.py from control (35 copies, 3.8 M events,
  .json.gz): load 160 s, figures 8.7 s, peak RSS 5.4 GiB.

HTA 0.5.0 against ../shared/docs/conformance.md §5 (made with HTA 0.6.1 at
f4d0062c), checked on all nine reference traces (steps, temporal rows, kernel
class sums and percentages, idle per stream, overlap, launch counts/sums/
cutoff counts, queue samples/mean/max):

* trace_diff/control: identical steps (1009-1013), temporal breakdown
  (span 383,404 / idle 62,119 / compute 234,760 / non-compute 86,525 us;
  16.2 / 61.23 / 22.57 %), all seven kernel-class sums and percentages, the
  top-kernel sums, the rank-3 idle rows of every stream, overlap 47.03 %,
  launch statistics (7,875 launches; sums 115,050 / 413,947 / 15,865,017 us;
  25 above 50 us, 5,111 above 100 us) and the queue sample counts and maxima.
  Only difference: the queue-length mean of stream 20 is 2.577 against 2.568
  (+0.3 %).
* amd_trace: identical (span 8,911 / idle 8,780 / compute 96 / non-compute
  35 us; COMPUTATION 96 = 73.3 %, MEMORY 35 = 26.7 %; host wait 8,780 us on
  stream 0; overlap null; 0 launches; queue stream 0: 32 samples, mean 0.5,
  max 1).
* critical_path/alexnet: compute 10,637 / non-compute 55,690 us and
  COMPUTATION class 10,637 us against 10,630 / 55,697 / 10,630: 0.5.0 counts
  7 us of `Stream Wait Event` as compute, as conformance.md §1 says.
* queue-length means differ by at most 0.4 % elsewhere too (df_index_resolver
  stream 7 8.094 vs 8.095, nccl_parser_config stream 7 0.815 vs 0.814,
  negative_queue_length_values_check streams 7 and 27 656.680 vs 656.681 and
  3.571 vs 3.574): the unstable tie order of
  docs/metrics/08-hta-queue-length-summary.md §8 (tolerance 2 %).
* Everything else matches exactly, on every reference trace.  On the traces
  without GPU activity (cpu_only, cupti_profiler, rank_*, distributed_info_*)
  0.5.0 fails like 0.6.1 (temporal IndexError, idle "No objects to
  concatenate"), and memory_analysis fails to load (AttributeError).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import resource
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

RUNTIME_CUTOFF_US = 50  # HTA defaults of get_cuda_kernel_launch_stats
LAUNCH_DELAY_CUTOFF_US = 100


def plain(x: Any) -> Any:
    """Convert numpy/pandas scalars and containers to JSON-safe Python values."""
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, int):
        return x
    if isinstance(x, float):
        return None if math.isnan(x) or math.isinf(x) else x
    if isinstance(x, dict):
        return {str(plain_key(k)): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set)):
        return [plain(v) for v in x]
    item = getattr(x, "item", None)  # numpy scalar
    if callable(item):
        try:
            return plain(item())
        except (TypeError, ValueError):
            pass
    return str(x)


def plain_key(k: Any) -> Any:
    if isinstance(k, tuple):
        return ".".join(str(plain_key(p)) for p in k)
    v = plain(k)
    return v if isinstance(v, (str, int, float)) else str(v)


def df_records(df: Any) -> list[dict[str, Any]]:
    """A DataFrame as a list of row dicts, index columns included, keys flattened."""
    flat = df.reset_index() if _has_named_index(df) else df
    cols = [plain_key(c).strip(".") if isinstance(c, tuple) else str(c) for c in flat.columns]
    return [
        {c: plain(v) for c, v in zip(cols, row, strict=True)}
        for row in flat.itertuples(index=False, name=None)
    ]


def _has_named_index(df: Any) -> bool:
    names = getattr(df.index, "names", [None])
    return any(n is not None for n in names)


@contextlib.contextmanager
def hta_input_dir(path: Path) -> Iterator[Path]:
    """The folder to give HTA: the path itself, or a temp folder holding a link to the file."""
    if path.is_dir():
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="hta_figures_") as tmp:
        link = Path(tmp) / path.name
        try:
            os.symlink(path.resolve(), link)
        except OSError:
            import shutil

            shutil.copyfile(path, link)
        yield Path(tmp)


def err_text(e: BaseException) -> str:
    last = traceback.extract_tb(e.__traceback__)[-1:] if e.__traceback__ else []
    where = f" at {Path(last[0].filename).name}:{last[0].lineno}" if last else ""
    return f"{type(e).__name__}: {e}{where}"


# --- figure extractors (each gets the TraceAnalysis and the ranks) -----------------------


def fig_steps(ta: Any, ranks: list[int]) -> Any:
    return [plain(s) for s in ta.get_profiler_steps()]


def fig_temporal(ta: Any, ranks: list[int]) -> Any:
    df = ta.get_temporal_breakdown(visualize=False)
    out: dict[str, Any] = {}
    for r in df_records(df):
        out[str(r.get("rank"))] = {
            "kernel_span_us": r.get("kernel_time(us)"),
            "idle_us": r.get("idle_time(us)"),
            "compute_us": r.get("compute_time(us)"),
            "non_compute_us": r.get("non_compute_time(us)"),
            "idle_pct": r.get("idle_time_pctg"),
            "compute_pct": r.get("compute_time_pctg"),
            "non_compute_pct": r.get("non_compute_time_pctg"),
        }
    return out


def fig_kernels(ta: Any, ranks: list[int]) -> Any:
    classes_df, kernels_df = ta.get_gpu_kernel_breakdown(
        visualize=False, include_memory_kernels=True
    )
    classes = [
        {"class": r.get("kernel_type"), "sum_us": r.get("sum"), "pct": r.get("percentage")}
        for r in df_records(classes_df)
    ]
    kernels = [
        {
            "rank": r.get("rank"),
            "class": r.get("kernel_type"),
            "name": r.get("name"),
            "sum_us": r.get("sum (us)"),
            "max_us": r.get("max (us)"),
            "min_us": r.get("min (us)"),
            "mean_us": r.get("mean (us)"),
            "stddev_us": r.get("stddev"),
        }
        for r in df_records(kernels_df)
    ]
    return {"classes": classes, "kernels": kernels}


def fig_idle(ta: Any, ranks: list[int]) -> Any:
    res = ta.get_idle_time_breakdown(ranks=ranks, visualize=False)
    df = res[0] if isinstance(res, tuple) else res
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for r in df_records(df):
        stream = out.setdefault(str(r.get("rank")), {}).setdefault(str(r.get("stream")), {})
        cat = str(r.get("idle_category"))
        stream[f"{cat}_us"] = r.get("idle_time")
        stream[f"{cat}_ratio"] = r.get("idle_time_ratio")
    return out


def fig_launch(ta: Any, ranks: list[int]) -> Any:
    per_rank = ta.get_cuda_kernel_launch_stats(
        ranks=ranks,
        runtime_cutoff=RUNTIME_CUTOFF_US,
        launch_delay_cutoff=LAUNCH_DELAY_CUTOFF_US,
        visualize=False,
    )
    out: dict[str, Any] = {}
    for rank, df in per_rank.items():
        cpu = df["cpu_duration"]
        gpu = df["gpu_duration"]
        delay = df["launch_delay"]
        out[str(plain(rank))] = {
            "launches": len(df),
            "cpu_duration_sum_us": plain(cpu.sum()),
            "gpu_duration_sum_us": plain(gpu.sum()),
            "launch_delay_sum_us": plain(delay.sum()),
            f"cpu_duration_gt_{RUNTIME_CUTOFF_US}": int((cpu > RUNTIME_CUTOFF_US).sum()),
            f"launch_delay_gt_{LAUNCH_DELAY_CUTOFF_US}": int(
                (delay > LAUNCH_DELAY_CUTOFF_US).sum()
            ),
            "short_kernels": int(((cpu <= RUNTIME_CUTOFF_US) & (gpu < cpu)).sum()),
        }
    return out


def fig_overlap(ta: Any, ranks: list[int]) -> Any:
    df = ta.get_comm_comp_overlap(visualize=False)
    return {str(r.get("rank")): r.get("comp_comm_overlap_pctg") for r in df_records(df)}


def fig_queue(ta: Any, ranks: list[int]) -> Any:
    df = ta.get_queue_length_summary(ranks=ranks)
    if df is None:
        return None
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for r in df_records(df):
        stats = {k.split(".")[-1]: v for k, v in r.items() if k not in ("rank", "stream")}
        out.setdefault(str(r.get("rank")), {})[str(r.get("stream"))] = stats
    return out


FIGURES: list[tuple[str, Callable[[Any, list[int]], Any]]] = [
    ("profiler_steps", fig_steps),
    ("temporal_breakdown", fig_temporal),
    ("kernel_breakdown", fig_kernels),
    ("idle_time_breakdown", fig_idle),
    ("kernel_launch_stats", fig_launch),
    ("comm_comp_overlap", fig_overlap),
    ("queue_length_summary", fig_queue),
]


def peak_rss_kib() -> int:
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def run(trace: Path, ranks_arg: list[int] | None, include_last_step: bool) -> dict[str, Any]:
    result: dict[str, Any] = {"trace": str(trace), "tool": "HolisticTraceAnalysis"}
    timing: dict[str, Any] = {}
    result["timing_s"] = timing
    figures: dict[str, Any] = {}

    t0 = time.perf_counter()
    try:
        from importlib.metadata import version

        from hta.trace_analysis import TraceAnalysis  # type: ignore[import-untyped]

        result["hta_version"] = version("HolisticTraceAnalysis")
    except Exception as e:  # report it, do not crash
        result["error"] = f"cannot import HTA: {err_text(e)}"
        result["peak_rss_kib"] = peak_rss_kib()
        return result
    with contextlib.suppress(ImportError):
        import pandas  # type: ignore[import-untyped,unused-ignore]

        result["pandas_version"] = pandas.__version__
    timing["import"] = time.perf_counter() - t0

    with hta_input_dir(trace) as folder:
        t1 = time.perf_counter()
        try:
            ta = TraceAnalysis(trace_dir=str(folder), include_last_profiler_step=include_last_step)
        except Exception as e:  # HTA raises anything
            timing["load"] = time.perf_counter() - t1
            result["error"] = f"HTA failed to load the trace: {err_text(e)}"
            result["peak_rss_kib"] = peak_rss_kib()
            return result
        timing["load"] = time.perf_counter() - t1
        result["peak_rss_after_load_kib"] = peak_rss_kib()

        try:
            loaded_ranks = [int(r) for r in ta.t.get_ranks()]
        except Exception:
            loaded_ranks = []
        ranks = ranks_arg if ranks_arg else loaded_ranks
        result["ranks"] = ranks

        per_fig: dict[str, float] = {}
        t2 = time.perf_counter()
        for name, fn in FIGURES:
            tf = time.perf_counter()
            try:
                figures[name] = fn(ta, ranks)
            except Exception as e:  # record it and go on
                figures[name] = {"error": err_text(e)}
            per_fig[name] = time.perf_counter() - tf
        timing["compute"] = time.perf_counter() - t2
        timing["per_figure"] = per_fig

    timing["total"] = time.perf_counter() - t0
    result["peak_rss_kib"] = peak_rss_kib()
    result["figures"] = figures
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Run HTA 0.5.0 on a Kineto trace folder or file and print the figures "
        "stepscope computes (µs), with load/compute wall times and peak RSS, as JSON."
    )
    ap.add_argument(
        "trace", type=Path, help="trace folder (as HTA takes it) or a single trace file"
    )
    ap.add_argument("--out", type=Path, default=None, help="write the JSON here (default stdout)")
    ap.add_argument(
        "--ranks",
        type=int,
        nargs="+",
        default=None,
        help="ranks for idle/launch/queue figures (default: every rank in the trace)",
    )
    ap.add_argument(
        "--include-last-step",
        action="store_true",
        help="keep HTA's last profiler step (HTA and the conformance figures drop it)",
    )
    args = ap.parse_args(argv)

    if not args.trace.exists():
        print(f"{args.trace}: no such file or folder", file=sys.stderr)
        return 2
    # HTA logs to stdout (its logging.config binds sys.stdout at import) and prints: keep
    # stdout for the JSON only.
    with contextlib.redirect_stdout(sys.stderr):
        result = run(args.trace, args.ranks, args.include_last_step)
    text = json.dumps(plain(result), indent=2, allow_nan=False)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    else:
        sys.stdout.write(text + "\n")
    t = result.get("timing_s", {})
    nan = float("nan")
    print(
        f"HTA on {args.trace}: import {t.get('import', nan):.2f} s, "
        f"load {t.get('load', nan):.2f} s, compute {t.get('compute', nan):.2f} s, "
        f"peak RSS {result.get('peak_rss_kib', 0) / 1024:.0f} MiB",
        file=sys.stderr,
    )
    return 0 if "error" not in result else 1


if __name__ == "__main__":
    sys.exit(main())
