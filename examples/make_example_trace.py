#!/usr/bin/env python3
"""Write a synthetic Kineto (PyTorch profiler) trace of a small training loop.

The trace follows the schema real traces use (object form with deviceProperties and
distributedInfo; ProfilerStep#N annotations; cpu_op / cuda_runtime / kernel / gpu_memcpy events
linked by correlation and External id; ac2g flows; [memory] instant events; thread metadata), so
stepscope reads it like a trace recorded on a GPU. Times are microseconds with three decimals.

The loop has a visible bottleneck, chosen with --bottleneck:
  input    (default) the DataLoader runs in the main process: the GPU idles most of each step;
  launch   a tiny model at batch size one: many short kernels, the GPU waits on launches;
  healthy  big matrix multiplies under bf16 with a prefetching loader: the GPU stays busy.

Deterministic for a given --seed. Written to a temporary file and renamed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PID = 4242
MAIN_TID = 4242
BACKWARD_TID = 4250
DEVICE = 0
STREAM = 7
BASE_US = 1_700_000_000_000.0  # a realistic epoch-scale microsecond timestamp

Event = dict[str, Any]


@dataclass
class Builder:
    """Accumulates events; hands out correlation and External ids like Kineto does."""

    rng: random.Random
    events: list[Event] = field(default_factory=list)
    next_id: int = 1
    gpu_free_at: float = 0.0  # when the stream finishes its queued work
    allocated: int = 2 << 30
    reserved: int = 4 << 30

    def take_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def complete(
        self,
        cat: str,
        name: str,
        ts: float,
        dur: float,
        tid: int = MAIN_TID,
        pid: int = PID,
        args: dict[str, Any] | None = None,
    ) -> None:
        event: Event = {
            "ph": "X",
            "cat": cat,
            "name": name,
            "pid": pid,
            "tid": tid,
            "ts": round(BASE_US + ts, 3),
            "dur": round(dur, 3),
        }
        if args:
            event["args"] = args
        self.events.append(event)

    def op(
        self,
        name: str,
        ts: float,
        dur: float,
        tid: int = MAIN_TID,
        args: dict[str, Any] | None = None,
    ) -> int:
        external = self.take_id()
        self.complete("cpu_op", name, ts, dur, tid, args={"External id": external, **(args or {})})
        return external

    def launch(
        self,
        kernel: str,
        ts: float,
        gpu_us: float,
        external: int,
        tid: int = MAIN_TID,
        category: str = "kernel",
        call: str = "cudaLaunchKernel",
        extra: dict[str, Any] | None = None,
    ) -> float:
        """A launch call of 5 µs at ts and its device activity, queued behind earlier work."""
        correlation = self.take_id()
        self.complete(
            "cuda_runtime",
            call,
            ts,
            5.0,
            tid,
            args={"External id": external, "correlation": correlation, "cbid": 211},
        )
        start = max(ts + 6.0, self.gpu_free_at) + self.rng.uniform(0.5, 2.0)
        args: dict[str, Any] = {
            "External id": external,
            "device": DEVICE,
            "context": 1,
            "stream": STREAM,
            "correlation": correlation,
            **(extra or {}),
        }
        if "bytes" in args:  # copies and memsets: Kineto adds the achieved bandwidth
            args["memory bandwidth (GB/s)"] = args["bytes"] / (gpu_us * 1e3)
        if category == "kernel":
            args.update(
                {
                    "queued": 0,
                    "registers per thread": 64,
                    "shared memory": 16384,
                    "blocks per SM": 2.5,
                    "warps per SM": 20.0,
                    "grid": [330, 1, 1],
                    "block": [256, 1, 1],
                    "est. achieved occupancy %": 50,
                }
            )
        self.complete(category, kernel, start, gpu_us, tid=STREAM, pid=DEVICE, args=args)
        flow = {"id": correlation, "pid": PID, "tid": tid, "cat": "ac2g", "name": "ac2g"}
        self.events.append({**flow, "ph": "s", "ts": round(BASE_US + ts, 3)})
        self.events.append(
            {
                **flow,
                "ph": "f",
                "bp": "e",
                "pid": DEVICE,
                "tid": STREAM,
                "ts": round(BASE_US + start, 3),
            }
        )
        self.gpu_free_at = start + gpu_us
        return start + gpu_us

    def memset(self, ts: float, external: int, size: int) -> None:
        """cudaMemsetAsync at ts and its `Memset (Device)` activity, with no random jitter (so
        adding it leaves every other time of the trace unchanged)."""
        correlation = self.take_id()
        self.complete(
            "cuda_runtime",
            "cudaMemsetAsync",
            ts,
            4.0,
            args={"External id": external, "correlation": correlation, "cbid": 51},
        )
        start = max(ts + 6.0, self.gpu_free_at) + 1.0
        duration = 1.5
        self.complete(
            "gpu_memset",
            "Memset (Device)",
            start,
            duration,
            tid=STREAM,
            pid=DEVICE,
            args={
                "External id": external,
                "device": DEVICE,
                "context": 1,
                "stream": STREAM,
                "correlation": correlation,
                "bytes": size,
                "memory bandwidth (GB/s)": size / (duration * 1e3),
            },
        )
        flow = {"id": correlation, "pid": PID, "tid": MAIN_TID, "cat": "ac2g", "name": "ac2g"}
        self.events.append({**flow, "ph": "s", "ts": round(BASE_US + ts, 3)})
        self.events.append(
            {
                **flow,
                "ph": "f",
                "bp": "e",
                "pid": DEVICE,
                "tid": STREAM,
                "ts": round(BASE_US + start, 3),
            }
        )
        self.gpu_free_at = max(self.gpu_free_at, start + duration)

    def memory(self, ts: float, delta: int, address: int) -> None:
        self.allocated += delta
        self.events.append(
            {
                "ph": "i",
                "cat": "cpu_instant_event",
                "s": "t",
                "name": "[memory]",
                "pid": PID,
                "tid": MAIN_TID,
                "ts": round(BASE_US + ts, 3),
                "args": {
                    "Total Reserved": self.reserved,
                    "Total Allocated": self.allocated,
                    "Bytes": delta,
                    "Addr": address,
                    "Device Id": DEVICE,
                    "Device Type": 1,
                },
            }
        )


@dataclass(frozen=True)
class Shape:
    """The model and loop that make each bottleneck visible."""

    loader_us: float
    layers: int
    gemm_us: float
    gemm_kernel: str
    dtype: str
    batch: int
    width: int
    elementwise_per_layer: int
    pinned: bool


SHAPES = {
    "input": Shape(
        loader_us=38_000,
        layers=4,
        gemm_us=1_300,
        dtype="float",
        gemm_kernel="ampere_sgemm_128x64_tn",
        batch=64,
        width=1024,
        elementwise_per_layer=2,
        pinned=False,
    ),
    "launch": Shape(
        loader_us=300,
        layers=24,
        gemm_us=6,
        dtype="float",
        gemm_kernel="ampere_sgemm_32x32_sliced1x4_tn",
        batch=1,
        width=64,
        elementwise_per_layer=8,
        pinned=True,
    ),
    "healthy": Shape(
        loader_us=150,
        layers=8,
        gemm_us=2_400,
        dtype="c10::BFloat16",
        gemm_kernel="sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
        batch=256,
        width=4096,
        elementwise_per_layer=1,
        pinned=True,
    ),
}


def linear(b: Builder, shape: Shape, t: float, layer: int) -> float:
    """aten::linear -> aten::addmm -> GEMM kernel, then the activation's elementwise kernels."""
    dims = [[shape.width], [shape.batch, shape.width], [shape.width, shape.width]]
    types = [shape.dtype] * 3
    # linear(input, weight, bias); addmm(bias, input, weight.t())
    linear_dims = [dims[1], dims[2], dims[0]]
    outer = b.op("aten::linear", t, 40.0, args={"Input Dims": linear_dims, "Input type": types})
    inner = b.op("aten::addmm", t + 8, 28.0, args={"Input Dims": dims, "Input type": types})
    b.launch(shape.gemm_kernel, t + 20, shape.gemm_us * b.rng.uniform(0.95, 1.05), inner)
    del outer
    t += 45
    for k in range(shape.elementwise_per_layer):
        external = b.op("aten::relu" if k == 0 else "aten::add", t, 14.0)
        b.launch(
            "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add"
            "<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>,"
            " at::detail::Array<char*, 3>)",
            t + 5,
            9.0 + layer % 3,
            external,
        )
        t += 18
    return t


