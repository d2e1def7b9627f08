"""Synthetic CUDA memory snapshots in the format of torch.cuda.memory._dump_snapshot().

The structure follows torch's `_snapshot()` documentation (torch/cuda/memory.py): a dict with
`segments` (each with `blocks`) and `device_traces` (one list of allocator actions per device),
`allocator_settings`, and stack `frames` as dicts of filename, line and name. As in torch, frame
dicts are shared between the stacks that contain them, so the pickle refers to them through its
memo. The simulated job is a training loop: weights that stay, activations made in forward and
freed in backward, and, when asked, a leak (a loss kept in a list every step).

Used by the tests (small snapshots) and by bench/run_snapshot_benchmark.py (about 1 GB).
"""

from __future__ import annotations

import pickle
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MiB = 1 << 20
SEGMENT = 20 * MiB


@dataclass
class Plan:
    steps: int = 5
    layers: int = 8
    stack_depth: int = 24
    leak_bytes: int = 0  # bytes kept alive every step at the leak site
    devices: int = 1
    seed: int = 0
    with_time: bool = True


def _frame(filename: str, line: int, name: str) -> dict[str, Any]:
    return {"filename": filename, "line": line, "name": name}


class _Frames:
    """Shared frame dicts, as torch shares them between tracebacks."""

    def __init__(self, depth: int, rng: random.Random) -> None:
        self.depth = depth
        self.library = [
            _frame(f"/usr/lib/python3/site-packages/torch/nn/modules/m{i}.py", 100 + i, f"f{i}")
            for i in range(64)
        ]
        self.cpp = [
            _frame("??", 0, f"c10::cuda::CUDACachingAllocator::malloc_{i}") for i in range(8)
        ]
        self.rng = rng
        self.user: dict[tuple[str, int, str], dict[str, Any]] = {}
        self.stacks: dict[tuple[str, int, str], list[dict[str, Any]]] = {}

    def user_frame(self, filename: str, line: int, name: str) -> dict[str, Any]:
        key = (filename, line, name)
        if key not in self.user:
            self.user[key] = _frame(filename, line, name)
        return self.user[key]

    def stack(self, filename: str, line: int, name: str) -> list[dict[str, Any]]:
        """Innermost first: allocator C++ frames, torch library frames, then the user's code.

        The same site gets the same frames every time, in a new list each time: torch captures
        a traceback per allocation and shares only the frame dicts."""
        key = (filename, line, name)
        if key not in self.stacks:
            inner = [self.rng.choice(self.cpp) for _ in range(2)]
            library = [self.rng.choice(self.library) for _ in range(max(self.depth - 4, 0))]
            outer = [self.user_frame(filename, line, name), self.user_frame("train.py", 90, "main")]
            self.stacks[key] = inner + library + outer
        return list(self.stacks[key])


class _Device:
    def __init__(self, index: int, plan: Plan, frames: _Frames) -> None:
        self.index = index
        self.plan = plan
        self.frames = frames
        self.trace: list[dict[str, Any]] = []
        self.live: dict[int, tuple[int, list[dict[str, Any]]]] = {}
        self.free_addresses: list[int] = []
        self.next_address = 0x7F0000000000 + index * 0x1000000000
        self.time = 1_700_000_000_000_000

    def _entry(self, action: str, addr: int, size: int, frames: list[Any]) -> None:
        entry: dict[str, Any] = {
            "action": action,
            "addr": addr,
            "size": size,
            "stream": 0,
            "frames": frames,
        }
        if self.plan.with_time:
            self.time += 37
            entry["time_us"] = self.time
        self.trace.append(entry)

    def alloc(self, size: int, filename: str, line: int, name: str) -> int:
        if self.free_addresses:
            addr = self.free_addresses.pop()
        else:
            addr = self.next_address
            self.next_address += max(size, 512)
            if (self.next_address // SEGMENT) != ((self.next_address - size) // SEGMENT):
                self._entry("segment_alloc", addr, SEGMENT, [])
        frames = self.frames.stack(filename, line, name)
        self.live[addr] = (size, frames)
        self._entry("alloc", addr, size, frames)
        return addr

    def free(self, addr: int) -> None:
        size, frames = self.live.pop(addr)
        self._entry("free_requested", addr, size, frames)
        self._entry("free_completed", addr, size, frames)
        self.free_addresses.append(addr)

    def run(self) -> None:
        plan = self.plan
        for layer in range(plan.layers):
            self.alloc(4 * MiB, "model.py", 10 + layer, "__init__")
        for _step in range(plan.steps):
            activations = [
                self.alloc(8 * MiB + layer * 4096, "model.py", 50 + layer, "forward")
                for layer in range(plan.layers)
            ]
            grads = [self.alloc(4 * MiB, "train.py", 60, "backward") for _ in range(plan.layers)]
            for addr in reversed(activations):
                self.free(addr)
            if plan.leak_bytes:
                self.alloc(plan.leak_bytes, "train.py", 42, "train_step")
            for addr in grads:
                self.free(addr)

    def segments(self) -> list[dict[str, Any]]:
        """The allocator state at the end: one segment per live block, plus a free block."""
        out = []
        for addr, (size, frames) in sorted(self.live.items()):
            total = size + 2 * MiB
            out.append(
                {
                    "device": self.index,
                    "address": addr,
                    "total_size": total,
                    "allocated_size": size,
                    "active_size": size,
                    "requested_size": size,
                    "stream": 0,
                    "segment_type": "large",
                    "segment_pool_id": (0, 0),
                    "is_expandable": False,
                    "frames": [],
                    "blocks": [
                        {
                            "address": addr,
                            "size": size,
                            "requested_size": size,
                            "state": "active_allocated",
                            "frames": frames,
                        },
                        {
                            "address": addr + size,
                            "size": 2 * MiB,
                            "requested_size": 0,
                            "state": "inactive",
                            "frames": [],
                        },
                    ],
                }
            )
        return out


def build_snapshot(plan: Plan) -> dict[str, Any]:
    rng = random.Random(plan.seed)
    frames = _Frames(plan.stack_depth, rng)
    devices = [_Device(d, plan, frames) for d in range(plan.devices)]
    for device in devices:
        device.run()
    return {
        "segments": [s for device in devices for s in device.segments()],
        "device_traces": [device.trace for device in devices],
        "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1},
    }


def write_snapshot(path: Path, snapshot: dict[str, Any], protocol: int = 4) -> None:
    with path.open("wb") as f:
        pickle.dump(snapshot, f, protocol=protocol)
