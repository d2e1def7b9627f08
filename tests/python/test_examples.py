"""End to end: the bundled example generator's three loops get the verdicts they were built to
show, through the installed `stepscope` package and command."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import stepscope

REPO = Path(__file__).resolve().parents[2]


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_example_trace", REPO / "examples" / "make_example_trace.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_example_trace"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("bottleneck", "verdict", "top_finding"),
    [
        ("input", "input_pipeline", "input-bound"),
        ("launch", "host_launch_overhead", "launch-bound"),
        ("healthy", "healthy", None),
    ],
)
def test_generated_loops_get_their_verdict(
    tmp_path: Path, bottleneck: str, verdict: str, top_finding: str | None
) -> None:
    generator = load_generator()
    trace = tmp_path / f"{bottleneck}.json.gz"
    generator.write(generator.build_trace(steps=6, seed=3, bottleneck=bottleneck), trace)
    diagnosis = stepscope.analyze(str(trace)).ranks[0]["diagnosis"]
    assert diagnosis["bottleneck"] == verdict
    if top_finding is None:
        assert all(f["expected_gain"]["likely_share_of_step"] < 0.05 for f in diagnosis["findings"])
    else:
        top = diagnosis["findings"][0]
        assert top["id"] == top_finding
        assert top["expected_gain"]["likely_us_per_step"] > 0
        assert top["evidence"] and top["fix"]


def test_bundled_example_is_the_generators_output(tmp_path: Path) -> None:
    generator = load_generator()
    fresh = tmp_path / "example.json.gz"
    generator.write(generator.build_trace(), fresh)
    bundled = REPO / "examples" / "example_trace.json.gz"
    assert fresh.read_bytes() == bundled.read_bytes(), "regenerate examples/example_trace.json.gz"


def test_cli_writes_the_same_document_as_python(tmp_path: Path) -> None:
    command = shutil.which("stepscope")
    assert command is not None, "pip install . puts stepscope on PATH"
    out = tmp_path / "report.json"
    example = REPO / "examples" / "example_trace.json.gz"
    subprocess.run([command, "analyze", str(example), "--quiet", "--json", str(out)], check=True)
    from_cli = json.loads(out.read_text())
    from_python = stepscope.analyze(str(example)).to_dict()
    assert from_cli["ranks"][0]["diagnosis"] == from_python["ranks"][0]["diagnosis"]
    assert from_cli["schema_version"] == from_python["schema_version"]
