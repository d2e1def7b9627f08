#!/usr/bin/env python3
"""Record real PyTorch profiler traces of small training loops with planted problems.

Each scenario runs a short loop under torch.profiler (schedule wait=1, warmup=1, active=3,
record_shapes, profile_memory, with_stack=False) and writes its trace with
tensorboard_trace_handler into OUT/<scenario>/*.pt.trace.json.gz. The step time of the loop is
measured separately (after warm-up; CUDA events on a GPU, time.perf_counter on the CPU) so that a
diagnosis can be compared with what a fix actually gains. A JSON summary (scenario -> trace files,
step-time statistics in ms) goes to stdout and to OUT/summary.json; progress goes to stderr.

On a CPU-only build the CUDA-only scenarios are skipped with a message (--force runs them on the
CPU anyway, as a smoke test of this script: such traces show nothing about the planted problem).

Scenarios:
  input_bound         a Dataset whose __getitem__ sleeps, num_workers=0
  input_fixed         the same Dataset, num_workers=4, pin_memory, persistent workers, prefetching
  launch_bound        a deep, narrow MLP at batch size 1, SGD foreach=False: many tiny kernels
  sync_in_loop        loss.item() and a .cpu() copy every step (CUDA only)
  fp32_gemm           large float32 matrix multiplies with TF32 off (CUDA only)
  bf16_gemm           the same under torch.autocast(bfloat16) (CUDA only)
  unfused_optimizer   Adam(foreach=False) over many small parameters: one kernel per op per param
  memory_leak         device batches kept in a list: allocated memory grows every step
                      (a CUDA memory snapshot of this one is dumped too, see --snapshot)
  memory_leak_losses  a validation loss kept in a list every step, without no_grad or .item():
                      each keeps its graph and the activations it saved
  healthy             a large bf16 model fed by a pinned DataLoader with workers (CUDA only)

Example:
  python3 tools/record_gpu_traces.py --out /tmp/traces                  # every scenario
  python3 tools/record_gpu_traces.py --out /tmp/t --scenarios input_bound,launch_bound --quick
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

Batch = tuple[torch.Tensor, torch.Tensor]
Step = Callable[[], None]

SCENARIOS: dict[str, bool] = {  # name -> CUDA only
    "input_bound": False,
    "input_fixed": False,
    "launch_bound": False,
    "sync_in_loop": True,
    "fp32_gemm": True,
    "bf16_gemm": True,
    "unfused_optimizer": False,
    "memory_leak": False,
    "memory_leak_losses": False,
    "healthy": True,
}
SNAPSHOT_SCENARIO = "memory_leak"
STEP_NAME = re.compile(r"ProfilerStep#(\d+)")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class SlowDataset(Dataset[Batch]):
    """Each sample costs `delay` seconds of CPU time, like decoding and augmentation."""

    def __init__(self, size: int, features: int, delay: float) -> None:
        self.size, self.features, self.delay = size, features, delay

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> Batch:
        time.sleep(self.delay)
        generator = torch.Generator().manual_seed(index)
        return torch.randn(self.features, generator=generator), torch.tensor(index % 10)


class ReadyDataset(Dataset[Batch]):
    """Samples already decoded in memory: cheap to fetch, so the loader keeps up."""

    def __init__(self, size: int, features: int) -> None:
        self.inputs = torch.randn(size, features)
        self.targets = torch.randint(0, 10, (size,))

    def __len__(self) -> int:
        return 1 << 30

    def __getitem__(self, index: int) -> Batch:
        row = index % len(self.inputs)
        return self.inputs[row], self.targets[row]


def mlp(width: int, depth: int, device: torch.device, features: int | None = None) -> nn.Module:
    layers: list[nn.Module] = []
    previous = features or width
    for _ in range(depth):
        layers += [nn.Linear(previous, width), nn.ReLU()]
        previous = width
    layers.append(nn.Linear(width, 10))
    return nn.Sequential(*layers).to(device)


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def loader_batches(loader: DataLoader[Any]) -> Iterator[Batch]:
    while True:
        yield from loader


def cycle(data: list[Batch]) -> Iterator[Batch]:
    while True:
        yield from data


def training_step(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    batches: Iterator[Batch],
    device: torch.device,
    *,
    autocast: bool = False,
    item: bool = False,
    keep_inputs: list[torch.Tensor] | None = None,
    keep_losses: list[torch.Tensor] | None = None,
) -> Step:
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
        if keep_inputs is not None:
            # Batches kept "for later evaluation": the classic leak. On the CPU .to() returned
            # the cycled batch itself, so keep a copy there to make memory grow as on a GPU.
            keep_inputs.append(inputs if inputs.device.type == "cuda" else inputs.clone())
        if keep_losses is not None:
            # A validation loss "for the log", without torch.no_grad() and without .item(): the
            # list keeps every forward's graph, and with it the activations the graph saved.
            keep_losses.append(loss_fn(model(inputs), targets))

    return step


@dataclass(frozen=True)
class Sizes:
    """Model sizes; --quick shrinks the large ones so a CPU smoke test stays short."""

    gemm_width: int
    healthy_width: int
    healthy_batch: int
    healthy_depth: int


def scenario(name: str, device: torch.device, sizes: Sizes) -> tuple[Step, int]:
    """The step function of a scenario and its batch size."""
    cuda = device.type == "cuda"
    torch.set_float32_matmul_precision("highest")  # no TF32 unless a scenario asks for it
    if name in ("input_bound", "input_fixed"):
        fixed = name == "input_fixed"
        # 0.1 ms a sample: 6.4 ms a batch, which four workers deliver faster than a step takes.
        dataset = SlowDataset(100_000, 1024, delay=0.0001)
        loader = DataLoader(
            dataset,
            batch_size=64,
            shuffle=False,
            num_workers=4 if fixed else 0,
            pin_memory=fixed and cuda,
            persistent_workers=fixed,
            prefetch_factor=4 if fixed else None,
        )
        model = mlp(1024, 4, device)
        optimizer: torch.optim.Optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        return training_step(model, optimizer, loader_batches(loader), device), 64
    if name == "launch_bound":
        model = mlp(64, 48, device)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, foreach=False)
        data = [(torch.randn(1, 64), torch.tensor([3])) for _ in range(8)]
        return training_step(model, optimizer, cycle(data), device), 1
    if name == "sync_in_loop":
        model = mlp(2048, 6, device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        # Pinned inputs, so that the planted syncs (.item(), .cpu()) are what the trace shows.
        data = [
            (torch.randn(256, 2048, pin_memory=cuda), torch.randint(0, 10, (256,)))
            for _ in range(4)
        ]
        return training_step(model, optimizer, cycle(data), device, item=True), 256
    if name in ("fp32_gemm", "bf16_gemm"):
        torch.backends.cudnn.allow_tf32 = False
        width = sizes.gemm_width
        model = mlp(width, 4, device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=cuda)
        data = [
            (torch.randn(512, width, pin_memory=cuda), torch.randint(0, 10, (512,)))
            for _ in range(4)
        ]
        step = training_step(model, optimizer, cycle(data), device, autocast=name == "bf16_gemm")
        return step, 512
    if name == "unfused_optimizer":
        # 82 parameters of at most 256 x 256: Adam without foreach launches about ten tiny
        # kernels for each of them, far more than forward and backward together.
        model = mlp(256, 40, device)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=False)
        data = [(torch.randn(512, 256), torch.randint(0, 10, (512,))) for _ in range(4)]
        return training_step(model, optimizer, cycle(data), device), 512
    if name == "memory_leak":
        model = mlp(2048, 4, device)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        data = [(torch.randn(512, 2048), torch.randint(0, 10, (512,))) for _ in range(4)]
        return training_step(model, optimizer, cycle(data), device, keep_inputs=[]), 512
    if name == "memory_leak_losses":
        model = mlp(1024, 4, device)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        data = [(torch.randn(256, 1024), torch.randint(0, 10, (256,))) for _ in range(4)]
        return training_step(model, optimizer, cycle(data), device, keep_losses=[]), 256
    if name == "healthy":
        batch = sizes.healthy_batch
        loader = DataLoader(
            ReadyDataset(8 * batch, 1024),
            batch_size=batch,
            num_workers=4,
            pin_memory=cuda,
            persistent_workers=True,
            prefetch_factor=4,
        )
        model = mlp(sizes.healthy_width, sizes.healthy_depth, device, features=1024)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=cuda)
        step = training_step(model, optimizer, loader_batches(loader), device, autocast=True)
        return step, batch
    raise ValueError(f"unknown scenario {name}")


def measure(step: Step, device: torch.device, warmup: int, iters: int) -> list[float]:
    """Milliseconds per step after warm-up; CUDA events on a GPU."""
    # Warm-up also drains any batches a loader prefetched, so steady state is what is timed.
    for _ in range(warmup):
        step()
    synchronize(device)
    times: list[float] = []
    for _ in range(iters):
        if device.type == "cuda":
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
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


def record(step: Step, device: torch.device, folder: Path) -> list[Path]:
    """Profile five steps (three active) into folder; the trace files this call wrote."""
    folder.mkdir(parents=True, exist_ok=True)
    before = set(folder.glob("*.pt.trace.json.gz"))
    activities = [torch.profiler.ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    schedule = torch.profiler.schedule(wait=1, warmup=1, active=3, repeat=1)
    handler = torch.profiler.tensorboard_trace_handler(str(folder), use_gzip=True)
    with torch.profiler.profile(
        activities=activities,
        schedule=schedule,
        on_trace_ready=handler,
        record_shapes=True,
        profile_memory=True,
        with_stack=False,
    ) as profiler:
        for _ in range(5):
            step()
            profiler.step()
    return sorted(set(folder.glob("*.pt.trace.json.gz")) - before)


def profiler_steps(trace: Path) -> list[int]:
    """The ProfilerStep numbers in a trace; raises if it is not valid JSON with traceEvents."""
    with gzip.open(trace, "rt") as stream:
        document = json.load(stream)
    events = document["traceEvents"] if isinstance(document, dict) else document
    numbers: set[int] = set()
    for event in events:
        match = STEP_NAME.fullmatch(str(event.get("name", "")))
        if match and event.get("ph") == "X":
            numbers.add(int(match.group(1)))
    return sorted(numbers)


def run_scenario(
    name: str, device: torch.device, args: argparse.Namespace, sizes: Sizes
) -> dict[str, Any]:
    torch.manual_seed(0)
    snapshot = args.snapshot and name == SNAPSHOT_SCENARIO and device.type == "cuda"
    if snapshot:
        torch.cuda.memory._record_memory_history(max_entries=100_000)
    started = time.perf_counter()
    step, batch = scenario(name, device, sizes)
    times = measure(step, device, warmup=args.warmup, iters=args.iters)
    files = record(step, device, args.out / name)
    result: dict[str, Any] = {}
    if snapshot:
        pickle = args.out / f"{name}_snapshot.pickle"
        torch.cuda.memory._dump_snapshot(str(pickle))
        torch.cuda.memory._record_memory_history(enabled=None)
        result["memory_snapshot"] = str(pickle.relative_to(args.out))
    elif args.snapshot and name == SNAPSHOT_SCENARIO:
        log(f"{name}: no memory snapshot on {device.type} (torch.cuda.memory needs CUDA)")
    del step
    gc.collect()  # ends a loader's worker processes and frees what a leak scenario kept
    if device.type == "cuda":
        torch.cuda.empty_cache()
    ordered = sorted(times)
    steps = {str(path.relative_to(args.out)): profiler_steps(path) for path in files}
    result.update(
        {
            "batch": batch,
            "iters": len(times),
            "timer": "cuda_event" if device.type == "cuda" else "perf_counter",
            "mean_ms": statistics.fmean(times),
            "p50_ms": statistics.median(times),
            "min_ms": ordered[0],
            "max_ms": ordered[-1],
            "samples_per_s": batch / (statistics.median(times) / 1e3),
            "traces": [path.name for path in files],
            "files": list(steps),
            "profiler_steps": steps,
            "wall_s": time.perf_counter() - started,
        }
    )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument(
        "--scenarios",
        default=",".join(SCENARIOS),
        help="comma-separated scenario names (default: all of them)",
    )
    parser.add_argument("--iters", type=int, default=20, help="timed steps (default 20)")
    parser.add_argument("--warmup", type=int, default=30, help="untimed steps first (default 30)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="3 warm-up and 5 timed steps, and smaller GEMM models: a smoke test",
    )
    parser.add_argument(
        "--device", choices=["auto", "cuda", "cpu"], default="auto", help="default: cuda if any"
    )
    parser.add_argument(
        "--snapshot",
        action=argparse.BooleanOptionalAction,
        default=True,
        help=f"dump a CUDA memory snapshot pickle of {SNAPSHOT_SCENARIO} (default on; CUDA only)",
    )
    parser.add_argument(
        "--force", action="store_true", help="run the CUDA-only scenarios on the CPU as well"
    )
    args = parser.parse_args()
    names = [name.strip() for name in args.scenarios.split(",") if name.strip()]
    unknown = [name for name in names if name not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenarios {unknown}; known: {', '.join(SCENARIOS)}")
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda, but this PyTorch build has no CUDA device")
    cuda = args.device != "cpu" and torch.cuda.is_available()
    device = torch.device("cuda" if cuda else "cpu")
    if args.quick:
        args.warmup, args.iters = 3, 5
    sizes = Sizes(gemm_width=2048, healthy_width=1024, healthy_batch=256, healthy_depth=4)
    if not args.quick:
        # healthy: about 4 TFLOP of bf16 GEMMs a step (7 to 8 ms on an H100), enough to hide
        # the host time of its few hundred ops even under the profiler.
        sizes = Sizes(gemm_width=8192, healthy_width=8192, healthy_batch=2048, healthy_depth=6)
    summary: dict[str, Any] = {
        "torch": torch.__version__,
        "device": str(device),
        "gpu": torch.cuda.get_device_name() if cuda else None,
        "quick": args.quick,
        "warmup": args.warmup,
        "scenarios": {},
    }
    failed = False
    for name in names:
        if SCENARIOS[name] and not cuda and not args.force:
            log(f"{name}: skipped, it needs a CUDA device (--force runs it on the CPU anyway)")
            summary["scenarios"][name] = {"skipped": "needs a CUDA device"}
            continue
        log(f"{name}: recording on {device} ...")
        result = run_scenario(name, device, args, sizes)
        if not result["files"] or not all(result["profiler_steps"].values()):
            log(f"{name}: ERROR: no trace with ProfilerStep# events was written")
            failed = True
        log(f"{name}: {result['mean_ms']:.3f} ms/step mean, {result['files']}")
        summary["scenarios"][name] = result
    args.out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(summary, indent=2)
    (args.out / "summary.json").write_text(text + "\n")
    print(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
