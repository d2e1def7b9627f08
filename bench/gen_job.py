#!/usr/bin/env python3
"""Make an N-rank data-parallel job, one Kineto trace per rank, from one real single-rank trace.

The source trace gives the work: its computation kernels (names and durations, in order), the
ops that launched them, its device properties and, where it has NCCL all_reduce kernels, their
typical duration (the transfer time). Each rank of the job runs ``--steps`` profiler steps; a
step is ``--collectives-per-step`` rounds of "compute, then an all_reduce of a gradient bucket".
Within a step the source's kernels are taken in order (``--events-per-step`` bounds the events a
rank writes per step: about five per kernel, so small values give small, quick traces for tests).

The timing model, in one true clock shared by all ranks:

* every round starts on all ranks at the same moment S (the end of the previous all_reduce);
* rank r's kernels run back to back from S, each lasting the source duration times the rank's
  speed: ``1 + N(0, jitter)`` drawn once per rank, times ``1 + N(0, jitter / 2)`` per round, and
  ``--slowdown`` for the ``--straggler`` rank. Its all_reduce kernel starts when its compute
  ends (its arrival);
* the all_reduce ends at the same moment on every rank: the last arrival plus the transfer
  time. A rank that arrives early waits inside its all_reduce kernel, as NCCL ranks do;
* at the end of a step the host synchronises with the GPU, and the next step starts.

Every rank writes its events in its host's clock: the true time plus the host's offset (host
``rank // --gpus-per-node``; host 0 has offset 0, the others a uniform draw in
``[-clock_skew, +clock_skew]``). Each trace has ``distributedInfo`` (rank, world size, the
process group), ``host_name``, and ``record_param_comms`` ops and NCCL kernels whose args
(Collective name, Process Group Name, Seq, In/Out msg nelems, dtype, Group size) line up
across ranks: the k-th collective has the same Seq on every rank.

A JSON manifest (files, the planted offsets and straggler) goes to stdout; the folder holds only
the traces. Output files are written to a temporary name and renamed.

Examples:
  python3 bench/gen_job.py --ranks 8 --out /tmp/job8
  python3 bench/gen_job.py --ranks 8 --out /tmp/job8s --straggler 3 --slowdown 1.35
  python3 bench/gen_job.py --ranks 4 --out /tmp/small --events-per-step 60 \\
      --source tests/data/h100/fp32_gemm.pt.trace.json.gz
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import random
import statistics
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

REPO_ROOT = Path(__file__).resolve().parent.parent
CONTROL = Path("traces") / "hta" / "trace_diff" / "control" / "control.json.gz"


def default_source() -> Path:
    """``control.json.gz`` in the shared traces folder: $STEPSCOPE_SHARED_TRACES, else the
    first ``shared/traces`` beside the checkout or one of its parents (worktrees live deeper)."""
    override = os.environ.get("STEPSCOPE_SHARED_TRACES")
    if override:
        return Path(override) / CONTROL.relative_to("traces")
    for folder in REPO_ROOT.parents:
        candidate = folder / "shared" / CONTROL
        if candidate.is_file():
            return candidate
    return REPO_ROOT.parent / "shared" / CONTROL


EVENTS_PER_KERNEL = 5  # launching op, runtime call, kernel, flow start, flow end
DEFAULT_TRANSFER_US = 300.0
COMPUTE_STREAM = 7
NCCL_STREAM = 20
KERNEL_GAP_US = 1.0  # between consecutive kernels on the compute stream
LAUNCH_US = 1.0  # host time per launch (the host runs ahead of the GPU)
LAUNCH_LEAD_US = 20.0  # the host issues a round this long before the GPU starts it
STEP_GAP_US = 10.0  # host time between the end of a step's synchronisation and the next step
NCCL_KERNEL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"


@dataclass(frozen=True)
class SourceKernel:
    name: str  # JSON-encoded (with quotes), ready to write
    op: str  # JSON-encoded name of the op that launched it
    duration_us: float


@dataclass(frozen=True)
class Source:
    kernels: tuple[SourceKernel, ...]
    transfer_us: float
    device: dict[str, Any] | None
    base_us: float
    first_step: int
    kernels_per_step: int  # the source's computation kernels per profiler step


@dataclass(frozen=True)
class Plan:
    ranks: int
    steps: int
    collectives_per_step: int
    kernels_per_step: int
    jitter: float
    straggler: int | None
    slowdown: float
    clock_skew_us: float
    gpus_per_node: int
    bucket_elements: int
    seed: int


def load_source(path: Path) -> Source:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as stream:
        trace = json.load(stream)
    events: list[dict[str, Any]] = trace.get("traceEvents", [])
    op_names: dict[Any, str] = {}
    for event in events:
        if event.get("cat") == "cpu_op" and "args" in event:
            external = event["args"].get("External id")
            if external is not None:
                op_names.setdefault(external, str(event.get("name", "aten::op")))
    kernels: list[tuple[float, SourceKernel]] = []
    nccl: list[float] = []
    for event in events:
        if event.get("cat") != "kernel" or event.get("ph") != "X":
            continue
        name = str(event.get("name", "kernel"))
        duration = float(event.get("dur", 0.0))
        if "nccl" in name.lower():
            if "allreduce" in name.lower().replace("_", ""):
                nccl.append(duration)
            continue
        external = event.get("args", {}).get("External id")
        op = op_names.get(external) or ("aten::mm" if "gemm" in name.lower() else "aten::op")
        kernel = SourceKernel(json.dumps(name), json.dumps(op), max(duration, 1.0))
        kernels.append((float(event["ts"]), kernel))
    if not kernels:
        raise SystemExit(f"{path}: no computation kernels to build a job from")
    kernels.sort(key=lambda item: item[0])
    steps = sorted(
        int(str(event["name"]).split("#", 1)[1])
        for event in events
        if str(event.get("name", "")).startswith("ProfilerStep#")
        and str(event["name"]).split("#", 1)[1].isdigit()
    )
    devices = trace.get("deviceProperties") or []
    timestamps = [float(e["ts"]) for e in events if "ts" in e and e.get("ph") == "X"]
    distinct_steps = len(set(steps)) or 1
    return Source(
        kernels=tuple(kernel for _, kernel in kernels),
        transfer_us=statistics.median(nccl) if nccl else DEFAULT_TRANSFER_US,
        device=dict(devices[0]) if devices else None,
        base_us=float(int(min(timestamps))) if timestamps else 1.7e15,
        first_step=steps[0] if steps else 1,
        kernels_per_step=max(1, len(kernels) // distinct_steps),
    )


def clock_offsets(plan: Plan) -> list[float]:
    """The offset of each rank's host clock from the true clock, in µs (host 0: none)."""
    hosts = (plan.ranks + plan.gpus_per_node - 1) // plan.gpus_per_node
    draw = random.Random(f"{plan.seed}:clocks")
    per_host = [0.0] + [
        round(draw.uniform(-plan.clock_skew_us, plan.clock_skew_us), 3) for _ in range(hosts - 1)
    ]
    return [per_host[rank // plan.gpus_per_node] for rank in range(plan.ranks)]


def round_kernels(source: Source, plan: Plan, step: int, round_index: int) -> list[SourceKernel]:
    """The source kernels of one round (the same on every rank)."""
    per_round = max(1, plan.kernels_per_step // plan.collectives_per_step)
    first = (step * plan.collectives_per_step + round_index) * per_round
    count = len(source.kernels)
    return [source.kernels[(first + i) % count] for i in range(per_round)]


class RankSpeed:
    """Rank r's speed factors, drawn from a generator of its own (reproducible per rank)."""

    def __init__(self, plan: Plan, rank: int) -> None:
        self._draw = random.Random(f"{plan.seed}:rank:{rank}")
        base = max(0.5, 1.0 + self._draw.gauss(0.0, plan.jitter))
        self._base = base * (plan.slowdown if plan.straggler == rank else 1.0)
        self._jitter = plan.jitter

    def next_round(self) -> float:
        return self._base * max(0.5, 1.0 + self._draw.gauss(0.0, self._jitter / 2.0))


def simulate(source: Source, plan: Plan) -> list[list[float]]:
    """The true end of every all_reduce (per step, per round): the last arrival plus transfer."""
    speeds = [RankSpeed(plan, rank) for rank in range(plan.ranks)]
    transfer = random.Random(f"{plan.seed}:transfer")
    ends: list[list[float]] = []
    start = source.base_us + 1000.0
    for step in range(plan.steps):
        step_ends: list[float] = []
        for round_index in range(plan.collectives_per_step):
            work = round_kernels(source, plan, step, round_index)
            compute = sum(k.duration_us + KERNEL_GAP_US for k in work)
            last = max(start + compute * speed.next_round() for speed in speeds)
            end = last + source.transfer_us * max(0.5, 1.0 + transfer.gauss(0.0, 0.02))
            step_ends.append(end)
            start = end + KERNEL_GAP_US
        ends.append(step_ends)
        start = step_ends[-1] + STEP_GAP_US + LAUNCH_LEAD_US
    return ends


class RankWriter:
    """Writes one rank's trace event by event as JSON text (no event dicts are kept)."""

    def __init__(self, stream: IO[str], rank: int, offset_us: float, plan: Plan) -> None:
        self.stream = stream
        self.rank = rank
        self.offset = offset_us
        self.plan = plan
        self.cpu_pid = 100_000 + rank
        self.device = rank % plan.gpus_per_node
        self.correlation = 0
        # External ids in their own range: equal to the correlation ids they would make the
        # importer take them for correlation ids (as in old traces).
        self.external = 1_000_000
        self.first = True

    def _emit(self, text: str) -> None:
        self.stream.write(text if self.first else ",\n" + text)
        self.first = False

    def ts(self, true_us: float) -> str:
        return f"{true_us + self.offset:.3f}"

    def span(
        self, cat: str, name: str, pid: int, tid: int, start: float, dur: float, args: str
    ) -> None:
        self._emit(
            f'{{"ph":"X","cat":"{cat}","name":{name},"pid":{pid},"tid":{tid},'
            f'"ts":{self.ts(start)},"dur":{dur:.3f},"args":{{{args}}}}}'
        )

    def launch(
        self,
        op: str,
        kernel: str,
        launch_at: float,
        kernel_start: float,
        kernel_dur: float,
        stream: int,
        extra_args: str = "",
    ) -> None:
        """An op that launches one kernel: op ⊃ cudaLaunchKernel → kernel, with the flow."""
        self.correlation += 1
        self.external += 1
        corr, ext = self.correlation, self.external
        pid, tid = self.cpu_pid, self.cpu_pid
        comma = "," if extra_args else ""
        self.span(
            "cpu_op",
            op,
            pid,
            tid,
            launch_at,
            LAUNCH_US * 0.9,
            f'"External id":{ext}{comma}{extra_args}',
        )
        runtime_at = launch_at + LAUNCH_US * 0.1
        self.span(
            "cuda_runtime",
            '"cudaLaunchKernel"',
            pid,
            tid,
            runtime_at,
            LAUNCH_US * 0.7,
            f'"External id":{ext},"correlation":{corr},"cbid":211',
        )
        self.span(
            "kernel",
            kernel,
            self.device,
            stream,
            kernel_start,
            kernel_dur,
            f'"External id":{ext},"correlation":{corr},"device":{self.device},'
            f'"stream":{stream},"grid":[108,1,1],"block":[256,1,1]{comma}{extra_args}',
        )
        self._emit(
            f'{{"ph":"s","id":{corr},"pid":{pid},"tid":{tid},"ts":{self.ts(runtime_at)},'
            f'"cat":"ac2g","name":"ac2g"}}'
        )
        self._emit(
            f'{{"ph":"f","id":{corr},"pid":{self.device},"tid":{stream},'
            f'"ts":{self.ts(kernel_start)},"cat":"ac2g","name":"ac2g","bp":"e"}}'
        )

    def metadata(self) -> None:
        pid = self.cpu_pid
        for text in (
            f'{{"ph":"M","name":"process_name","pid":{pid},"tid":0,"args":{{"name":"python"}}}}',
            f'{{"ph":"M","name":"thread_name","pid":{pid},"tid":{pid},'
            f'"args":{{"name":"thread {pid} (python)"}}}}',
            f'{{"ph":"M","name":"process_name","pid":{self.device},"tid":0,'
            f'"args":{{"name":"GPU {self.device}"}}}}',
            f'{{"ph":"M","name":"thread_name","pid":{self.device},"tid":{COMPUTE_STREAM},'
            f'"args":{{"name":"stream {COMPUTE_STREAM}"}}}}',
            f'{{"ph":"M","name":"thread_name","pid":{self.device},"tid":{NCCL_STREAM},'
            f'"args":{{"name":"stream {NCCL_STREAM}"}}}}',
        ):
            self._emit(text)


def collective_args(plan: Plan, rank: int, seq: int, group_ranks: str) -> str:
    n = plan.bucket_elements
    return (
        f'"Collective name":"allreduce","dtype":"Float","In msg nelems":{n},'
        f'"Out msg nelems":{n},"Group size":{plan.ranks},"In split size":"[]",'
        f'"Out split size":"[]","Process Group Name":"0",'
        f'"Process Group Description":"default_pg","Process Group Ranks":{group_ranks},'
        f'"Rank":{rank},"Seq":{seq}'
    )


def write_rank(
    source: Source, plan: Plan, ends: list[list[float]], rank: int, offset: float, stream: IO[str]
) -> None:
    speed = RankSpeed(plan, rank)
    writer = RankWriter(stream, rank, offset, plan)
    group_ranks = json.dumps(json.dumps(list(range(plan.ranks))))
    writer.metadata()
    gpu_start = source.base_us + 1000.0
    seq = 0
    for step in range(plan.steps):
        host = gpu_start - LAUNCH_LEAD_US
        step_start = host - 2.0
        for round_index in range(plan.collectives_per_step):
            factor = speed.next_round()
            kernel_start = gpu_start
            for kernel in round_kernels(source, plan, step, round_index):
                duration = kernel.duration_us * factor
                writer.launch(kernel.op, kernel.name, host, kernel_start, duration, COMPUTE_STREAM)
                host += LAUNCH_US
                kernel_start += (kernel.duration_us + KERNEL_GAP_US) * factor
            seq += 1
            end = ends[step][round_index]
            arrival = kernel_start  # when this rank's compute for the round is done
            writer.launch(
                '"record_param_comms"',
                json.dumps(NCCL_KERNEL),
                host,
                arrival,
                end - arrival,
                NCCL_STREAM,
                collective_args(plan, rank, seq, group_ranks),
            )
            host += LAUNCH_US
            gpu_start = end + KERNEL_GAP_US
        # The host waits for the GPU at the end of the step (as loss.item() would).
        last_end = ends[step][-1]
        writer.span(
            "cuda_runtime",
            '"cudaStreamSynchronize"',
            writer.cpu_pid,
            writer.cpu_pid,
            host,
            last_end - host + 1.0,
            '"cbid":131',
        )
        step_end = last_end + STEP_GAP_US - 3.0
        writer.span(
            "user_annotation",
            json.dumps(f"ProfilerStep#{source.first_step + step}"),
            writer.cpu_pid,
            writer.cpu_pid,
            step_start,
            step_end - step_start,
            f'"External id":{1_000_000 + step}',
        )
        gpu_start = last_end + STEP_GAP_US + LAUNCH_LEAD_US


def header(source: Source, plan: Plan, rank: int) -> str:
    device = dict(source.device) if source.device is not None else None
    top: dict[str, Any] = {"schemaVersion": 1}
    if device is not None:
        device["id"] = rank % plan.gpus_per_node
        top["deviceProperties"] = [device]
    top["distributedInfo"] = {
        "backend": "nccl",
        "rank": rank,
        "world_size": plan.ranks,
        "pg_count": 1,
        "pg_config": [
            {
                "pg_name": "0",
                "pg_desc": "default_pg",
                "pg_size": plan.ranks,
                "ranks": list(range(plan.ranks)) if plan.ranks <= 64 else [],
            }
        ],
    }
    top["host_name"] = f"node{rank // plan.gpus_per_node:04d}"
    top["displayTimeUnit"] = "ms"
    text = json.dumps(top)
    return text[:-1] + ', "traceEvents": [\n'


@contextlib.contextmanager
def atomic_text(path: Path, compress: bool) -> Iterator[IO[str]]:
    descriptor, temporary = tempfile.mkstemp(
        prefix="." + path.name + ".", suffix=".tmp", dir=path.parent
    )
    os.close(descriptor)
    try:
        if compress:
            with gzip.open(temporary, "wt", encoding="utf-8", compresslevel=1) as stream:
                yield stream
        else:
            with open(temporary, "w", encoding="utf-8") as stream:
                yield stream
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def file_name(rank: int, ranks: int, compress: bool) -> str:
    width = max(1, len(str(ranks - 1)))
    return f"rank{rank:0{width}d}.pt.trace.json" + (".gz" if compress else "")


def generate(source: Source, plan: Plan, out: Path, compress: bool) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    ends = simulate(source, plan)
    offsets = clock_offsets(plan)
    files: list[str] = []
    for rank in range(plan.ranks):
        path = out / file_name(rank, plan.ranks, compress)
        with atomic_text(path, compress) as stream:
            stream.write(header(source, plan, rank))
            write_rank(source, plan, ends, rank, offsets[rank], stream)
            stream.write("\n]}\n")
        files.append(str(path))
    return {
        "folder": str(out),
        "world_size": plan.ranks,
        "files": files,
        "steps": plan.steps,
        "collectives_per_step": plan.collectives_per_step,
        "kernels_per_step": plan.kernels_per_step,
        "transfer_us": source.transfer_us,
        "clock_offsets_us": [{"rank": r, "offset_us": o} for r, o in enumerate(offsets)],
        "straggler": plan.straggler,
        "slowdown": plan.slowdown if plan.straggler is not None else 1.0,
        "jitter": plan.jitter,
        "seed": plan.seed,
    }


def parse_arguments(argv: Sequence[str] | None) -> tuple[argparse.Namespace, Plan, Source]:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, required=True, help="the job folder to write")
    parser.add_argument("--ranks", type=int, default=8, help="world size (8)")
    parser.add_argument(
        "--source", type=Path, default=None, help="a real trace (shared trace_diff/control)"
    )
    parser.add_argument("--steps", type=int, default=6, help="profiler steps per rank (6)")
    parser.add_argument(
        "--collectives-per-step",
        type=int,
        default=2,
        help="all_reduce rounds (gradient buckets) per step (2)",
    )
    parser.add_argument(
        "--events-per-step",
        type=int,
        default=0,
        help="about this many events per rank and step (0: the source's "
        "kernels per step, about 5 events each)",
    )
    parser.add_argument(
        "--jitter", type=float, default=0.01, help="relative std of a rank's speed (0.01)"
    )
    parser.add_argument("--straggler", type=int, default=None, help="the slow rank")
    parser.add_argument(
        "--slowdown", type=float, default=1.35, help="the straggler's compute time factor (1.35)"
    )
    parser.add_argument(
        "--clock-skew-us",
        type=float,
        default=5000.0,
        help="host clock offsets are drawn from [-this, +this] µs (5000)",
    )
    parser.add_argument(
        "--gpus-per-node",
        type=int,
        default=1,
        help="ranks per host; ranks on one host share its clock (1)",
    )
    parser.add_argument(
        "--bucket-mib", type=float, default=25.0, help="all_reduce size in MiB of float32 (25)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gzip", action="store_true", help="write .json.gz (level 1)")
    arguments = parser.parse_args(argv)
    if arguments.ranks < 1 or arguments.steps < 1 or arguments.collectives_per_step < 1:
        parser.error("--ranks, --steps and --collectives-per-step must be at least 1")
    if arguments.straggler is not None and not 0 <= arguments.straggler < arguments.ranks:
        parser.error("--straggler must be a rank of the job")
    if arguments.slowdown <= 0 or arguments.jitter < 0 or arguments.gpus_per_node < 1:
        parser.error("--slowdown must be > 0, --jitter >= 0, --gpus-per-node >= 1")
    source = load_source(arguments.source or default_source())
    kernels_per_step = (
        max(arguments.collectives_per_step, arguments.events_per_step // EVENTS_PER_KERNEL)
        if arguments.events_per_step > 0
        else source.kernels_per_step
    )
    plan = Plan(
        ranks=arguments.ranks,
        steps=arguments.steps,
        collectives_per_step=arguments.collectives_per_step,
        kernels_per_step=kernels_per_step,
        jitter=arguments.jitter,
        straggler=arguments.straggler,
        slowdown=arguments.slowdown,
        clock_skew_us=arguments.clock_skew_us,
        gpus_per_node=arguments.gpus_per_node,
        bucket_elements=int(arguments.bucket_mib * 2**20) // 4,
        seed=arguments.seed,
    )
    return arguments, plan, source


def main(argv: Sequence[str] | None = None) -> int:
    arguments, plan, source = parse_arguments(argv)
    manifest = generate(source, plan, arguments.out, arguments.gzip)
    json.dump(manifest, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
