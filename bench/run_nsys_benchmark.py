#!/usr/bin/env python3
"""`stepscope analyze` on an Nsight Systems SQLite export, against what one-off readers do.

Generates an export of --size-mb MiB with the tables and columns of `nsys export --type sqlite`
(the CREATE TABLE statements are read from tests/support/nsys_fixture.cpp, so that the export
has exactly the unit tests' schema), filled with a seeded training loop: per step an NVTX
`ProfilerStep#N` range with data loading, forward, backward and optimizer ranges inside, a few
hundred kernel launches (`cudaLaunchKernel_v7000` rows and their kernels, linked by correlation
id) on a compute stream, NCCL all-reduce kernels on a communication stream, input copies, a
loss copy back, memsets and a `cudaStreamSynchronize` per step. The export is kept in --workdir
under a name made of its size, the generator's version and the schema's hash, and reused.

Then, alternately, each the median of --repeat runs, in a process of its own:
  * `stepscope analyze EXPORT --json OUT -q`, end to end;
  * the baseline: Python's sqlite3 and pandas `read_sql_query` of the tables stepscope reads
    (kernels, CUDA runtime, memcpy, memset, NVTX joined with StringIds for the range names) into
    DataFrames, and the GPU busy time of each `ProfilerStep#N` from them, with pandas, and
    nothing more: less work than stepscope does. Its import of pandas is timed, as stepscope's
    start-up is.
The target: the baseline takes at least 10 times stepscope's time. Peak RSS (wait4's ru_maxrss)
of both is reported against the export's size. The exit status is non-zero only when a command
fails, never because a target is missed.

    python3 bench/run_nsys_benchmark.py                  # 1 GiB export, median of 3
    python3 bench/run_nsys_benchmark.py --ci             # 64 MiB export, one run each
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib.util
import json
import os
import platform
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "support" / "nsys_fixture.cpp"
# Bumped whenever the generated rows change, so that a cached export is made again.
GENERATOR_VERSION = 1
SEED = 20240611
TARGET_RATIO = 10.0  # the baseline takes at least this many times stepscope's time
MIB = 1 << 20
MB = 1_000_000
STEPS_PER_BATCH = 200
TEMPLATES = 64  # distinct steps, each drawn many times

# The process and its threads; a global id is the process id in bits 24-47, the thread's below.
PID = 4242
MAIN_TID = PID
AUTOGRAD_TID = 4257
COMPUTE_STREAM = 7
NCCL_STREAM = 23
DEVICE = 0


def global_id(pid: int, tid: int) -> int:
    return (pid << 24) | tid


MAIN_THREAD = global_id(PID, MAIN_TID)
AUTOGRAD_THREAD = global_id(PID, AUTOGRAD_TID)
PROCESS = global_id(PID, 0)


# ---------------------------------------------------------------------------------- schema


def read_fixture_schema(fixture: Path) -> str:
    """The unit tests' CREATE TABLE statements: kSchema and kNvtxTable of nsys_fixture.cpp."""
    text = fixture.read_text()
    parts = []
    for name in ("kSchema", "kNvtxTable"):
        match = re.search(rf'{name} = R"sql\((.*?)\)sql"', text, re.DOTALL)
        if not match:
            raise SystemExit(f"{fixture}: no {name} raw string (the schema moved?)")
        parts.append(match.group(1))
    return "\n".join(parts)


def schema_key(schema: str) -> str:
    return hashlib.sha256(schema.encode()).hexdigest()[:10]


# ------------------------------------------------------------------------------- generator


@dataclass(frozen=True)
class KernelKind:
    """A kernel as the export names it (StringIds ids) with its launch configuration."""

    demangled: str
    short: str
    base_us: float
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    registers: int
    static_shared: int
    dynamic_shared: int


