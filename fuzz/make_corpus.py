#!/usr/bin/env python3
"""Writes a small seed corpus for the fuzz targets: valid Kineto traces of many shapes and
subtly broken variants of them. Deterministic; a few hundred kilobytes at most.

    python3 fuzz/make_corpus.py build/fuzz/corpus            # JSON seeds (importer, scanner)
    python3 fuzz/make_corpus.py --analyze build/fuzz/corpus-analyze   # with fuzz_analyze's
                                                             # two option bytes in front
    python3 fuzz/make_corpus.py --snapshot build/fuzz/corpus-snapshot # memory-snapshot pickles
    python3 fuzz/make_corpus.py --plan build/fuzz/corpus-plan   # memory-plan measurements
    python3 fuzz/make_corpus.py --nsys build/fuzz/corpus-nsys   # Nsight Systems SQLite exports
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

Event = dict[str, Any]

PID, TID, BASE = 7000, 7000, 1_700_000_000_000_000


def x(
    cat: str, name: str, ts: float, dur: float, pid: Any = PID, tid: Any = TID, **args: Any
) -> Event:
    return {
        "ph": "X",
        "cat": cat,
        "name": name,
        "pid": pid,
        "tid": tid,
        "ts": ts,
        "dur": dur,
        "args": args,
    }


def step_events(
    steps: int,
    *,
    launch: str = "cudaLaunchKernel",
    kernel: str = "ampere_sgemm_128x64_tn",
    runtime_cat: str = "cuda_runtime",
    kernel_cat: str = "kernel",
    fraction: bool = False,
    phases: bool = False,
    sync: bool = False,
    nccl: bool = False,
    memory: bool = False,
) -> list[Event]:
    events: list[Event] = []
    for step in range(steps):
        t = BASE + step * 10_000 + (0.25 if fraction else 0)
        ext, corr = 100 + step * 10, 1 + step * 10
        events.append(
            x("user_annotation", f"ProfilerStep#{step + 3}", t, 9_000, **{"External id": ext})
        )
        if phases:
            events.append(
                x(
                    "user_annotation",
                    "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                    t + 10,
                    50,
                )
            )
            events.append(
                x(
                    "cpu_op",
                    "autograd::engine::evaluate_function: AddmmBackward0",
                    t + 4_000,
                    1_000,
                    tid=TID + 1,
                )
            )
            events.append(x("user_annotation", "Optimizer.step#SGD.step", t + 6_000, 800))
        events.append(
            x(
                "cpu_op",
                "aten::linear",
                t + 100,
                2_000,
                **{
                    "External id": ext + 1,
                    "Input Dims": [[64, 128], [256, 128], [256]],
                    "Input type": ["float", "float", "float"],
                    "Concrete Inputs": ["", "", ""],
                },
            )
        )
        events.append(
            x(
                runtime_cat,
                launch,
                t + 500,
                20.5 if fraction else 20,
                **{"External id": ext + 1, "correlation": corr, "cbid": 211},
            )
        )
        events.append(
            x(
                kernel_cat,
                kernel,
                t + 600,
                5_000,
                pid=0,
                tid=7,
                **{
                    "External id": ext + 1,
                    "correlation": corr,
                    "device": 0,
                    "stream": 7,
                    "grid": [8, 4, 1],
                    "block": [128, 1, 1],
                    "registers per thread": 90,
                    "shared memory": 16384,
                    "blocks per SM": 0.3,
                    "warps per SM": 1.2,
                    "est. achieved occupancy %": 12,
                },
            )
        )
        events.append(
            {
                "ph": "s",
                "id": corr,
                "pid": PID,
                "tid": TID,
                "ts": t + 500,
                "cat": "ac2g",
                "name": "ac2g",
            }
        )
        events.append(
            {
                "ph": "f",
                "id": corr,
                "pid": 0,
                "tid": 7,
                "ts": t + 600,
                "cat": "ac2g",
                "name": "ac2g",
                "bp": "e",
            }
        )
        events.append(
            x(
                "gpu_memcpy",
                "Memcpy HtoD (Pageable -> Device)",
                t + 5_700,
                30,
                pid=0,
                tid=7,
                **{
                    "device": 0,
                    "stream": 7,
                    "correlation": corr + 1,
                    "bytes": 1 << 20,
                    "memory bandwidth (GB/s)": 20.5,
                },
            )
        )
        events.append(
            x("cuda_runtime", "cudaMemcpyAsync", t + 5_650, 60, **{"correlation": corr + 1})
        )
        if sync:
            events.append(
                x(
                    "cuda_runtime",
                    "cudaDeviceSynchronize",
                    t + 6_000,
                    2_000,
                    **{"correlation": corr + 2},
                )
            )
        if nccl:
            events.append(
                x(
                    "kernel",
                    "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                    t + 6_000,
                    700,
                    pid=0,
                    tid=20,
                    **{
                        "device": 0,
                        "stream": 20,
                        "correlation": corr + 3,
                        "Collective name": "allreduce",
                        "In msg nelems": 4096,
                        "Out msg nelems": 4096,
                        "Group size": 2,
                        "dtype": "Float",
                        "Process Group Name": "0",
                    },
                )
            )
            events.append(
                x(
                    "cpu_op",
                    "record_param_comms",
                    t + 5_900,
                    40,
                    **{
                        "Collective name": "allreduce",
                        "In msg nelems": 4096,
                        "Out msg nelems": 4096,
                        "Group size": 2,
                        "dtype": "Float",
                        "Process Group Name": "0",
                    },
                )
            )
        if memory:
            events.append(
                {
                    "ph": "i",
                    "cat": "cpu_instant_event",
                    "name": "[memory]",
                    "pid": PID,
                    "tid": TID,
                    "ts": t + 200,
                    "s": "t",
                    "args": {
                        "Total Allocated": 1 << 30,
                        "Total Reserved": 2 << 30,
                        "Addr": 1234567,
                        "Bytes": 4096,
                        "Device Id": 0,
                        "Device Type": 1,
                    },
                }
            )
    events.append(
        {"ph": "M", "name": "process_name", "pid": PID, "tid": 0, "args": {"name": "python"}}
    )
    events.append(
        {"ph": "M", "name": "thread_name", "pid": PID, "tid": TID, "args": {"name": "thread 1"}}
    )
    events.append({"ph": "C", "name": "counter", "pid": PID, "ts": BASE, "args": {"value": 3}})
    return events


DEVICE = {
    "id": 0,
    "name": "NVIDIA A100-SXM4-80GB",
    "totalGlobalMem": 85899345920,
    "computeMajor": 8,
    "computeMinor": 0,
    "numSms": 108,
    "warpSize": 32,
    "maxThreadsPerMultiprocessor": 2048,
    "regsPerMultiprocessor": 65536,
    "sharedMemPerMultiprocessor": 167936,
}


def document(events: list[Event], **top: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schemaVersion": 1,
        "deviceProperties": [DEVICE],
        "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2},
    }
    doc.update(top)
    doc["traceEvents"] = events
    return doc


def valid_traces() -> Iterator[tuple[str, str]]:
    yield "basic", json.dumps(document(step_events(3)))
    yield "compact", json.dumps(document(step_events(2)), separators=(",", ":"))
    yield "pretty", json.dumps(document(step_events(1)), indent=1)
    yield "array_form", json.dumps(step_events(2))
    yield "bom", "\ufeff" + json.dumps(document(step_events(1)))
    yield (
        "fractional",
        json.dumps(
            document(step_events(3, fraction=True), baseTimeNanoseconds=1_700_000_000_000_000_000)
        ),
    )
    yield "phases_sync", json.dumps(document(step_events(3, phases=True, sync=True)))
    yield "nccl", json.dumps(document(step_events(2, nccl=True)))
    yield "memory", json.dumps(document(step_events(2, memory=True)))
    yield (
        "driver_launch",
        json.dumps(
            document(
                step_events(
                    2,
                    launch="cuLaunchKernel",
                    runtime_cat="cuda_driver",
                    kernel="triton_poi_fused_add_0",
                )
            )
        ),
    )
    yield (
        "hip",
        json.dumps(
            document(
                step_events(2, launch="hipLaunchKernel", kernel="Cijk_Ailk_Bljk_SB_MT128x128x16")
            )
        ),
    )
    yield (
        "old_categories",
        json.dumps(document(step_events(2, runtime_cat="Runtime", kernel_cat="Kernel"))),
    )
    yield (
        "no_steps",
        json.dumps(
            document([e for e in step_events(2) if not e["name"].startswith("ProfilerStep")])
        ),
    )
    yield (
        "cpu_only",
        json.dumps(
            {
                "traceEvents": [
                    x("cpu_op", "aten::add", BASE, 5),
                    x("cpu_op", "aten::mul", BASE + 6, 5),
                ]
            }
        ),
    )
    yield (
        "string_ids",
        json.dumps(document([x("cpu_op", "aten::add", BASE, 5, pid="host", tid="stream 7 7")])),
    )
    yield (
        "begin_end",
        json.dumps(
            document(
                [
                    {
                        "ph": "B",
                        "name": "ProfilerStep#1",
                        "cat": "user_annotation",
                        "pid": 1,
                        "tid": 1,
                        "ts": BASE,
                    },
                    {
                        "ph": "B",
                        "name": "aten::mm",
                        "cat": "cpu_op",
                        "pid": 1,
                        "tid": 1,
                        "ts": BASE + 1,
                    },
                    {"ph": "E", "pid": 1, "tid": 1, "ts": BASE + 5},
                    {"ph": "E", "pid": 1, "tid": 1, "ts": BASE + 9},
                    {
                        "ph": "b",
                        "id": "0x1",
                        "name": "async",
                        "cat": "x",
                        "pid": 1,
                        "tid": 1,
                        "ts": BASE,
                    },
                    {
                        "ph": "e",
                        "id": "0x1",
                        "name": "async",
                        "cat": "x",
                        "pid": 1,
                        "tid": 1,
                        "ts": BASE + 3,
                    },
                ]
            )
        ),
    )
    nested = step_events(2)
    nested.append(x("user_annotation", "ProfilerStep#3", BASE + 100, 50))
    yield "nested_steps", json.dumps(document(nested))
    yield (
        "escapes",
        json.dumps(
            document([x("cpu_op", 'a\\"b\u00e9\u4e2d\U0001f600\n\t', BASE, 1)]), ensure_ascii=True
        ),
    )
    yield (
        "unicode_raw",
        json.dumps(document([x("cpu_op", "aten::\u00e9\u4e2d", BASE, 1)]), ensure_ascii=False),
    )
    yield (
        "extremes",
        json.dumps(
            document(
                [
                    x("kernel", "k", 0, 0, pid=0, tid=7, device=0, stream=7, correlation=0),
                    x(
                        "kernel",
                        "k",
                        9.2e15,
                        1e-3,
                        pid=0,
                        tid=7,
                        device=0,
                        stream=7,
                        correlation=2**62,
                    ),
                    x("cpu_op", "op", -5, 1, pid=-1, tid=-1),
                    x("cpu_op", "op", 1.5e300, 1e300),
                ]
            )
        ),
    )
    yield (
        "top_level_extras",
        json.dumps(
            {
                "traceName": "x",
                "displayTimeUnit": "ns",
                "deviceProperties": [],
                "distributedInfo": {},
                "traceEvents": step_events(1),
                "extra": {"nested": [1, [2, {"3": None}]]},
            }
        ),
    )
    yield (
        "et_like",
        json.dumps(
            {
                "schema": "1.0.1",
                "pid": 1,
                "nodes": [{"id": 1, "name": "[pytorch|profiler|execution_trace|process]"}],
            }
        ),
    )
    yield "empty_events", json.dumps({"traceEvents": []})
    yield "memory_timeline", json.dumps([[0, 1, 2], [3, 4, 5]])
    yield from lenient_traces()


def lenient_traces() -> Iterator[tuple[str, str]]:
    """Accepted with import notes: wrongly typed optional fields, numeric strings (ROCm),
    `args` that is null or a list, an event without a usable phase, the array form without
    its closing bracket, and duplicate correlation ids."""
    events = step_events(2, memory=True)
    for event in events:
        args = event.get("args") or {}
        if "correlation" in args:
            args["correlation"] = str(args["correlation"])
        if "bytes" in args:
            args["bytes"] = str(args["bytes"])
        if "Bytes" in args:
            args["Bytes"] = str(args["Bytes"])
        if "est. achieved occupancy %" in args:
            args["est. achieved occupancy %"] = None
    yield "lenient_rocm_strings", json.dumps(document(events))
    odd = step_events(1)
    odd[0]["args"] = None
    odd[1]["args"] = [1, 2]
    odd[2]["ts"] = str(odd[2]["ts"])
    odd[2]["dur"] = str(odd[2]["dur"])
    odd.append({"ph": 5, "name": "no phase", "ts": BASE, "pid": PID, "tid": TID})
    odd.append(x("kernel", "k", BASE + 1, 1, pid=0, tid=7, grid=["a", 1, 1], device=True))
    yield "lenient_wrong_types", json.dumps(document(odd))
    yield "array_unterminated", json.dumps(step_events(2))[:-1]
    yield "array_trailing_comma", json.dumps(step_events(1))[:-1] + ","
    twice = step_events(2)
    for event in twice:
        args = event.get("args") or {}
        if "correlation" in args:
            args["correlation"] = 1
    yield "duplicate_correlation", json.dumps(document(twice))


def broken_variants(name: str, text: str, rng: random.Random) -> Iterator[tuple[str, str]]:
    """Small, plausible corruptions: what a killed profiler or a bad edit leaves behind."""
    n = len(text)
    yield f"{name}.trunc_half", text[: n // 2]
    yield f"{name}.trunc_end", text[:-1]
    yield f"{name}.trunc_rand", text[: rng.randrange(1, n)]
    i = text.find(",", n // 3)
    if i > 0:
        yield f"{name}.no_comma", text[:i] + text[i + 1 :]
        yield f"{name}.double_comma", text[:i] + ",," + text[i + 1 :]
    i = text.find("}", n // 2)
    if i > 0:
        yield f"{name}.extra_brace", text[:i] + "}}" + text[i + 1 :]
    i = text.find('"', n // 2)
    if i > 0:
        yield f"{name}.lost_quote", text[:i] + text[i + 1 :]
        yield f"{name}.backslash", text[:i] + "\\" + text[i:]
    yield f"{name}.trailing", text + " x"
    yield f"{name}.nul", text[: n // 3] + "\x00" + text[n // 3 :]
    pos = rng.randrange(n)
    yield f"{name}.flip", text[:pos] + chr(rng.randrange(32, 127)) + text[pos + 1 :]


def hand_written_broken() -> Iterator[tuple[str, str]]:
    yield "empty", ""
    yield "spaces", "  \n\t "
    yield "null", "null"
    yield "number", "123"
    yield "bom_only", "\ufeff"
    yield "events_not_array", '{"traceEvents": {"ph": "X"}}'
    yield "element_not_object", '{"traceEvents": [1, 2]}'
    yield (
        "second_not_object",
        '{"traceEvents": [{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1}, "x"]}',
    )
    yield (
        "wrong_types",
        json.dumps(
            {
                "traceEvents": [
                    {
                        "ph": 1,
                        "name": 2,
                        "ts": "3",
                        "dur": [],
                        "pid": {},
                        "tid": None,
                        "cat": 5,
                        "args": [],
                    }
                ]
            }
        ),
    )
    yield "negative_dur", json.dumps({"traceEvents": [x("cpu_op", "a", BASE, -5)]})
    yield (
        "long_phase",
        json.dumps({"traceEvents": [{"ph": "XX", "name": "a", "ts": 1, "pid": 1, "tid": 1}]}),
    )
    yield (
        "missing_ts",
        json.dumps({"traceEvents": [{"ph": "X", "name": "a", "dur": 1, "pid": 1, "tid": 1}]}),
    )
    yield (
        "huge_int",
        '{"traceEvents":[{"ph":"X","name":"a","ts":99999999999999999999999,"dur":1,"pid":1,"tid":1}]}',
    )
    yield (
        "bad_number",
        '{"traceEvents":[{"ph":"X","name":"a","ts":1.2.3,"dur":-,"pid":01,"tid":1e}]}',
    )
    yield "nan", '{"traceEvents":[{"ph":"X","name":"a","ts":NaN,"dur":Infinity,"pid":1,"tid":1}]}'
    yield "deep", '{"traceEvents":[{"args":' + "[" * 300 + "]" * 300 + "}]}"
    yield (
        "deep_ok",
        '{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1,"args":{"x":'
        + "[" * 100
        + "]" * 100
        + "}}]}",
    )
    yield (
        "bad_escape",
        '{"traceEvents":[{"ph":"X","name":"a\\q\\ud800","ts":1,"dur":1,"pid":1,"tid":1}]}',
    )
    yield (
        "dup_keys",
        '{"traceEvents":[{"ph":"X","ph":"i","name":"a","name":"b","ts":1,"ts":2,"dur":1,"pid":1,"tid":1}]}',
    )
    yield (
        "two_event_arrays",
        '{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1}],"traceEvents":[]}',
    )
    yield (
        "device_props_bad",
        '{"deviceProperties":{"id":0},"distributedInfo":[1],"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1}]}',
    )
    yield (
        "rank_huge",
        '{"distributedInfo":{"rank":1e30,"world_size":-1},"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1}]}',
    )
    yield "key_no_colon", '{"traceEvents" [{}]}'
    yield "unterminated_key", '{"traceEv'


def seeds() -> Iterator[tuple[str, str]]:
    rng = random.Random(20240611)
    for name, text in valid_traces():
        yield name, text
        yield from broken_variants(name, text, rng)
    yield from hand_written_broken()


def snapshot_seeds() -> Iterator[tuple[str, bytes]]:
    """Small memory snapshots (tools/snapshot_builder.py), each protocol, and cut versions."""
    import pickle
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    from snapshot_builder import Plan, build_snapshot

    for protocol in (2, 3, 4, 5):
        plan = Plan(steps=2, layers=2, stack_depth=5, leak_bytes=1 << 20, seed=protocol)
        data = pickle.dumps(build_snapshot(plan), protocol=protocol)
        yield f"snapshot-p{protocol}", data
        yield f"snapshot-p{protocol}-cut", data[: len(data) // 2]
    yield "segments-only", pickle.dumps(build_snapshot(Plan(steps=1, layers=1))["segments"])
    yield "not-a-snapshot", pickle.dumps({"a": [1, 2.5, None, True, (1, 2)], "b": b"xy"})


def plan_measurement(**changes: Any) -> dict[str, Any]:
    """A measurement document as stepscope.torch.memory_plan saves it (schema 1)."""
    timing = {"forward_ms": 6.5, "backward_ms": 13.0, "optimizer_ms": 2.1, "blocks_forward_ms": 5}
    document: dict[str, Any] = {
        "schema": "stepscope.plan_measurement",
        "schema_version": 1,
        "device": "cpu",
        "optimizer": "AdamW",
        "parameter_count": 3630090,
        "parameter_bytes": 14520360,
        "gradient_bytes": 14520360,
        "optimizer_state_bytes": 29040728,
        "batch_a": 8,
        "peak_a_bytes": 61437952,
        "batch_b": 16,
        "peak_b_bytes": 78245888,
        "optimizer_peak_bytes": 74469376,
        "capacity_bytes": 24696061952,
        "repeated_blocks": 4,
        "timing_a": dict(timing, forward_ms=3.5),
        "timing_b": timing,
        "notes": ["measured on the CPU"],
    }
    document.update(changes)
    return document


def plan_seeds() -> Iterator[tuple[str, str]]:
    """Plan measurements: valid ones of several shapes, then cut and mistyped variants."""
    valid = {
        "plan-cpu": plan_measurement(),
        "plan-cuda": plan_measurement(device="cuda", optimizer="SGD momentum"),
        "plan-untimed": plan_measurement(
            timing_a={"forward_ms": 0, "backward_ms": 0, "optimizer_ms": 0, "blocks_forward_ms": 0}
        ),
        "plan-nothing-fits": plan_measurement(capacity_bytes=1000),
        "plan-flat": plan_measurement(peak_b_bytes=61437952, repeated_blocks=0),
        "plan-huge": plan_measurement(parameter_count=2**59, capacity_bytes=2**60),
        "plan-largest-allowed": plan_measurement(
            batch_a=2**18 - 1,
            batch_b=2**18,
            peak_a_bytes=1,
            peak_b_bytes=2**44,
            capacity_bytes=2**44,
            repeated_blocks=2**18,
        ),
    }
    rng = random.Random(19)
    for name, document in valid.items():
        text = json.dumps(document)
        yield name, text
        yield from broken_variants(name, text, rng)
    yield "plan-string-number", json.dumps(plan_measurement(batch_a="8"))
    yield "plan-unknown-field", json.dumps(plan_measurement(extra=1))
    yield "plan-batches-equal", json.dumps(plan_measurement(batch_a=16))


# The tables of an Nsight Systems SQLite export that the reader looks at, with the columns it
# reads and some it skips (NVIDIA's SQLite schema reference), kept small for the fuzzer.
NSYS_SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE TARGET_INFO_GPU (id INTEGER NOT NULL, name TEXT, totalMemory INTEGER,
  smCount INTEGER, cuDevice INTEGER, computeMajor INTEGER, computeMinor INTEGER,
  maxWarpsPerSm INTEGER, threadsPerWarp INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER NOT NULL,
  registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
  gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL,
  srcKind INTEGER, dstKind INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL,
  bytes INTEGER NOT NULL, memKind INTEGER NOT NULL, memoryOperationType INTEGER NOT NULL);
"""


