"""An Nsight Systems SQLite export through the Python package and the command: the export is
made by the benchmark's generator (a seeded training loop), and stepscope's figures are checked
against an independent reading of the same tables with pandas."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import stepscope

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "run_nsys_benchmark.py"
FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "support" / "nsys_fixture.cpp"


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_nsys_benchmark", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_nsys_benchmark"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def export(generator: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("nsys") / "run_rank0.sqlite"
    steps = generator.generate(path, 1, generator.read_fixture_schema(FIXTURE))
    return path, steps


def test_python_reads_an_export(export: tuple[Path, int]) -> None:
    path, steps = export
    report = stepscope.analyze(str(path))
    document = report.to_dict()
    rank = document["ranks"][0]
    assert rank["format"] == "Nsight Systems SQLite export"
    assert rank["steps"]["count"] == steps
    assert rank["rank"] == 0


def test_figures_agree_with_pandas_reading_the_same_tables(
    generator: ModuleType, export: tuple[Path, int], tmp_path: Path
) -> None:
    pytest.importorskip("pandas")
    path, _ = export
    theirs_path = tmp_path / "pandas.json"
    generator.baseline(path, theirs_path)
    theirs = json.loads(theirs_path.read_text())["steps"]
    rank = stepscope.analyze(str(path)).to_dict()["ranks"][0]
    ours_us = sum(device["busy_us"] for device in rank["gpu_temporal"]["devices"])
    theirs_us = sum(step["gpu_busy_ns"] for step in theirs) / 1e3
    assert len(theirs) == rank["steps"]["count"]
    assert ours_us == pytest.approx(theirs_us, rel=0.01)


def test_command_reads_an_export_and_the_file_is_left_alone(export: tuple[Path, int]) -> None:
    path, _ = export
    before = (
        path.read_bytes(),
        path.stat().st_mtime_ns,
        sorted(p.name for p in path.parent.iterdir()),
    )
    result = subprocess.run(
        ["stepscope", "analyze", str(path), "-q"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "Nsight Systems" in result.stdout
    after = (
        path.read_bytes(),
        path.stat().st_mtime_ns,
        sorted(p.name for p in path.parent.iterdir()),
    )
    assert after == before