FORWARD_KERNELS = [
    KernelKind(
        "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::Half, float>"
        "(int, float, c10::Half const*, c10::Half const*, c10::Half const*, float*, float*, "
        "c10::Half*)",
        "vectorized_layer_norm_kernel",
        9.0,
        (4096, 1, 1),
        (128, 1, 1),
        40,
        0,
        0,
    ),
    KernelKind(
        "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
        "segment_k_off_kernel__5x_cublas",
        "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
        "segment_k_off_kernel__5x_cublas",
        48.0,
        (132, 1, 1),
        (384, 1, 1),
        168,
        0,
        213_248,
    ),
    KernelKind(
        "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
        "cutlass::half_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::half_t> >, false, true, "
        "false, false, true, true, false, false>(Flash_fwd_params)",
        "flash_fwd_kernel",
        85.0,
        (16, 32, 8),
        (128, 1, 1),
        255,
        0,
        49_152,
    ),
    KernelKind(
        "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl("
        "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::"
        "{lambda()#2}::operator()() const::{lambda(c10::Half)#1}, at::detail::Array<char*, 2> >"
        "(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
        "{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(c10::Half)"
        "#1}, at::detail::Array<char*, 2>)",
        "vectorized_elementwise_kernel",
        14.0,
        (8192, 1, 1),
        (128, 1, 1),
        32,
        0,
        0,
    ),
    KernelKind(
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::Half>"
        ", at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::Half>, "
        "at::detail::Array<char*, 3>)",
        "vectorized_elementwise_kernel",
        7.0,
        (8192, 1, 1),
        (128, 1, 1),
        28,
        0,
        0,
    ),
]
LOSS_KERNEL = KernelKind(
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
    "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
    "cunn_SoftMaxForward",
    60.0,
    (8192, 1, 1),
    (1024, 1, 1),
    38,
    0,
    4096,
)
BACKWARD_KERNELS = [
    KernelKind(
        "void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64, 128, "
        "8, 2, 4, 2, false, false, cutlass::half_t, Flash_kernel_traits<128, 64, 128, 8, "
        "cutlass::half_t> >, false, false, false, false, false, true, false>(Flash_bwd_params)",
        "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel",
        160.0,
        (16, 32, 4),
        (256, 1, 1),
        255,
        0,
        114_688,
    ),
    KernelKind(
        "sm90_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
        "segment_k_off_kernel__5x_cublas",
        "sm90_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
        "segment_k_off_kernel__5x_cublas",
        95.0,
        (132, 1, 1),
        (384, 1, 1),
        168,
        0,
        221_184,
    ),
    KernelKind(
        "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<"
        "c10::Half, float>(c10::Half const*, c10::Half const*, float const*, float const*, "
        "c10::Half const*, c10::Half*, int)",
        "layer_norm_grad_input_kernel_vectorized",
        18.0,
        (4096, 1, 1),
        (128, 1, 1),
        56,
        0,
        0,
    ),
    KernelKind(
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
        "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::"
        "operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >"
        "(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<"
        "float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
        "unsigned int, float, 4>)",
        "reduce_kernel",
        11.0,
        (512, 1, 1),
        (32, 16, 1),
        32,
        0,
        16,
    ),
    KernelKind(
        "void at::native::vectorized_elementwise_kernel<4, at::native::GeluBackwardCUDAKernelImpl"
        "(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::"
        "{lambda()#2}::operator()() const::{lambda(c10::Half, c10::Half)#1}, "
        "at::detail::Array<char*, 3> >(int, at::native::GeluBackwardCUDAKernelImpl("
        "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::"
        "{lambda()#2}::operator()() const::{lambda(c10::Half, c10::Half)#1}, "
        "at::detail::Array<char*, 3>)",
        "vectorized_elementwise_kernel",
        16.0,
        (8192, 1, 1),
        (128, 1, 1),
        30,
        0,
        0,
    ),
]
OPTIMIZER_KERNEL = KernelKind(
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<"
    "float, 4, (at::native::ADAM_MODE)1, false>, bool, double*, double, double, double, double, "
    "double, bool, double const*, double const*>(at::native::(anonymous namespace)::"
    "TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
    "(at::native::ADAM_MODE)1, false>, bool, double*, double, double, double, double, double, "
    "bool, double const*, double const*)",
    "multi_tensor_apply_kernel",
    22.0,
    (320, 1, 1),
    (512, 1, 1),
    64,
    3_616,
    0,
)
NCCL_KERNEL = KernelKind(
    "ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
    "ncclDevKernel_AllReduce_Sum_f16_RING_LL",
    420.0,
    (24, 1, 1),
    (544, 1, 1),
    96,
    0,
    0,
)
ALL_KERNELS = [*FORWARD_KERNELS, LOSS_KERNEL, *BACKWARD_KERNELS, OPTIMIZER_KERNEL, NCCL_KERNEL]
API_CALLS = [
    "cudaLaunchKernel_v7000",
    "cudaLaunchKernelExC_v11060",
    "cudaMemcpyAsync_v3020",
    "cudaMemsetAsync_v3020",
    "cudaStreamSynchronize_v3020",
]
FORWARD_LAYERS = 24
LAUNCHES_PER_FORWARD_LAYER = 5
LAUNCHES_PER_BACKWARD_LAYER = 8
ALL_REDUCE_BUCKETS = 4
OPTIMIZER_LAUNCHES = 24
# CUPTI_ACTIVITY_MEMCPY_KIND_* and CUPTI_ACTIVITY_MEMORY_KIND_*.
HTOD, DTOH = 1, 2
PAGEABLE, PINNED, DEVICE_MEMORY = 1, 2, 3