def nsys_export(steps: int, with_gpu: bool, step_name: str) -> bytes:
    """One small export: `steps` NVTX step ranges, each with a launch, a kernel and a copy."""
    import os
    import sqlite3
    import tempfile

    tid = (100 << 24) | 1
    pid = 100 << 24
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "seed.sqlite")
        db = sqlite3.connect(path)
        db.executescript(NSYS_SCHEMA)
        db.executemany(
            "INSERT INTO StringIds VALUES (?, ?)",
            [
                (1, "cudaLaunchKernel_v7000"),
                (2, "_Z6kernelPfi"),
                (3, "python3"),
                (4, "ncclDevKernel_AllReduce_Sum_f32_RING_LL"),
                (5, "cudaMemcpyAsync_v3020"),
            ],
        )
        db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.15.1')")
        db.execute("INSERT INTO ThreadNames VALUES (3, 0, ?)", (tid,))
        db.execute(
            "INSERT INTO TARGET_INFO_GPU VALUES (0, 'Test GPU', 85899345920, 132, 0, 9, 0, 64, 32)"
        )
        for s in range(steps):
            t0 = s * 1_000_000
            db.execute(
                "INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, ?, ?, NULL, NULL, 0)",
                (t0, t0 + 900_000, step_name.format(s), tid),
            )
            db.execute(
                "INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, 'aten::mm, seq = 3, sizes = [[8, 16], "
                "[16, 4]]', ?, NULL, NULL, 0)",
                (t0 + 1_000, t0 + 50_000, tid),
            )
            if not with_gpu:
                continue
            db.execute(
                "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, ?, 1, 0, NULL)",
                (t0 + 2_000, t0 + 7_000, tid, 2 * s + 1),
            )
            db.execute(
                "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES "
                "(?, ?, 0, 1, 7, ?, ?, ?, ?, 64, 108, 1, 1, 256, 1, 1, 0, 0)",
                (t0 + 10_000, t0 + 600_000, 2 * s + 1, pid, 2 + 2 * (s % 2), 2 + 2 * (s % 2)),
            )
            db.execute(
                "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, ?, 5, 0, NULL)",
                (t0 + 8_000, t0 + 9_000, tid, 2 * s + 2),
            )
            db.execute(
                "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY "
                "VALUES (?, ?, 0, 1, 7, ?, ?, 4096, 1, 2, 3)",
                (t0 + 600_000, t0 + 610_000, 2 * s + 2, pid),
            )
            db.execute(
                "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (?, ?, 0, 1, ?, 1024, 3, ?)",
                (t0 + 5_000, pid, 4096 + s, s % 2),
            )
        db.commit()
        db.close()
        with open(path, "rb") as seed:
            return seed.read()


