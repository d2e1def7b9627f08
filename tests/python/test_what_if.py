"""`stepscope whatif` and `Report.what_if()`: the step predicted after a fix, from a trace."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import stepscope

H100 = Path(__file__).resolve().parents[1] / "data" / "h100"
INPUT_BOUND = H100 / "input_bound.pt.trace.json.gz"
FP32_GEMM = H100 / "fp32_gemm.pt.trace.json.gz"


def cli() -> str:
    return os.environ.get("STEPSCOPE_CLI", "stepscope")


def test_loader_ready_at_once_removes_the_loading_from_the_path() -> None:
    result = stepscope.analyze(INPUT_BOUND).what_if(loader=0)
    assert result["change"] == "DataLoader ready at once"
    before = {row["class"]: row["us_per_step"] for row in result["before"]["classes"]}
    after = {row["class"]: row["us_per_step"] for row in result["after"]["classes"]}
    assert before["data_loading"] > 10_000  # 12.6 ms of each 16 ms step waits for the loader
    assert "data_loading" not in after
    # The saving is the loading that was on the path, and the prediction is measured - saving.
    assert result["saving_us_per_step"] == pytest.approx(before["data_loading"], rel=0.01)
    assert result["predicted_step_us"] == pytest.approx(
        result["measured_step_us"] - result["saving_us_per_step"], rel=1e-6
    )
    # The unchanged replay explains the recorded step.
    assert result["before"]["modelled_step_us"] == pytest.approx(
        result["measured_step_us"], rel=0.05
    )


def test_cli_and_python_agree(tmp_path: Path) -> None:
    out = tmp_path / "whatif.json"
    subprocess.run(
        [cli(), "whatif", str(INPUT_BOUND), "--op", "aten::linear=2x", "--json", str(out), "-q"],
        check=True,
        capture_output=True,
    )
    from_cli = json.loads(out.read_text())
    from_python = stepscope.analyze(INPUT_BOUND).what_if(ops={"aten::linear": 2})
    assert from_cli["predicted_step_us"] == from_python["predicted_step_us"]
    assert 0 < from_cli["saving_us_per_step"] < from_cli["measured_step_us"]


def test_a_request_that_changes_nothing_is_refused() -> None:
    report = stepscope.analyze(INPUT_BOUND)
    with pytest.raises(stepscope.BadOptionError):
        report.what_if()
    with pytest.raises(stepscope.BadOptionError):
        report.what_if(ops={"aten::mm": 0})
    result = subprocess.run([cli(), "whatif", str(INPUT_BOUND)], capture_output=True, text=True)
    assert result.returncode == 2
    assert "nothing to change" in result.stderr


def test_terminal_output_states_units() -> None:
    result = subprocess.run(
        [cli(), "whatif", str(INPUT_BOUND), "--loader", "0", "-q"],
        check=True,
        capture_output=True,
        text=True,
    )
    assert "step predicted" in result.stdout
    assert "ms per step" in result.stdout


def test_tensor_cores_and_kernel_groups_from_cli_and_python(tmp_path: Path) -> None:
    out = tmp_path / "whatif.json"
    subprocess.run(
        [cli(), "whatif", str(FP32_GEMM), "--tensor-cores", "--json", str(out), "-q"],
        check=True,
        capture_output=True,
    )
    from_cli = json.loads(out.read_text())
    report = stepscope.analyze(FP32_GEMM)
    from_python = report.what_if(tensor_cores=True)
    assert from_cli["predicted_step_us"] == from_python["predicted_step_us"]
    assert "tensor cores" in from_python["change"]
    # The fp32 GEMMs are most of this GPU-bound step: on tensor cores more than half of it goes.
    assert from_python["saving_us_per_step"] > 0.5 * from_python["measured_step_us"]
    # Four times faster fp32 matmuls save less than the H100's bf16 / fp32 peak ratio of 14.8x.
    four_times = report.what_if(kernels={"fp32-matmul": 4})
    assert 0 < four_times["saving_us_per_step"] < from_python["saving_us_per_step"]
    with pytest.raises(stepscope.BadOptionError):
        report.what_if(kernels={"attention": 2})