INSERT_RUNTIME = (
    'INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, "end", eventClass, globalTid, correlationId,'
    " nameId, returnValue, callchainId) VALUES (?, ?, 1, ?, ?, ?, 0, NULL)"
)
# Per kernel: start, end, stream, correlation id (the grid id too), then the kind's columns.
INSERT_KERNEL = (
    'INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, "end", deviceId, contextId, greenContextId,'
    " streamId, correlationId, globalPid, demangledName, shortName, mangledName, launchType,"
    " cacheConfig, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ,"
    " staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId,"
    " sharedMemoryExecuted, graphNodeId, sharedMemoryLimitConfig) VALUES"
    f" (?1, ?2, {DEVICE}, 1, NULL, ?3, ?4, {PROCESS}, ?5, ?6, ?7, 0, 0, ?8, ?9, ?10, ?11, ?12,"
    " ?13, ?14, ?15, ?16, 0, 0, ?4, 233472, NULL, 1)"
)
INSERT_MEMCPY = (
    'INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, "end", deviceId, contextId, greenContextId,'
    " streamId, correlationId, globalPid, bytes, copyKind, deprecatedSrcId, srcKind, dstKind,"
    " srcDeviceId, srcContextId, dstDeviceId, dstContextId, migrationCause, graphNodeId,"
    f" virtualAddress) VALUES (?, ?, {DEVICE}, 1, NULL, ?, ?, {PROCESS}, ?, ?, NULL, ?, ?,"
    " NULL, NULL, NULL, NULL, NULL, NULL, NULL)"
)
INSERT_MEMSET = (
    'INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, "end", deviceId, contextId, greenContextId,'
    " streamId, correlationId, globalPid, value, bytes, graphNodeId, memKind) VALUES"
    f" (?, ?, {DEVICE}, 1, NULL, ?, ?, {PROCESS}, 0, ?, NULL, {DEVICE_MEMORY})"
)
# NVTX push/pop ranges of the default domain: the text inline, as torch.cuda.nvtx writes them.
INSERT_NVTX = (
    'INSERT INTO NVTX_EVENTS (start, "end", eventType, rangeId, category, color, text, globalTid,'
    " endGlobalTid, textId, domainId) VALUES (?, ?, 59, NULL, NULL, NULL, ?, ?, NULL, NULL, 0)"
)


