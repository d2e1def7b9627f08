#!/usr/bin/env python3
"""Make a large, realistic Kineto trace by replicating a real one.

The source trace is loaded once.  Its non-metadata ``traceEvents`` are then
written K times (K chosen so that the uncompressed output reaches
``--size-mb``).  Copy ``i`` (0-based) gets:

* every ``ts`` shifted by ``i * (ceil(source span) + 1000)`` microseconds,
  where the span runs from the earliest ``ts`` to the latest ``ts + dur`` of
  the non-metadata events.  The span is rounded up to whole microseconds so
  that integer timestamps stay integers; fractional timestamps keep exactly
  the digits of the source (decimal arithmetic, no float round-off);
* fresh ids: ``args["correlation"]``, ``args["External id"]``,
  ``args["external id"]`` and the ``id`` of flow / async events
  (ph ``s``/``f``/``t``/``b``/``e``/``n``) become ``id + i * stride`` where
  ``stride = max(id) - min(id) + 1`` over all of those ids in the source.
  One stride for all of them keeps every relation of the source intact
  (a flow ``s``/``f`` pair keeps one id; ``flow id == correlation`` stays
  true) and makes the id ranges of different copies disjoint;
* ``ProfilerStep#N`` renamed to ``ProfilerStep#(N + i * steps)`` where
  ``steps = max(N) - min(N) + 1`` in the source (the number of steps when
  they are consecutive).

Metadata events (ph ``M``) are written once, at their place in copy 0.  The
top-level object keeps the other keys of the source, in their order.

The output is streamed: each event is serialised once into a template
(literal text with holes for ts/ids/step names) and the copies are produced
by filling the holes, writing in batches to a temporary file next to
``--out`` that is renamed at the end.  Memory is bounded by the parsed
source plus its templates (a few hundred MB for a 35 MB source), independent
of the output size.  ``.gz`` output is decided by the suffix of ``--out``.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import math
import os
import re
import resource
import sys
import tempfile
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import IO, Any, TypeGuard

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = (
    REPO_ROOT.parent / "shared" / "traces" / "hta" / "trace_diff" / "control" / "control.json.gz"
)

GAP_US = 1000  # 1 ms between copies
ID_ARG_KEYS = ("correlation", "External id", "external id")
ID_EVENT_PHASES = frozenset({"s", "f", "t", "b", "e", "n"})
STEP_RE = re.compile(r"^ProfilerStep#(\d+)$")
# Sentinels written by json.dumps for the holes (\u0000 cannot occur in the
# sentinel-free parts: the source strings are kept as they are, and a literal
# NUL in a Kineto string would be exotic). "S<n>" = slot n, "R<text>" = raw
# literal text (a Decimal number that must keep its source formatting).
SENTINEL_RE = re.compile(r'"\\u0000([SR])([^"\\]*)\\u0000"')
BATCH_EVENTS = 2000

Number = int | Decimal


@dataclass
class Slot:
    """A hole in an event template."""

    kind: str  # "ts", "id" or "step"
    value: Number | str


@dataclass
class Template:
    """One event, serialised, with holes for what changes per copy."""

    chunks: list[str]  # len(chunks) == len(slots) + 1
    slots: list[Slot]
    is_meta: bool


@dataclass
class SourceInfo:
    templates: list[Template] = field(default_factory=list)
    other_keys: list[tuple[str, str]] = field(default_factory=list)  # (key, json text)
    key_order: list[str] = field(default_factory=list)
    span_shift: int = 0
    id_stride: int = 1
    step_stride: int = 0
    n_meta: int = 0
    n_events: int = 0


def _decimal_default(obj: object) -> str:
    if isinstance(obj, Decimal):
        return "\x00R" + str(obj) + "\x00"
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def _dumps(obj: Any) -> str:
    """json.dumps that writes Decimals with their literal source digits."""
    text = json.dumps(obj, default=_decimal_default)
    if "\\u0000R" in text:
        text = SENTINEL_RE.sub(lambda m: m.group(2) if m.group(1) == "R" else m.group(0), text)
    return text


def _is_number(v: object) -> TypeGuard[Number]:
    return isinstance(v, (int, Decimal)) and not isinstance(v, bool)


def _make_template(ev: dict[str, Any]) -> Template:
    """Serialise one event, replacing the per-copy values by sentinels."""
    if ev.get("ph") == "M":
        return Template([_dumps(ev)], [], True)
    slots: list[Slot] = []

    def hole(kind: str, value: Number | str) -> str:
        slots.append(Slot(kind, value))
        return f"\x00S{len(slots) - 1}\x00"

    out = dict(ev)
    ts = out.get("ts")
    if _is_number(ts):
        out["ts"] = hole("ts", ts)
    name = out.get("name")
    if isinstance(name, str):
        m = STEP_RE.match(name)
        if m:
            out["name"] = hole("step", int(m.group(1)))
    if out.get("ph") in ID_EVENT_PHASES and "id" in out:
        v = out["id"]
        if _is_number(v) or isinstance(v, str):
            out["id"] = hole("id", v)
    args = out.get("args")
    if isinstance(args, dict) and any(k in args for k in ID_ARG_KEYS):
        args = dict(args)
        for k in ID_ARG_KEYS:
            if k in args:
                v = args[k]
                if _is_number(v) or isinstance(v, str):
                    args[k] = hole("id", v)
        out["args"] = args
    text = _dumps(out)
    parts = SENTINEL_RE.split(text)
    # parts = [chunk, kind, payload, chunk, kind, payload, ..., chunk]
    chunks: list[str] = [parts[0]]
    ordered: list[Slot] = []
    for j in range(1, len(parts), 3):
        kind, payload, after = parts[j], parts[j + 1], parts[j + 2]
        if kind == "R":  # raw decimal literal outside a slot (cannot happen after _dumps)
            chunks[-1] += payload + after
            continue
        ordered.append(slots[int(payload)])
        chunks.append(after)
    return Template(chunks, ordered, False)


def load_source(path: Path) -> SourceInfo:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        doc = json.load(fh, parse_float=Decimal)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        raise SystemExit(f"{path}: not a Chrome trace object with a traceEvents list")
    events: list[Any] = doc["traceEvents"]
    info = SourceInfo()
    info.key_order = list(doc.keys())
    for k, v in doc.items():
        if k != "traceEvents":
            info.other_keys.append((k, _dumps(v)))

    t_min: Number | None = None
    t_max: Number | None = None
    id_min: int | None = None
    id_max: int | None = None
    step_min: int | None = None
    step_max: int | None = None
    for ev in events:
        if not isinstance(ev, dict):
            continue
        tpl = _make_template(ev)
        info.templates.append(tpl)
        if tpl.is_meta:
            info.n_meta += 1
            continue
        ts = ev.get("ts")
        if _is_number(ts):
            dur = ev.get("dur", 0)
            end: Number = ts + dur if _is_number(dur) else ts
            if t_min is None or ts < t_min:
                t_min = ts
            if t_max is None or end > t_max:
                t_max = end
        for s in tpl.slots:
            if s.kind == "id" and isinstance(s.value, int):
                id_min = s.value if id_min is None or s.value < id_min else id_min
                id_max = s.value if id_max is None or s.value > id_max else id_max
            elif s.kind == "step" and isinstance(s.value, int):
                step_min = s.value if step_min is None or s.value < step_min else step_min
                step_max = s.value if step_max is None or s.value > step_max else step_max
    del doc, events
    info.n_events = len(info.templates)
    span = 0 if t_min is None or t_max is None else t_max - t_min
    info.span_shift = math.ceil(span) + GAP_US
    if id_min is not None and id_max is not None:
        info.id_stride = id_max - id_min + 1
    if step_min is not None and step_max is not None:
        info.step_stride = step_max - step_min + 1
    return info


def _fill(tpl: Template, copy: int, info: SourceInfo) -> str:
    if not tpl.slots:
        return tpl.chunks[0]
    ts_shift = copy * info.span_shift
    id_shift = copy * info.id_stride
    out = [tpl.chunks[0]]
    for slot, chunk in zip(tpl.slots, tpl.chunks[1:], strict=True):
        v = slot.value
        if slot.kind == "ts":
            out.append(str(v + ts_shift) if not isinstance(v, str) else v)
        elif slot.kind == "id":
            if isinstance(v, str):
                out.append(json.dumps(v if copy == 0 else f"{v}:{copy}"))
            else:
                out.append(str(v + id_shift))
        else:  # step
            assert isinstance(v, int)
            out.append(f'"ProfilerStep#{v + copy * info.step_stride}"')
        out.append(chunk)
    return "".join(out)


def _copy_bytes(info: SourceInfo, copy: int) -> int:
    """UTF-8 size of the non-metadata events of one copy (with separators)."""
    return sum(
        len(_fill(t, copy, info).encode("utf-8")) + 2 for t in info.templates if not t.is_meta
    )


def _open_out(tmp: str, gz: bool, level: int) -> IO[str]:
    raw = open(tmp, "wb")  # noqa: SIM115 - closed by the wrapper
    if gz:
        zf = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=level, mtime=0)
        return io.TextIOWrapper(io.BufferedWriter(zf, 1 << 20), encoding="utf-8", newline="\n")
    return io.TextIOWrapper(io.BufferedWriter(raw, 1 << 20), encoding="utf-8", newline="\n")


class _Counter:
    def __init__(self, fh: IO[str]) -> None:
        self.fh = fh
        self.nbytes = 0

    def write(self, s: str) -> None:
        self.fh.write(s)
        self.nbytes += len(s.encode("utf-8")) if not s.isascii() else len(s)


def generate(info: SourceInfo, out: Path, copies: int, gz_level: int) -> tuple[int, int]:
    """Write the output; return (events written, uncompressed bytes)."""
    gz = out.suffix == ".gz"
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=out.name + ".", suffix=".tmp", dir=out.parent)
    os.close(fd)
    n_written = 0
    try:
        fh = _open_out(tmp, gz, gz_level)
        w = _Counter(fh)
        w.write("{")
        first_key = True
        for key in info.key_order:
            w.write("" if first_key else ",")
            first_key = False
            w.write("\n  " + json.dumps(key) + ": ")
            if key != "traceEvents":
                w.write(dict(info.other_keys)[key])
                continue
            w.write("[")
            first_ev = True
            batch: list[str] = []
            for c in range(copies):
                for tpl in info.templates:
                    if tpl.is_meta and c > 0:
                        continue
                    batch.append(("\n  " if first_ev else ",\n  ") + _fill(tpl, c, info))
                    first_ev = False
                    n_written += 1
                    if len(batch) >= BATCH_EVENTS:
                        w.write("".join(batch))
                        batch.clear()
            if batch:
                w.write("".join(batch))
            w.write("\n  ]")
        w.write("\n}\n")
        fh.close()
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600
        os.replace(tmp, out)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return n_written, w.nbytes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Make a large realistic Kineto trace by replicating a real one "
        "(time-shifted copies with fresh correlation/External/flow ids and step numbers)."
    )
    ap.add_argument(
        "--source",
        type=Path,
        default=DEFAULT_SOURCE,
        help=f"source trace (.json or .json.gz); default {DEFAULT_SOURCE}",
    )
    ap.add_argument(
        "--out", type=Path, required=True, help="output path; gzip-compressed when it ends in .gz"
    )
    ap.add_argument(
        "--size-mb",
        type=float,
        default=1024.0,
        help="target uncompressed size in MiB (default 1024)",
    )
    ap.add_argument(
        "--copies",
        type=int,
        default=None,
        help="write exactly this many copies instead of sizing by --size-mb",
    )
    ap.add_argument(
        "--gzip-level", type=int, default=6, help="gzip level for .gz output (default 6)"
    )
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    info = load_source(args.source)
    t_load = time.perf_counter() - t0
    n_data = info.n_events - info.n_meta
    if n_data == 0:
        print(f"{args.source}: no non-metadata events to replicate", file=sys.stderr)
        return 2
    if args.copies is not None:
        copies = max(1, args.copies)
    else:
        target = int(args.size_mb * 1024 * 1024)
        per_copy = _copy_bytes(info, 1)  # copy 1 has the typical id/ts widths
        fixed = sum(len(t.chunks[0]) + 4 for t in info.templates if t.is_meta)
        fixed += sum(len(k) + len(v) + 8 for k, v in info.other_keys) + 64
        copies = max(1, math.ceil((target - fixed) / per_copy))
    print(
        f"source {args.source}: {info.n_events} events ({info.n_meta} metadata), "
        f"shift {info.span_shift} us/copy, id stride {info.id_stride}, "
        f"step stride {info.step_stride}; loaded in {t_load:.2f} s; writing {copies} copies",
        file=sys.stderr,
    )
    t1 = time.perf_counter()
    n_ev, nbytes = generate(info, args.out, copies, args.gzip_level)
    t_write = time.perf_counter() - t1
    on_disk = args.out.stat().st_size
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        f"wrote {args.out}: {n_ev} events, {nbytes} bytes uncompressed "
        f"({nbytes / 2**20:.1f} MiB; {on_disk} bytes on disk), {copies} copies; "
        f"write {t_write:.1f} s ({nbytes / 2**20 / max(t_write, 1e-9):.1f} MiB/s), "
        f"total {time.perf_counter() - t0:.1f} s, peak RSS {rss_kib / 1024:.0f} MiB",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
