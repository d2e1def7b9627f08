"""Clocks: CUDA events on a GPU, a synchronised monotonic clock otherwise."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import torch


def resolve_device(device: torch.device | str | None) -> torch.device:
    """`device` as a torch.device; None picks CUDA when it is available, else the CPU."""
    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def resolve_model_device(model: torch.nn.Module, device: torch.device | str | None) -> torch.device:
    """`device` as a torch.device; None means where the model already is (its first
    parameter's device), the CPU for a model without parameters. Unlike
    :func:`resolve_device`, None does not pick CUDA for a model on the CPU: the figures are
    those of the model where the caller placed it."""
    if device is not None:
        return torch.device(device)
    first = next(model.parameters(), None)
    return first.device if first is not None else torch.device("cpu")


def synchronize(device: torch.device) -> None:
    """Wait for the device's queued work, so that a host clock reading includes it."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":  # pragma: no cover - Apple only
        torch.mps.synchronize()


def now_ns() -> int:
    return time.perf_counter_ns()


def time_calls(fn: Callable[[], Any], iterations: int, device: torch.device) -> list[float]:
    """`iterations` calls of `fn`, each timed in milliseconds.

    On CUDA each call is bracketed by CUDA events (GPU time between the marks, no host sync in
    the loop; one sync at the end). Elsewhere the device is synchronised before the first call
    and after each one, and `time.perf_counter_ns` (monotonic) times the call.
    """
    if device.type == "cuda":
        with torch.cuda.device(device):
            starts = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
            ends = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
            torch.cuda.synchronize(device)
            for start, end in zip(starts, ends, strict=True):
                start.record()
                fn()
                end.record()
            torch.cuda.synchronize(device)
            return [float(start.elapsed_time(end)) for start, end in zip(starts, ends, strict=True)]
    samples: list[float] = []
    synchronize(device)
    for _ in range(iterations):
        begin = now_ns()
        fn()
        synchronize(device)
        samples.append((now_ns() - begin) / 1e6)
    return samples