class Strings:
    """StringIds: one id per distinct text, from 1."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def id(self, text: str) -> int:
        return self.ids.setdefault(text, len(self.ids) + 1)


def mangled(short: str) -> str:
    """An Itanium-style name for a kernel (what the export keeps in mangledName)."""
    return f"_Z{len(short)}{short}v"


@dataclass
class Batch:
    """The rows of some steps, one list per table, in the column order of the INSERTs above."""

    runtime: list[tuple[int, ...]] = field(default_factory=list)
    kernels: list[tuple[int, ...]] = field(default_factory=list)
    memcpy: list[tuple[int, ...]] = field(default_factory=list)
    memset: list[tuple[int, ...]] = field(default_factory=list)
    nvtx: list[tuple[int, int, str, int]] = field(default_factory=list)


class TrainingLoop:
    """One step of a data-parallel training loop: the CPU launches ahead of the GPU, which runs
    one kernel at a time per stream; the step ends when the loss is copied back and the host has
    waited for it, so that no GPU work crosses into the next step."""

    def __init__(self, strings: Strings, seed: int) -> None:
        self.random = random.Random(seed)
        self.now = 0  # ns
        self.correlation = 0
        self.compute_free = 0  # when the compute stream's last activity ends
        self.nccl_free = 0
        self.call_ids = {name: strings.id(name) for name in API_CALLS}
        self.kind_columns: dict[KernelKind, tuple[int, ...]] = {}
        for kind in ALL_KERNELS:
            self.kind_columns[kind] = (
                strings.id(kind.demangled),
                strings.id(kind.short),
                strings.id(mangled(kind.short)),
                kind.registers,
                *kind.grid,
                *kind.block,
                kind.static_shared,
                kind.dynamic_shared,
            )

    def _call(self, batch: Batch, name: str, thread: int, dur: int) -> tuple[int, int]:
        """A runtime call at `now` on `thread`; returns its correlation id and end."""
        correlation = self.correlation
        self.correlation += 1
        end = self.now + dur
        batch.runtime.append((self.now, end, thread, correlation, self.call_ids[name]))
        return correlation, end

    def _kernel(
        self, batch: Batch, kind: KernelKind, thread: int, stream: int = COMPUTE_STREAM
    ) -> None:
        random_ = self.random
        launch = "cudaLaunchKernelExC_v11060" if kind is NCCL_KERNEL else "cudaLaunchKernel_v7000"
        correlation, call_end = self._call(
            batch, launch, thread, 3_000 + int(random_.random() * 3_000)
        )
        ready = call_end + 1_500
        free = self.nccl_free if stream == NCCL_STREAM else self.compute_free
        start = max(ready, free + 1_200)
        end = start + int(kind.base_us * 1_000 * (0.85 + 0.3 * random_.random()))
        if stream == NCCL_STREAM:
            self.nccl_free = end
        else:
            self.compute_free = end
        row = (start, end, stream, correlation, *self.kind_columns[kind])
        batch.kernels.append(row)
        self.now = call_end + 2_000 + int(random_.random() * 6_000)

    def _copy(self, batch: Batch, kind: int, nbytes: int, thread: int) -> int:
        correlation, call_end = self._call(batch, "cudaMemcpyAsync_v3020", thread, 6_000)
        start = max(call_end + 2_000, self.compute_free + 1_000)
        end = start + 2_000 + nbytes // 20_000  # about 20 GB/s over PCIe
        src, dst = (PINNED, DEVICE_MEMORY) if kind == HTOD else (DEVICE_MEMORY, PAGEABLE)
        batch.memcpy.append((start, end, COMPUTE_STREAM, correlation, nbytes, kind, src, dst))
        self.compute_free = end
        self.now = call_end + 3_000
        return end

    def _memset(self, batch: Batch, nbytes: int, thread: int) -> None:
        correlation, call_end = self._call(batch, "cudaMemsetAsync_v3020", thread, 4_000)
        start = max(call_end + 1_500, self.compute_free + 1_000)
        end = start + 1_500 + nbytes // 1_000_000
        batch.memset.append((start, end, COMPUTE_STREAM, correlation, nbytes))
        self.compute_free = end
        self.now = call_end + 2_500

    def _range(self, batch: Batch, text: str, start: int, thread: int) -> None:
        batch.nvtx.append((start, self.now, text, thread))

    def step_into(self, batch: Batch) -> None:
        step_start = self.now
        random_ = self.random
        # Data loading: the host waits for the next batch, then copies it in.
        self.now += 400_000 + int(random_.random() * 900_000)
        self._range(batch, "data_loading", step_start, MAIN_THREAD)
        self._copy(batch, HTOD, 8 * MIB, MAIN_THREAD)
        self._copy(batch, HTOD, 64 * 1024, MAIN_THREAD)
        forward_start = self.now
        for _ in range(FORWARD_LAYERS):
            for kind in FORWARD_KERNELS:
                self._kernel(batch, kind, MAIN_THREAD)
        self._kernel(batch, LOSS_KERNEL, MAIN_THREAD)
        self._range(batch, "forward", forward_start, MAIN_THREAD)
        # Backward on autograd's thread, gradients reduced in buckets as they are ready.
        backward_start = self.now
        self._memset(batch, 16 * MIB, AUTOGRAD_THREAD)
        bucket_every = max(1, FORWARD_LAYERS // ALL_REDUCE_BUCKETS)
        for layer in range(FORWARD_LAYERS):
            for k in range(LAUNCHES_PER_BACKWARD_LAYER):
                self._kernel(batch, BACKWARD_KERNELS[k % len(BACKWARD_KERNELS)], AUTOGRAD_THREAD)
            if (layer + 1) % bucket_every == 0:
                self.nccl_free = max(self.nccl_free, self.compute_free)
                self._kernel(batch, NCCL_KERNEL, AUTOGRAD_THREAD, NCCL_STREAM)
        self._range(batch, "backward", backward_start, AUTOGRAD_THREAD)
        # The optimizer waits for the last all-reduce.
        optimizer_start = self.now
        self.compute_free = max(self.compute_free, self.nccl_free)
        self._memset(batch, 4, MAIN_THREAD)
        for _ in range(OPTIMIZER_LAUNCHES):
            self._kernel(batch, OPTIMIZER_KERNEL, MAIN_THREAD)
        self._range(batch, "optimizer.step", optimizer_start, MAIN_THREAD)
        # loss.item(): a copy back, then the host waits for the stream.
        copied = self._copy(batch, DTOH, 4, MAIN_THREAD)
        correlation = self.correlation
        self.correlation += 1
        sync_end = max(self.now + 3_000, copied + 4_000)
        sync_id = self.call_ids["cudaStreamSynchronize_v3020"]
        batch.runtime.append((self.now, sync_end, MAIN_THREAD, correlation, sync_id))
        self.now = sync_end + 20_000
        self._range(batch, STEP_TEXT, step_start, MAIN_THREAD)


STEP_TEXT = ""  # stands for `ProfilerStep#N` in a template's NVTX rows


@dataclass
class StepTemplate:
    """One step's rows, times from 0 and correlation ids from 0: a step of the export is a
    template shifted by the step's start and first correlation id."""

    runtime: list[tuple[int, int, int, int, int]]
    kernels: list[tuple[int, int, int, int, tuple[int, ...]]]  # start, end, stream, id, kind
    memcpy: list[tuple[int, ...]]
    memset: list[tuple[int, ...]]
    nvtx: list[tuple[int, int, str, int]]
    duration: int
    correlations: int


