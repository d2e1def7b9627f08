"""Many ranks on a Dask cluster: summarise every rank's trace on the workers, merge locally.

::

    from dask.distributed import Client
    from stepscope.dask import analyze_job

    client = Client("tcp://scheduler:8786")           # or none: the current client, else a
    report = analyze_job(paths, client=client)         # LocalCluster made for this call
    print(report.to_text()); report.job["stragglers"]

Each worker runs ``stepscope.summarize`` on one trace (the trace is read where the task runs:
give paths the workers can open, a shared file system or object-store mounts) and sends back the
small rank summary; ``stepscope.merge`` makes the job report from them, exactly as
``stepscope merge`` and ``stepscope analyze FOLDER`` do. Dask does the scheduling, retries and
placement; this module only provides the map and the reduce.

Needs the ``dask`` extra: ``pip install 'stepscope[dask]'``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import stepscope

if TYPE_CHECKING:  # only for annotations: the module imports without it at run time
    from stepscope import JobReport

__all__ = ["analyze_job", "trace_paths"]

PathLike = str | os.PathLike[str]

# The endings of the trace files in a folder (as `stepscope analyze FOLDER` reads them).
_TRACE_ENDINGS = (".json", ".json.gz", ".sqlite", ".nsys-rep", ".qdrep")


def trace_paths(paths: PathLike | Iterable[PathLike]) -> list[str]:
    """The trace files to summarise: a folder's ``*.json``, ``*.json.gz``, ``*.sqlite`` and
    ``*.nsys-rep`` files (sorted by name), or the given files in their order. Local paths are
    made absolute, so worker processes with another working directory open the same files."""
    if isinstance(paths, (str, os.PathLike)):
        single = os.fspath(paths)
        if os.path.isdir(single):
            names = sorted(
                name
                for name in os.listdir(single)
                if name.endswith(_TRACE_ENDINGS) and not name.startswith(".")
            )
            return [os.path.abspath(os.path.join(single, name)) for name in names]
        items: Iterable[PathLike] = [single]
    else:
        items = paths
    out: list[str] = []
    for item in items:
        text = os.fspath(item)
        out.append(os.path.abspath(text) if os.path.exists(text) else text)
    return out


def _summarize_one(path: str, options: dict[str, Any]) -> str:
    # Runs on a worker: the summary is JSON text (a few kB to a few MB), not the trace.
    return str(stepscope.summarize(path, **options))


def analyze_job(
    paths: PathLike | Sequence[PathLike],
    client: Any | None = None,
    **options: Any,
) -> JobReport:
    """The job report of a multi-rank run, with the per-rank work done on a Dask cluster.

    Args:
        paths: a folder with one trace per rank, or the trace files (paths the workers can
            open).
        client: a ``dask.distributed.Client``. Without one, the current client
            (``distributed.get_client()``) is used; when there is none, a ``LocalCluster`` is
            started for this call and closed after it.
        **options: passed to ``stepscope.summarize`` for every file.

    Returns:
        ``stepscope.merge`` of the summaries, the same job report as ``stepscope analyze
        FOLDER`` gives for those files.

    Raises:
        ValueError: no trace files.
        stepscope.TraceError: a trace cannot be read (raised by the worker, re-raised here).
    """
    files = trace_paths(paths)
    if not files:
        raise ValueError(f"no trace files (*.json, *.json.gz, *.sqlite, *.nsys-rep) in {paths!r}")
    # Imported here so that `import stepscope` never needs dask.
    from distributed import Client, LocalCluster, get_client

    if client is not None:
        return _map_and_merge(client, files, options)
    try:
        current = get_client()
    except ValueError:  # no client in this process
        current = None
    if current is not None:
        return _map_and_merge(current, files, options)
    with LocalCluster(processes=True) as cluster, Client(cluster) as local:
        return _map_and_merge(local, files, options)


def _map_and_merge(client: Any, files: list[str], options: dict[str, Any]) -> JobReport:
    task = functools.partial(_summarize_one, options=dict(options))
    # pure=False: a trace file may be rewritten between two calls; never reuse a result by key.
    futures = client.map(task, files, key="stepscope-summarize", pure=False)
    try:
        summaries: list[str] = client.gather(futures)
    finally:
        client.cancel(futures)
    # Wrapped again: merge() reads a plain str as a path, and the transport may hand a Summary
    # back as a plain str.
    return stepscope.merge([stepscope.Summary(summary) for summary in summaries])
