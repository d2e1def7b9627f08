#!/usr/bin/env python3
"""Record real PyTorch profiler traces of small training loops with planted problems.

Each scenario runs a short loop under torch.profiler (schedule wait=1, warmup=1, active=3,
record_shapes, profile_memory) and writes its trace with tensorboard_trace_handler into
OUT/<scenario>/. The step time of the loop is measured separately (after warm-up, with CUDA
events on a GPU) and written to OUT/summary.json, so that a diagnosis can be compared with what a
fix actually gains. On a CPU-only build the CUDA-only scenarios are skipped with a message.

Scenarios:
  input_bound    a Dataset whose __getitem__ sleeps, num_workers=0
  input_fixed    the same Dataset, num_workers=4, pin_memory, persistent workers, prefetching
  launch_bound   a deep, narrow MLP at batch size 1: many tiny kernels
  sync_in_loop   loss.item() and a .cpu() copy every step
  fp32_gemm      large float32 matrix multiplies with TF32 off
  bf16_gemm      the same under torch.autocast(bfloat16)
  memory_leak    device batches kept in a list: allocated memory grows every step
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class SlowDataset(Dataset[tuple[torch.Tensor, torch.Tensor]]):
    """Each sample costs `delay` seconds of CPU time, like decoding and augmentation."""

    def __init__(self, size: int, features: int, delay: float) -> None:
        self.size, self.features, self.delay = size, features, delay

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        time.sleep(self.delay)
        generator = torch.Generator().manual_seed(index)
        return torch.randn(self.features, generator=generator), torch.tensor(index % 10)


def mlp(width: int, depth: int, device: torch.device) -> nn.Module:
    layers: list[nn.Module] = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.ReLU()]
    layers.append(nn.Linear(width, 10))
    return nn.Sequential(*layers).to(device)


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def loader_batches(loader: DataLoader[Any]) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    while True:
        yield from loader


Step = Callable[[], None]


def training_step(model: nn.Module, optimizer: torch.optim.Optimizer,
                  batches: Iterator[tuple[torch.Tensor, torch.Tensor]], device: torch.device,
                  *, autocast: bool = False, item: bool = False,
                  keep: list[torch.Tensor] | None = None) -> Step:
    loss_fn = nn.CrossEntropyLoss()

    def step() -> None:
        inputs, targets = next(batches)
        inputs = inputs.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=autocast):
            loss = loss_fn(model(inputs), targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if item:
            loss.item()
            model[0].weight.detach().cpu()  # type: ignore[index]
        if keep is not None:
            keep.append(inputs)  # batches kept "for later evaluation": the classic leak

    return step


def scenario(name: str, device: torch.device) -> tuple[Step, int]:
    """The step function of a scenario and its batch size."""
    cuda = device.type == "cuda"
    if name in ("input_bound", "input_fixed"):
        fixed = name == "input_fixed"
        # 0.1 ms a sample: 6.4 ms a batch, which four workers deliver faster than a step takes.
        dataset = SlowDataset(100_000, 1024, delay=0.0001)
        loader = DataLoader(dataset, batch_size=64, shuffle=False, num_workers=4 if fixed else 0,
                            pin_memory=fixed and cuda, persistent_workers=fixed,
                            prefetch_factor=4 if fixed else None)
        model = mlp(1024, 4, device)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        return training_step(model, optimizer, loader_batches(loader), device), 64
    if name == "launch_bound":
        model = mlp(64, 48, device)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, foreach=False)
        data = [(torch.randn(1, 64), torch.tensor([3])) for _ in range(8)]
        return training_step(model, optimizer, iter(data * 1000), device), 1
    if name == "sync_in_loop":
        model = mlp(2048, 6, device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        # Pinned inputs, so that the planted syncs (.item(), .cpu()) are what the trace shows.
        data = [(torch.randn(256, 2048, pin_memory=cuda), torch.randint(0, 10, (256,)))
                for _ in range(4)]
        return training_step(model, optimizer, iter(data * 1000), device, item=True), 256
    if name in ("fp32_gemm", "bf16_gemm"):
        if cuda:
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
        model = mlp(8192, 4, device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=cuda)
        data = [(torch.randn(512, 8192, pin_memory=cuda), torch.randint(0, 10, (512,)))
                for _ in range(4)]
        return training_step(model, optimizer, iter(data * 1000), device,
                             autocast=name == "bf16_gemm"), 512
    if name == "memory_leak":
        model = mlp(2048, 4, device)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        data = [(torch.randn(512, 2048), torch.randint(0, 10, (512,))) for _ in range(4)]
        return training_step(model, optimizer, iter(data * 1000), device, keep=[]), 512
    raise ValueError(f"unknown scenario {name}")


def measure(step: Step, device: torch.device, warmup: int, iters: int) -> list[float]:
    # Warm-up also drains any batches a loader prefetched, so steady state is what is timed.
    """Milliseconds per step after warm-up; CUDA events on a GPU."""
    for _ in range(warmup):
        step()
    synchronize(device)
    times: list[float] = []
    for _ in range(iters):
        if device.type == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            step()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            step()
            times.append((time.perf_counter() - t0) * 1e3)
    return times


def record(step: Step, device: torch.device, folder: Path) -> None:
    activities = [torch.profiler.ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    schedule = torch.profiler.schedule(wait=1, warmup=1, active=3, repeat=1)
    handler = torch.profiler.tensorboard_trace_handler(str(folder), use_gzip=True)
    with torch.profiler.profile(activities=activities, schedule=schedule, on_trace_ready=handler,
                                record_shapes=True, profile_memory=True) as profiler:
        for _ in range(5):
            step()
            profiler.step()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--scenarios", default="input_bound,input_fixed,launch_bound,"
                        "sync_in_loop,fp32_gemm,bf16_gemm,memory_leak")
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--snapshot", action="store_true",
                        help="also dump a CUDA memory snapshot of the memory_leak scenario")
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    summary: dict[str, Any] = {"torch": torch.__version__, "device": str(device),
                               "gpu": torch.cuda.get_device_name() if device.type == "cuda" else None,
                               "scenarios": {}}
    for name in args.scenarios.split(","):
        torch.manual_seed(0)
        if name == "memory_leak" and args.snapshot and device.type == "cuda":
            torch.cuda.memory._record_memory_history(max_entries=100_000)
        step, batch = scenario(name, device)
        times = measure(step, device, warmup=30, iters=args.iters)
        folder = args.out / name
        record(step, device, folder)
        if name == "memory_leak" and args.snapshot and device.type == "cuda":
            torch.cuda.memory._dump_snapshot(str(args.out / "memory_leak_snapshot.pickle"))
            torch.cuda.memory._record_memory_history(enabled=None)
        times.sort()
        summary["scenarios"][name] = {
            "batch": batch, "iters": len(times), "p50_ms": times[len(times) // 2],
            "min_ms": times[0], "max_ms": times[-1],
            "samples_per_s": batch / (times[len(times) // 2] / 1e3),
            "traces": sorted(p.name for p in folder.glob("*.json.gz")),
        }
        print(name, json.dumps(summary["scenarios"][name]), flush=True)
        if device.type == "cuda":
            torch.cuda.empty_cache()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2))
    os.sync()


if __name__ == "__main__":
    main()
