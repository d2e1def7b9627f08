"""tools/build_pgo.py's training set: made here from the bundled example, without ../shared, and
a failed recording with torch said rather than fatal. The builds themselves run in CI's build-pgo
phase."""

from __future__ import annotations

import gzip
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import REPO


@pytest.fixture(scope="module")
def build_pgo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_pgo", REPO / "tools" / "build_pgo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_pgo"] = module
    spec.loader.exec_module(module)
    return module


def test_training_traces_are_made_from_the_bundled_example(
    build_pgo: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build_pgo, "RECORD_CPU_TRACE", "raise SystemExit('no recording here')")
    traces = build_pgo.make_training_traces(tmp_path, 1)
    assert len(traces) == 7  # three loops, each replicated, and one of those compressed
    for trace in traces:
        assert trace.parent == tmp_path
        opener = gzip.open if trace.name.endswith(".gz") else open
        with opener(trace, "rt") as text:
            events = json.load(text)["traceEvents"]
        assert any(event.get("name", "").startswith("ProfilerStep#") for event in events)
    replicated = [trace for trace in traces if trace.name.startswith("large_")]
    assert all(trace.stat().st_size >= 1 << 20 for trace in replicated if trace.suffix == ".json")


def test_a_failed_recording_is_said_and_training_goes_on(
    build_pgo: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(build_pgo, "RECORD_CPU_TRACE", "import a_module_that_is_not_there")
    assert build_pgo.record_cpu_trace(tmp_path) == []
    said = capsys.readouterr().out
    assert "no CPU trace recorded with torch" in said and "a_module_that_is_not_there" in said