def backward(b: Builder, shape: Shape, t: float) -> float:
    """The autograd engine on its own thread: two GEMMs per layer."""
    for _ in range(shape.layers):
        root = b.op(
            "autograd::engine::evaluate_function: AddmmBackward0", t, 80.0, tid=BACKWARD_TID
        )
        del root
        node = b.op("AddmmBackward0", t + 2, 75.0, tid=BACKWARD_TID)
        del node
        for offset in (5.0, 40.0):
            mm = b.op("aten::mm", t + offset, 30.0, tid=BACKWARD_TID)
            b.launch(shape.gemm_kernel, t + offset + 10, shape.gemm_us, mm, tid=BACKWARD_TID)
        t += 85
    return t


def optimizer(b: Builder, shape: Shape, t: float) -> float:
    """SGD without foreach: one small kernel per parameter."""
    start = t
    t += 5
    for _ in range(shape.layers * 2):
        external = b.op("aten::add_", t, 12.0)
        b.launch(
            "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor"
            "<float, float, float, at::native::binary_internal::MulFunctor<float> >, "
            "at::detail::Array<char*, 2> >",
            t + 4,
            4.0,
            external,
        )
        t += 15
    b.complete("user_annotation", "Optimizer.step#SGD.step", start, t - start + 5)
    return t + 5