def make_templates(strings: Strings, seed: int, count: int) -> list[StepTemplate]:
    """`count` steps, each with its own durations and gaps (seeded). Shifting a few dozen
    templates costs a tenth of simulating every step in Python."""
    loop = TrainingLoop(strings, seed)
    templates = []
    for _ in range(count):
        loop.now = loop.correlation = loop.compute_free = loop.nccl_free = 0
        batch = Batch()
        loop.step_into(batch)
        templates.append(
            StepTemplate(
                runtime=[(r[0], r[1], r[2], r[3], r[4]) for r in batch.runtime],
                kernels=[(k[0], k[1], k[2], k[3], k[4:]) for k in batch.kernels],
                memcpy=batch.memcpy,
                memset=batch.memset,
                nvtx=batch.nvtx,
                duration=loop.now,
                correlations=loop.correlation,
            )
        )
    return templates


class Timeline:
    """Steps one after the other: templates shifted in time and correlation id, in the order a
    seeded generator picks them."""

    def __init__(self, templates: list[StepTemplate], seed: int) -> None:
        self.templates = templates
        self.random = random.Random(seed)
        self.now = 2_000_000_000  # ns since the capture started
        self.correlation = 1
        self.step = 0

    def step_into(self, batch: Batch) -> None:
        template = self.templates[self.random.randrange(len(self.templates))]
        t, c = self.now, self.correlation
        batch.runtime.extend([(s + t, e + t, h, k + c, n) for s, e, h, k, n in template.runtime])
        # Concatenated rather than unpacked: twice as fast, and most rows are kernels.
        batch.kernels.extend(
            [(s + t, e + t, q, k + c) + kind for s, e, q, k, kind in template.kernels]  # noqa: RUF005
        )
        batch.memcpy.extend([(r[0] + t, r[1] + t, r[2], r[3] + c, *r[4:]) for r in template.memcpy])
        batch.memset.extend([(r[0] + t, r[1] + t, r[2], r[3] + c, *r[4:]) for r in template.memset])
        name = f"ProfilerStep#{self.step}"
        batch.nvtx.extend([(s + t, e + t, text or name, h) for s, e, text, h in template.nvtx])
        self.now += template.duration
        self.correlation += template.correlations
        self.step += 1


def insert_batch(db: sqlite3.Connection, batch: Batch) -> None:
    db.executemany(INSERT_RUNTIME, batch.runtime)
    db.executemany(INSERT_KERNEL, batch.kernels)
    db.executemany(INSERT_MEMCPY, batch.memcpy)
    db.executemany(INSERT_MEMSET, batch.memset)
    db.executemany(INSERT_NVTX, batch.nvtx)


def insert_fixed_rows(db: sqlite3.Connection, strings: Strings) -> None:
    """What an export holds besides the activity: versions, the process, threads, the GPU."""
    db.executemany(
        "INSERT INTO META_DATA_EXPORT VALUES (?, ?)",
        [("EXPORT_SCHEMA_VERSION", "3.15.1"), ("EXPORT_PRODUCT_VERSION", "2024.5.1.113")],
    )
    db.executemany(
        "INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (?, ?, ?)",
        [
            (59, "NvtxPushPopRange", "NVTX Push/Pop Range"),
            (60, "NvtxStartEndRange", "NVTX Start/End Range"),
            (75, "NvtxDomainCreate", "NVTX Domain Create"),
        ],
    )
    db.execute("INSERT INTO PROCESSES VALUES (?, ?, 'python')", (PROCESS, PID))
    db.executemany(
        "INSERT INTO ThreadNames VALUES (?, 0, ?)",
        [(strings.id("python"), MAIN_THREAD), (strings.id("pt_autograd_0"), AUTOGRAD_THREAD)],
    )
    db.execute(
        "INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, isDiscrete, l2CacheSize,"
        " totalMemory, memoryBandwidth, clockRate, smCount, chipName, cuDevice, computeMajor,"
        " computeMinor, maxThreadsPerBlock, maxWarpsPerSm, threadsPerWarp) VALUES (0, ?,"
        " 'NVIDIA H100 80GB HBM3', '0000:18:00.0', 1, 52428800, 85520809984, 3352320000000,"
        " 1980000000, 132, 'GH100', ?, 9, 0, 1024, 64, 32)",
        (DEVICE, DEVICE),
    )
    # The model's parameters and optimizer state, allocated before the loop.
    allocations = [
        (1_000_000 + 2_000 * k, PROCESS, DEVICE, 1, 0x7F0000000000 + k * 512 * MIB, 512 * MIB, 3, 0)
        for k in range(24)
    ]
    db.executemany(
        "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId, address,"
        " bytes, memKind, memoryOperationType) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        allocations,
    )


