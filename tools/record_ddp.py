#!/usr/bin/env python3
"""Record a real 2-rank DistributedDataParallel run on the CPU (gloo), one trace per rank.

Two processes on this machine join a gloo process group over 127.0.0.1 (world size 2), wrap a
small MLP in DistributedDataParallel and train it under torch.profiler with a schedule
(wait 1, ``--warmup`` warm-up steps, ``--steps`` active steps). Each rank writes its own trace,
``OUT/rank<R>.pt.trace.json.gz``, with the ``distributedInfo`` that torch.profiler adds when a
process group is initialised. DDP's gradient all_reduce runs through gloo, so each trace holds
``record_param_comms`` ops with the collective's name, process group and sequence number.

``--uneven`` gives rank 1 three times rank 0's batch: it computes about three times longer per
step and rank 0 waits for it inside the gradient all_reduce, a straggler by construction. Without
it both ranks get the same batch and the same work.

Example:
  python3 tools/record_ddp.py --out /tmp/ddp_balanced
  python3 tools/record_ddp.py --out /tmp/ddp_uneven --uneven --steps 8
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.multiprocessing.spawn import start_processes
from torch.nn.parallel import DistributedDataParallel

WORLD_SIZE = 2
HOST = "127.0.0.1"


@dataclass(frozen=True)
class Options:
    out: Path
    port: int
    steps: int
    warmup: int
    batch: int
    hidden: int
    layers: int
    uneven: bool
    seed: int


def free_port() -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def make_model(features: int, hidden: int, layers: int) -> nn.Module:
    blocks: list[nn.Module] = [nn.Linear(features, hidden), nn.ReLU()]
    for _ in range(layers - 1):
        blocks += [nn.Linear(hidden, hidden), nn.ReLU()]
    blocks.append(nn.Linear(hidden, 1))
    return nn.Sequential(*blocks)


def batch_size(options: Options, rank: int) -> int:
    # The uneven run's straggler: rank 1 gets three times the data per step.
    return options.batch * 3 if options.uneven and rank == 1 else options.batch


def place_on_core(cores: list[int], rank: int, step: int) -> None:
    """Each rank on a core of its own (when there are enough), as ranks pinned to their own
    cores or GPUs are in real jobs. Without it, on a busy machine the scheduler can starve one
    rank for the whole run (and a rank whose gloo thread waits for its peer competes with that
    peer for the same cores), which makes a balanced run look like it has a straggler. The ranks
    trade cores every step: a core that something else keeps busy for the whole run (a shared CI
    machine) then slows each rank in turn instead of making one of them a straggler."""
    if len(cores) >= WORLD_SIZE:
        os.sched_setaffinity(0, {cores[(rank + step) % WORLD_SIZE]})


def worker(rank: int, options: Options) -> None:
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    place_on_core(cores, rank, 0)
    os.environ["MASTER_ADDR"] = HOST
    os.environ["MASTER_PORT"] = str(options.port)
    # One intra-op thread per rank: the two ranks share the machine's cores, and the uneven run
    # must be slower on rank 1 because of its work, not because of thread contention.
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD_SIZE)
    try:
        torch.manual_seed(options.seed)  # same initial weights on both ranks
        features = options.hidden
        model = DistributedDataParallel(make_model(features, options.hidden, options.layers))
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
        generator = torch.Generator().manual_seed(options.seed + rank)
        rows = batch_size(options, rank)
        inputs = torch.randn(rows, features, generator=generator)
        targets = torch.randn(rows, 1, generator=generator)
        loss_fn = nn.MSELoss()

        path = options.out / f"rank{rank}.pt.trace.json.gz"

        def write_trace(profiler: torch.profiler.profile) -> None:
            profiler.export_chrome_trace(str(path))

        schedule = torch.profiler.schedule(
            wait=1, warmup=options.warmup, active=options.steps, repeat=1
        )
        with torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CPU],
            schedule=schedule,
            on_trace_ready=write_trace,
            record_shapes=True,
        ) as profiler:
            for step in range(options.steps + options.warmup + 1):
                place_on_core(cores, rank, step)
                optimizer.zero_grad(set_to_none=True)
                with torch.profiler.record_function("forward"):
                    loss = loss_fn(model(inputs), targets)
                with torch.profiler.record_function("backward"):
                    loss.backward()  # DDP's all_reduce of the gradient buckets runs here
                with torch.profiler.record_function("optimizer"):
                    optimizer.step()
                profiler.step()
        dist.barrier()
    finally:
        dist.destroy_process_group()


def parse_arguments(argv: list[str] | None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the two traces")
    parser.add_argument("--uneven", action="store_true", help="rank 1 gets a 3x batch")
    parser.add_argument("--steps", type=int, default=8, help="active profiled steps (8)")
    parser.add_argument(
        "--warmup",
        type=int,
        default=3,
        help="unprofiled warm-up steps after the first (3): the first steps of a run and the "
        "profiler's start are slower on one rank or the other",
    )
    parser.add_argument("--batch", type=int, default=256, help="rank 0's batch size (256)")
    parser.add_argument("--hidden", type=int, default=512, help="MLP width (512)")
    parser.add_argument("--layers", type=int, default=3, help="hidden layers (3)")
    parser.add_argument("--port", type=int, default=0, help="rendezvous port (0: a free one)")
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args(argv)
    if (
        arguments.warmup < 0
        or arguments.steps < 1
        or arguments.batch < 1
        or arguments.hidden < 1
        or arguments.layers < 1
    ):
        parser.error("--steps, --batch, --hidden and --layers must be at least 1")
    return Options(
        out=arguments.out,
        port=arguments.port or free_port(),
        steps=arguments.steps,
        warmup=arguments.warmup,
        batch=arguments.batch,
        hidden=arguments.hidden,
        layers=arguments.layers,
        uneven=arguments.uneven,
        seed=arguments.seed,
    )


def main(argv: list[str] | None = None) -> int:
    options = parse_arguments(argv)
    options.out.mkdir(parents=True, exist_ok=True)
    # fork where there is one: the ranks inherit the imported torch instead of importing it again
    # (seconds each on a loaded machine); spawn elsewhere.
    start_method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    start_processes(
        worker, args=(options,), nprocs=WORLD_SIZE, join=True, start_method=start_method
    )
    for rank in range(WORLD_SIZE):
        print(options.out / f"rank{rank}.pt.trace.json.gz")
    return 0


if __name__ == "__main__":
    sys.exit(main())