def step(b: Builder, shape: Shape, number: int, t0: float) -> float:
    t = t0 + 10
    loader = shape.loader_us * b.rng.uniform(0.92, 1.08)
    b.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t, loader)
    t += loader + 20
    # The batch goes to the GPU.
    copy = b.op("aten::to", t, 60.0)
    b.op("aten::copy_", t + 5, 50.0)
    kind = "Pinned" if shape.pinned else "Pageable"
    b.launch(
        f"Memcpy HtoD ({kind} -> Device)",
        t + 10,
        380.0 if not shape.pinned else 120.0,
        copy,
        category="gpu_memcpy",
        call="cudaMemcpyAsync",
        extra={"bytes": shape.batch * shape.width * 4},
    )
    t += 70
    b.memory(t, 64 << 20, 0x7F0000000000 + number * 0x1000000)
    forward_start = t
    for layer in range(shape.layers):
        t = linear(b, shape, t, layer)
    loss = b.op("aten::cross_entropy_loss", t, 30.0)
    b.launch(
        "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d"
        "<float, float, long>",
        t + 10,
        12.0,
        loss,
    )
    t += 35
    b.complete("user_annotation", "## forward ##", forward_start - 2, t - forward_start + 4)
    # loss.item() in the loop: a device-to-host copy and a stream synchronize.
    item = b.op("aten::item", t, 0.0)
    dense = b.op("aten::_local_scalar_dense", t + 2, 0.0)
    end = b.launch(
        "Memcpy DtoH (Device -> Pageable)",
        t + 5,
        2.0,
        dense,
        category="gpu_memcpy",
        call="cudaMemcpyAsync",
        extra={"bytes": 4},
    )
    sync_correlation = b.take_id()
    b.complete(
        "cuda_runtime",
        "cudaStreamSynchronize",
        t + 12,
        max(end - t - 12, 3.0) + 2,
        args={"External id": dense, "correlation": sync_correlation, "cbid": 131},
    )
    t = max(end, t + 15) + 4
    for event in reversed(b.events):  # close the two ops around the synchronize
        if event.get("args", {}).get("External id") in (item, dense) and event["cat"] == "cpu_op":
            event["dur"] = round(BASE_US + t - event["ts"], 3)
    # The stream is drained here: zeroing a gradient buffer costs no step time.
    zero = b.op(
        "aten::zero_", t + 1, 8.0, args={"Input Dims": [[shape.width]], "Input type": [shape.dtype]}
    )
    b.memset(t + 2, zero, shape.width * 4)
    t = backward(b, shape, t + 10)
    t = max(t, b.gpu_free_at - 200)
    b.memory(t, -(64 << 20), 0x7F0000000000 + number * 0x1000000)
    t = optimizer(b, shape, t + 10)
    b.op("Optimizer.zero_grad#SGD.zero_grad", t, 20.0)
    t += 30
    b.complete("user_annotation", f"ProfilerStep#{number}", t0, t - t0)
    return max(t, b.gpu_free_at) + 15


