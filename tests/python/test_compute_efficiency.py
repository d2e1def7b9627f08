"""FLOPs of a matmul and a convolution recorded with real PyTorch on the CPU match the formulas
exactly (2·M·K·N; 2·N·C_out·output positions·C_in/groups·kernel)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")


def cli() -> str:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    if not command:
        pytest.skip("no stepscope command: set STEPSCOPE_CLI or pip install .")
    return command


def test_matmul_and_convolution_flops_match_the_formulas(tmp_path: Path) -> None:
    from torch.profiler import ProfilerActivity, profile, schedule

    a, b = torch.randn(64, 128), torch.randn(128, 32)
    conv = torch.nn.Conv2d(4, 8, 3, stride=2, padding=1, groups=2)
    image = torch.randn(2, 4, 17, 17)
    path = tmp_path / "flops.json"
    with profile(
        activities=[ProfilerActivity.CPU],
        record_shapes=True,
        schedule=schedule(wait=0, warmup=1, active=2, repeat=1),
        on_trace_ready=lambda p: p.export_chrome_trace(str(path)),
    ) as profiler:
        for _ in range(3):
            torch.mm(a, b)
            conv(image)
            profiler.step()
    done = subprocess.run(
        [cli(), "analyze", str(path), "--json", "-"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    efficiency: dict[str, Any] = json.loads(done.stdout)["ranks"][0]["compute_efficiency"]
    assert efficiency["applicable"]
    ops = {op["name"]: op for op in efficiency["ops"]}
    steps = 2
    assert ops["aten::mm"]["flops"] == steps * 2 * 64 * 128 * 32
    out = (17 + 2 - 2 - 1) // 2 + 1
    assert ops["aten::conv2d"]["flops"] == steps * 2 * 2 * 8 * out * out * (4 // 2) * 3 * 3
    assert "aten::convolution" not in ops  # inside conv2d: counted once
    assert efficiency["mfu"] is None  # no GPU, no peak
    # Bytes: each input read once, the output written once, 4 bytes per float.
    mm_bytes = steps * 4 * (64 * 128 + 128 * 32 + 64 * 32)
    assert ops["aten::mm"]["bytes"] == mm_bytes
    assert ops["aten::mm"]["intensity"] == pytest.approx(ops["aten::mm"]["flops"] / mm_bytes)
    conv_bytes = steps * 4 * (2 * 4 * 17 * 17 + 8 * 2 * 3 * 3 + 8 + 2 * 8 * out * out)
    assert ops["aten::conv2d"]["bytes"] == conv_bytes
    assert ops["aten::mm"]["bound"] == "unknown"  # no device peak or bandwidth on the CPU
    assert efficiency["ridge_point"] is None