def generate(path: Path, size_mib: int, schema: str) -> int:
    """Writes an export of at least `size_mib` MiB to `path` (through a temporary name);
    returns the number of steps."""
    temp = path.with_name(path.name + ".partial")
    temp.unlink(missing_ok=True)
    db = sqlite3.connect(temp, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        db.execute("PRAGMA cache_size = -262144")  # 256 MiB of pages
        db.execute("BEGIN")
        for statement in schema.split(";"):
            if statement.strip():
                db.execute(statement)
        strings = Strings()
        timeline = Timeline(make_templates(strings, SEED, TEMPLATES), SEED + 1)
        insert_fixed_rows(db, strings)
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        target = size_mib * MIB
        while db.execute("PRAGMA page_count").fetchone()[0] * page_size < target:
            batch = Batch()
            for _ in range(STEPS_PER_BATCH):
                timeline.step_into(batch)
            insert_batch(db, batch)
        db.executemany(
            "INSERT INTO StringIds VALUES (?, ?)", [(i, s) for s, i in strings.ids.items()]
        )
        db.execute("COMMIT")
    finally:
        db.close()
    os.replace(temp, path)
    return timeline.step


def ensure_export(workdir: Path, size_mib: int) -> Path:
    """The cached export for this size, generator and schema, made in a child process when
    missing (the parent's memory would otherwise show in every measured child's ru_maxrss:
    a child inherits it through fork, before exec)."""
    schema = read_fixture_schema(FIXTURE)
    path = workdir / f"nsys_{size_mib}mib_g{GENERATOR_VERSION}_s{schema_key(schema)}.sqlite"
    if path.exists():
        return path
    print(f"generating {path} ...", file=sys.stderr, flush=True)
    start = time.perf_counter()
    command = [sys.executable, __file__, "--generate-only", str(path), "--size-mb", str(size_mib)]
    subprocess.run(command, check=True)
    seconds = time.perf_counter() - start
    print(
        f"generated {path.stat().st_size / MIB:,.0f} MiB in {seconds:.1f} s",
        file=sys.stderr,
        flush=True,
    )
    return path


# -------------------------------------------------------------------------------- baseline


def baseline(export: Path, out: Path) -> None:
    """What one-off readers of an export do: each table into a DataFrame with pandas, then the
    GPU busy time of each `ProfilerStep#N` range (the union of kernel, memcpy and memset time
    that starts in the range). Writes the per-step figures to `out` as JSON."""
    import pandas as pd

    db = sqlite3.connect(export)
    read = pd.read_sql_query
    kernels = read(
        "SELECT start, end, deviceId, streamId, correlationId, globalPid, demangledName "
        "FROM CUPTI_ACTIVITY_KIND_KERNEL",
        db,
    )
    read("SELECT start, end, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME", db)
    memcpy = read(
        "SELECT start, end, deviceId, streamId, correlationId, bytes, copyKind "
        "FROM CUPTI_ACTIVITY_KIND_MEMCPY",
        db,
    )
    memset = read(
        "SELECT start, end, deviceId, streamId, correlationId, bytes "
        "FROM CUPTI_ACTIVITY_KIND_MEMSET",
        db,
    )
    nvtx = read(
        "SELECT n.start, n.end, n.globalTid, COALESCE(n.text, s.value) AS name "
        "FROM NVTX_EVENTS AS n LEFT JOIN StringIds AS s ON n.textId = s.id "
        "WHERE n.eventType IN (59, 60)",
        db,
    )
    db.close()
    steps = nvtx[nvtx["name"].str.startswith("ProfilerStep#")].sort_values("start")
    gpu = pd.concat([frame[["start", "end"]] for frame in (kernels, memcpy, memset)])
    gpu = gpu.sort_values("start", kind="stable")
    # Busy intervals: a new one opens where an activity starts after all before it ended.
    reach = gpu["end"].cummax()
    opens = gpu["start"] > reach.shift(fill_value=gpu["start"].iloc[0] - 1)
    busy = pd.DataFrame({"start": gpu["start"], "end": reach}).groupby(opens.cumsum().values)
    intervals = busy.agg(start=("start", "min"), end=("end", "max"))
    step_of = steps["start"].searchsorted(intervals["start"], side="right") - 1
    inside = step_of >= 0
    per_step = (
        (intervals["end"] - intervals["start"])[inside].groupby(step_of[inside]).sum()
    ).reindex(range(len(steps)), fill_value=0)
    document = {
        "steps": [
            {"name": name, "gpu_busy_ns": int(value)}
            for name, value in zip(steps["name"], per_step, strict=True)
        ]
    }
    out.write_text(json.dumps(document) + "\n")


# ------------------------------------------------------------------------------ measurement


@dataclass
class Run:
    seconds: float
    peak_rss_bytes: int


class CommandFailed(RuntimeError):
    pass


def measure(command: list[str], stdout: Path) -> Run:
    """Wall seconds and peak RSS (its own, through wait4) of one run of `command`, its stdout
    written to `stdout`."""
    with stdout.open("wb") as out:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE)
        assert process.stderr is not None
        error = process.stderr.read()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise CommandFailed(
            f"exit {process.returncode}: {' '.join(command)}\n{error.decode(errors='replace')}"
        )
    return Run(seconds, usage.ru_maxrss * 1024)