def build_trace(steps: int = 8, seed: int = 7, bottleneck: str = "input") -> dict[str, Any]:
    shape = SHAPES[bottleneck]
    b = Builder(rng=random.Random(seed))
    t = 0.0
    for number in range(1, steps + 1):
        t = step(b, shape, number, t)
    b.events.sort(key=lambda e: (e["ts"], -e.get("dur", 0)))
    metadata: list[Event] = [
        {
            "name": "process_name",
            "ph": "M",
            "ts": round(BASE_US, 3),
            "pid": PID,
            "tid": 0,
            "args": {"name": "python3 train.py"},
        },
        {
            "name": "thread_name",
            "ph": "M",
            "ts": round(BASE_US, 3),
            "pid": PID,
            "tid": MAIN_TID,
            "args": {"name": "thread 4242 (python3)"},
        },
        {
            "name": "thread_name",
            "ph": "M",
            "ts": round(BASE_US, 3),
            "pid": PID,
            "tid": BACKWARD_TID,
            "args": {"name": "thread 4250 (pt_autograd_0)"},
        },
        {
            "name": "process_name",
            "ph": "M",
            "ts": round(BASE_US, 3),
            "pid": DEVICE,
            "tid": 0,
            "args": {"name": "GPU 0"},
        },
    ]
    span = {
        "ph": "X",
        "cat": "Trace",
        "ts": round(BASE_US - 100, 3),
        "dur": round(t + 200, 3),
        "pid": "Spans",
        "tid": "PyTorch Profiler",
        "name": "PyTorch Profiler (0)",
        "args": {"Op count": 0},
    }
    return {
        "schemaVersion": 1,
        "deviceProperties": [
            {
                "id": 0,
                "name": "NVIDIA H100 80GB HBM3",
                "totalGlobalMem": 85_520_809_984,
                "computeMajor": 9,
                "computeMinor": 0,
                "maxThreadsPerBlock": 1024,
                "maxThreadsPerMultiprocessor": 2048,
                "regsPerBlock": 65536,
                "regsPerMultiprocessor": 65536,
                "warpSize": 32,
                "sharedMemPerBlock": 49152,
                "sharedMemPerMultiprocessor": 233472,
                "numSms": 132,
                "sharedMemPerBlockOptin": 232448,
            }
        ],
        "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
        "record_shapes": 1,
        "with_stack": 0,
        "profile_memory": 1,
        "traceEvents": [*metadata, span, *b.events],
        "traceName": f"example_{bottleneck}.pt.trace.json",
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": 1_700_000_000_000_000_000,
    }


def write(trace: dict[str, Any], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=out.parent, prefix=out.name, suffix=".tmp")
    os.close(descriptor)
    os.chmod(temporary, 0o644)
    text = json.dumps(trace, separators=(",", ":")).encode()
    try:
        if out.suffix == ".gz":
            # No file name and no time in the header: the same trace gives the same bytes.
            with (
                open(temporary, "wb") as raw,
                gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as compressed,
            ):
                compressed.write(text)
        else:
            Path(temporary).write_bytes(text)
        os.replace(temporary, out)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "example_trace.json.gz",
        help="where to write (gzip when the name ends in .gz; default: the bundled example)",
    )
    parser.add_argument("--steps", type=int, default=8, help="profiler steps (default 8)")
    parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    parser.add_argument(
        "--bottleneck", choices=sorted(SHAPES), default="input", help="default: input"
    )
    args = parser.parse_args()
    write(build_trace(args.steps, args.seed, args.bottleneck), args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
