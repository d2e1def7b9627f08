"""stepscope from inside a PyTorch script: profile, benchmark, latency, the three-run lab,
memory by phase, and loader against compute::

    from stepscope import torch as sst

    with sst.profile(steps=5, out="traces/") as prof:
        for batch in loader:
            train_step(batch)
            prof.step()
    print(prof.report)                                  # the diagnosis

    base = sst.benchmark(fn, warmup=10, iters=100)      # timing and statistics
    lat = sst.latency(model, example, warmup=10, iters=200)
    lab = sst.lab(model_fn, loader, loss_fn, steps=55, warmup=5)
    inf = sst.inference_lab(model, example, p99_ms=50)  # eval, bf16, compile, int8, batches
    mem = sst.memory_phases(model, batch, loss_fn, optimizer)
    plan = sst.memory_plan(model, batch, loss_fn, optimizer)  # each technique's peak, estimated
    io = sst.loader_vs_compute(loader, train_step, steps=50)
    with sst.monitor(interval=0.1) as mon:              # CPU, workers and GPUs while it runs
        train_one_epoch()

Needs PyTorch (``pip install stepscope[torch]``); ``import stepscope`` alone does not.
"""

from __future__ import annotations

try:
    import torch as _torch  # noqa: F401
except ImportError as _error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "stepscope.torch needs PyTorch: pip install 'stepscope[torch]' (or torch itself)"
    ) from _error

from ..monitor import Monitor, monitor
from ._benchmark import BenchmarkResult, benchmark
from ._inference_lab import (
    BatchPoint,
    BatchSweep,
    InferenceLabResult,
    InferenceVariant,
    inference_lab,
)
from ._lab import LabResult, LabRun, lab
from ._latency import LatencyResult, latency
from ._loader import LoaderVsCompute, StepTiming, loader_vs_compute
from ._memory import (
    MEMORY_CONCERN_FLOOR,
    MemoryBreakdown,
    MemoryPhases,
    PhaseMemory,
    estimate_training_memory,
    memory_phases,
)
from ._memory_plan import MemoryPlan, PlanRow, StepTimes, memory_plan, plan_from_measurement
from ._profile import Profile, ProfileOverhead, ProfileTooShortError, ProfileWarning, profile
from ._results import Conditions, MeasurementWarning, Stats

__all__ = [
    "MEMORY_CONCERN_FLOOR",
    "BatchPoint",
    "BatchSweep",
    "BenchmarkResult",
    "Conditions",
    "InferenceLabResult",
    "InferenceVariant",
    "LabResult",
    "LabRun",
    "LatencyResult",
    "LoaderVsCompute",
    "MeasurementWarning",
    "MemoryBreakdown",
    "MemoryPhases",
    "MemoryPlan",
    "Monitor",
    "PhaseMemory",
    "PlanRow",
    "Profile",
    "ProfileOverhead",
    "ProfileTooShortError",
    "ProfileWarning",
    "Stats",
    "StepTimes",
    "StepTiming",
    "benchmark",
    "estimate_training_memory",
    "inference_lab",
    "lab",
    "latency",
    "loader_vs_compute",
    "memory_phases",
    "memory_plan",
    "monitor",
    "plan_from_measurement",
    "profile",
]