def warm_page_cache(path: Path) -> None:
    """Reads the file once, untimed, so that each timed run finds it in the page cache."""
    with path.open("rb") as handle:
        while handle.read(16 * MIB):
            pass


def median_run(runs: list[Run]) -> Run:
    return Run(statistics.median(r.seconds for r in runs), max(r.peak_rss_bytes for r in runs))


# -------------------------------------------------------------------------------- reporting


def find_stepscope(explicit: str | None) -> Path:
    """--stepscope, else `stepscope` on PATH, else build/release/stepscope."""
    found = explicit or shutil.which("stepscope") or str(REPO / "build" / "release" / "stepscope")
    path = Path(found).resolve()
    if not path.is_file() or not os.access(path, os.X_OK):
        raise SystemExit(f"no stepscope binary at {found}: pass --stepscope PATH")
    return path


def text_of(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


def cpu_model() -> str:
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
    except OSError:
        cpuinfo = ""
    for key in ("model name", "Model", "Hardware", "cpu model"):
        match = re.search(rf"^{re.escape(key)}\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
        if match:
            return match.group(1).strip()
    return platform.processor() or "unknown"


def memory_total() -> str:
    try:
        meminfo = Path("/proc/meminfo").read_text()
    except OSError:
        return "unknown"
    found = {
        key: int(value)
        for key, value in re.findall(r"^(MemTotal|MemAvailable):\s*(\d+)\s*kB", meminfo, re.M)
    }
    if "MemTotal" not in found:
        return "unknown"
    text = f"{found['MemTotal'] / 2**20:.1f} GiB"
    if "MemAvailable" in found:
        text += f" ({found['MemAvailable'] / 2**20:.1f} GiB available)"
    return text


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg()) + " (1, 5, 15 min)"
    except OSError:
        return "unknown"


def git_commit() -> str:
    commit = text_of(["git", "-C", str(REPO), "rev-parse", "--short=12", "HEAD"]) or "unknown"
    changed = text_of(["git", "-C", str(REPO), "status", "--porcelain", "-uno"])
    return commit + (" (with local changes)" if changed else "")


def header(stepscope: Path) -> dict[str, str]:
    version = text_of([str(stepscope), "--version"]) or "unknown version"
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 0
    now = datetime.datetime.now(datetime.timezone.utc)
    return {
        "cpu": cpu_model(),
        "cores": f"{os.cpu_count()} ({usable} usable by this process)",
        "memory": memory_total(),
        "python": platform.python_version(),
        "stepscope": f"{version} ({stepscope})",
        "commit": git_commit(),
        "date": now.strftime("%Y-%m-%d %H:%M:%S UTC"),
        "load average at start": load_average(),
    }


HEADER_WIDTH_KEY = "load average at start"  # the header's longest key


def print_lines(lines: dict[str, str]) -> None:
    width = len(HEADER_WIDTH_KEY) + 1
    for key, value in lines.items():
        print(f"{key + ':':{width}} {value}", flush=True)


def judged_ratio(ratio: float, target: float) -> str:
    """Three significant digits, more where rounding would cross the target (9.996 -> 9.996)."""
    for digits in range(3, 8):
        text = f"{ratio:.{digits}g}"
        if (float(text) >= target) == (ratio >= target):
            return text
    return repr(ratio)


def table(size_bytes: int, ours: Run, theirs: Run, repeat: int) -> list[str]:
    size_mib = size_bytes / MIB
    ratio = theirs.seconds / ours.seconds
    verdict = "met" if ratio >= TARGET_RATIO else "not met"
    runs = f"median of {repeat}" if repeat > 1 else "1 run"
    return [
        "| figure | export | stepscope | baseline (pandas) | baseline / stepscope | target "
        "| result |",
        "|---|---|---|---|---|---|---|",
        f"| analyze, end to end ({runs}) | {size_mib:,.0f} MiB "
        f"| {ours.seconds:.2f} s, {size_bytes / MB / ours.seconds:,.1f} MB/s "
        f"| {theirs.seconds:.2f} s, {size_bytes / MB / theirs.seconds:,.1f} MB/s "
        f"| {judged_ratio(ratio, TARGET_RATIO)}x | ≥ {TARGET_RATIO:g}x | {verdict} |",
        f"| peak RSS (ru_maxrss) / export size | {size_mib:,.0f} MiB "
        f"| {ours.peak_rss_bytes / MIB:,.0f} MiB, {ours.peak_rss_bytes / size_bytes:.2f}x "
        f"| {theirs.peak_rss_bytes / MIB:,.0f} MiB, {theirs.peak_rss_bytes / size_bytes:.2f}x "
        "| | | reported |",
    ]


def agreement(stepscope_json: Path, baseline_json: Path) -> str:
    """Steps and GPU busy time of both sides, so that a reader sees they measured the same loop:
    stepscope's from its JSON (`ranks[0]`), the baseline's from its own."""
    theirs = json.loads(baseline_json.read_text())["steps"]
    their_busy_s = sum(step["gpu_busy_ns"] for step in theirs) / 1e9
    try:
        rank = json.loads(stepscope_json.read_text())["ranks"][0]
        our_steps = str(rank["steps"]["count"])
        our_busy = sum(device["busy_us"] for device in rank["gpu_temporal"]["devices"]) / 1e6
        our_busy_s = f"{our_busy:,.3f} s"
    except (KeyError, IndexError, TypeError):
        our_steps, our_busy_s = "not in its JSON", "not in its JSON"
    return (
        f"steps: stepscope {our_steps}, baseline {len(theirs)}; GPU busy time: stepscope "
        f"{our_busy_s}, baseline {their_busy_s:,.3f} s"
    )


# ------------------------------------------------------------------------------------- main


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size-mb", type=int, help="export size, MiB (default 1024; --ci: 64)")
    parser.add_argument("--repeat", type=int, help="timed runs of each side (default 3; --ci: 1)")
    parser.add_argument("--ci", action="store_true", help="64 MiB export, one run of each")
    parser.add_argument(
        "--stepscope", help="the binary (default: stepscope on PATH, else build/release)"
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=REPO / "build" / "bench-nsys",
        help="the generated export (kept and reused) and the outputs",
    )
    parser.add_argument("--generate-only", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--baseline", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.size_mb is None:
        args.size_mb = 64 if args.ci else 1024
    if args.repeat is None:
        args.repeat = 1 if args.ci else 3
    if args.size_mb < 1 or args.repeat < 1:
        parser.error("--size-mb and --repeat must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.generate_only is not None:
        generate(args.generate_only, args.size_mb, read_fixture_schema(FIXTURE))
        return 0
    if args.baseline is not None:
        baseline(args.baseline[0], args.baseline[1])
        return 0
    stepscope = find_stepscope(args.stepscope)
    if importlib.util.find_spec("pandas") is None:
        print("the baseline needs pandas: python3 -m pip install pandas", file=sys.stderr)
        return 1
    print_lines(header(stepscope))
    workdir: Path = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        export = ensure_export(workdir, args.size_mb)
    except subprocess.CalledProcessError as error:
        print(f"generating the export failed: {error}", file=sys.stderr)
        return 1
    print(f"{'export:':{len(HEADER_WIDTH_KEY) + 1}} {export}", flush=True)
    ours_json = workdir / "stepscope.json"
    theirs_json = workdir / "baseline.json"
    ours_command = [str(stepscope), "analyze", str(export), "--json", str(ours_json), "-q"]
    theirs_command = [sys.executable, __file__, "--baseline", str(export), str(theirs_json)]
    ours: list[Run] = []
    theirs: list[Run] = []
    try:
        # Alternately, so that both sides see the same drift in a shared machine's load.
        for run in range(1, args.repeat + 1):
            warm_page_cache(export)
            ours.append(measure(ours_command, workdir / "stepscope-report.txt"))
            warm_page_cache(export)
            theirs.append(measure(theirs_command, workdir / "baseline-stdout.txt"))
            print(
                f"run {run}/{args.repeat}: stepscope {ours[-1].seconds:.2f} s, "
                f"baseline {theirs[-1].seconds:.2f} s",
                file=sys.stderr,
                flush=True,
            )
    except CommandFailed as error:
        print(f"command failed: {error}", file=sys.stderr)
        return 1
    print()
    for line in table(export.stat().st_size, median_run(ours), median_run(theirs), args.repeat):
        print(line)
    print()
    print(agreement(ours_json, theirs_json))
    print("runs (s): stepscope " + ", ".join(f"{r.seconds:.2f}" for r in ours), end="")
    print("; baseline " + ", ".join(f"{r.seconds:.2f}" for r in theirs))
    print(f"load average at end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
