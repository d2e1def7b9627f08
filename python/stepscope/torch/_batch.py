"""Batches and calls: moving a batch to a device, calling a model with it, its size."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch


def call_model(model: Callable[..., Any], inputs: Any) -> Any:
    """``model(inputs)``; a tuple or list as positional arguments, a dict as keywords."""
    if isinstance(inputs, tuple | list):
        return model(*inputs)
    if isinstance(inputs, Mapping):
        return model(**inputs)
    return model(inputs)


def first_tensor(value: Any) -> torch.Tensor | None:
    """The first tensor in `value` (nested tuples, lists and dicts), None without one."""
    if isinstance(value, torch.Tensor):
        return value
    items = value.values() if isinstance(value, Mapping) else value
    if isinstance(value, tuple | list | Mapping):
        for item in items:
            found = first_tensor(item)
            if found is not None:
                return found
    return None


def batch_size_of(value: Any) -> int | None:
    """The leading dimension of the first tensor in `value`."""
    tensor = first_tensor(value)
    return int(tensor.shape[0]) if tensor is not None and tensor.dim() > 0 else None


def to_device(value: Any, device: torch.device) -> Any:
    """`value` with every tensor moved to `device` (non-blocking)."""
    if isinstance(value, torch.Tensor):
        return value.to(device, non_blocking=True)
    if isinstance(value, tuple | list):
        return type(value)(to_device(v, device) for v in value)
    if isinstance(value, Mapping):
        return {k: to_device(v, device) for k, v in value.items()}
    return value