def nsys_seeds() -> Iterator[tuple[str, bytes]]:
    yield "nsys-steps", nsys_export(3, True, "ProfilerStep#{}")
    yield "nsys-train-step", nsys_export(4, True, "train_step")
    yield "nsys-host-only", nsys_export(2, False, "step {}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path, help="folder to write the seeds into (created)")
    parser.add_argument(
        "--analyze",
        action="store_true",
        help="prefix each seed with fuzz_analyze's two option bytes (each mode once)",
    )
    parser.add_argument(
        "--snapshot", action="store_true", help="memory-snapshot pickles instead of JSON traces"
    )
    parser.add_argument(
        "--plan",
        action="store_true",
        help="memory-plan measurements, with fuzz_plan_measurement's option byte in front",
    )
    parser.add_argument(
        "--nsys", action="store_true", help="Nsight Systems SQLite exports (fuzz_nsys_sqlite)"
    )
    options = parser.parse_args()
    options.corpus.mkdir(parents=True, exist_ok=True)
    count = 0
    if options.nsys:
        for name, blob in nsys_seeds():
            digest = hashlib.sha1(blob).hexdigest()[:12]
            (options.corpus / f"{name}-{digest}.sqlite").write_bytes(blob)
            count += 1
        print(f"wrote {count} seeds to {options.corpus}")
        return
    if options.snapshot:
        for name, blob in snapshot_seeds():
            digest = hashlib.sha1(blob).hexdigest()[:12]
            (options.corpus / f"{name}-{digest}.pickle").write_bytes(blob)
            count += 1
        print(f"wrote {count} seeds to {options.corpus}")
        return
    if options.plan:
        for name, text in plan_seeds():
            for prefix in (b"\x00", b"\x37"):  # one GPU; 8 GPUs and an effective batch of 111
                blob = prefix + text.encode("utf-8", "surrogatepass")
                digest = hashlib.sha1(blob).hexdigest()[:12]
                (options.corpus / f"{name}-{digest}.json").write_bytes(blob)
                count += 1
        print(f"wrote {count} seeds to {options.corpus}")
        return
    for name, text in seeds():
        data = text.encode("utf-8", "surrogatepass")
        # native, compat-hta with a step range, compat-tb with top 4
        prefixes = [b"\x00\x00", b"\x01\x11", b"\x32\x00"] if options.analyze else [b""]
        for prefix in prefixes:
            blob = prefix + data
            digest = hashlib.sha1(blob).hexdigest()[:12]
            (options.corpus / f"{name}-{digest}.json").write_bytes(blob)
            count += 1
    print(f"wrote {count} seeds to {options.corpus}")


if __name__ == "__main__":
    main()
