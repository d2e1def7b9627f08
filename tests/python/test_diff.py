"""`stepscope diff` on two runs recorded here with torch.profiler (CPU).

Before: a Dataset whose __getitem__ sleeps 20 ms (the input pipeline gates every step). After:
the same training loop with the sleep removed (the "fixed loader"). The comparison must say
faster, with the input-bound finding resolved; swapped, --fail-if-slower must fail the run.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

EXIT_BAD_INPUT = 2
EXIT_SLOWER = 3
SLOW_ITEM_SECONDS = 0.02


def stepscope_command() -> str:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    assert command, "pip install . puts stepscope on PATH (or set STEPSCOPE_CLI)"
    return command


def run_stepscope(*arguments: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [stepscope_command(), *(str(a) for a in arguments)],
        capture_output=True,
        text=True,
        timeout=120,
    )


class Batches:
    """A map-style Dataset of six ready-made batches; `delay` seconds of sleep per batch stand
    for slow decoding (DataLoader needs only __len__ and __getitem__)."""

    def __init__(self, delay: float) -> None:
        generator = torch.Generator().manual_seed(0)
        self.delay = delay
        self.inputs = torch.randn(6, 128, 256, generator=generator)
        self.targets = torch.randn(6, 128, 1, generator=generator)

    def __len__(self) -> int:
        return 6

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        if self.delay:
            time.sleep(self.delay)
        return self.inputs[index], self.targets[index]


def record(path: Path, delay: float) -> Path:
    """Six steps, profiled as wait 1, warmup 1, active 4, exported as a Chrome trace."""
    torch.manual_seed(0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        model = torch.nn.Sequential(
            torch.nn.Linear(256, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1)
        )
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        loader = torch.utils.data.DataLoader(Batches(delay), batch_size=None)
        schedule = torch.profiler.schedule(wait=1, warmup=1, active=4)
        with torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CPU],
            schedule=schedule,
            on_trace_ready=lambda profiler: profiler.export_chrome_trace(str(path)),
        ) as profiler:
            for inputs, targets in loader:
                optimizer.zero_grad()
                loss = torch.nn.functional.mse_loss(model(inputs), targets)
                loss.backward()
                optimizer.step()
                profiler.step()
    finally:
        torch.set_num_threads(threads)
    assert path.exists()
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("runs")
    before = record(folder / "slow_dataset.json", SLOW_ITEM_SECONDS)
    after = record(folder / "fixed_loader.json", 0.0)
    return before, after


def diff_json(before: Path, after: Path, *extra: str) -> dict[str, Any]:
    result = run_stepscope("diff", before, after, "--json", "-", *extra)
    assert result.returncode == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def finding_ids(findings: list[dict[str, Any]]) -> set[str]:
    return {str(f["id"]) for f in findings}


def test_slow_dataset_is_diagnosed_input_bound(runs: tuple[Path, Path]) -> None:
    before, after = runs
    for path, expected in ((before, True), (after, False)):
        result = run_stepscope("analyze", path, "--json", "-")
        assert result.returncode == 0, result.stderr
        findings = json.loads(result.stdout)["ranks"][0]["diagnosis"]["findings"]
        assert ("input-bound" in finding_ids(findings)) is expected, path.name


def test_fixed_loader_is_faster_and_resolves_input_bound(runs: tuple[Path, Path]) -> None:
    before, after = runs
    document = diff_json(before, after)
    assert document["schema"] == "stepscope.diff"
    steps = document["step_time"]
    assert steps["verdict"] == "faster"
    assert steps["before"]["steps"] == 4
    assert steps["after"]["steps"] == 4
    low, high = steps["ratio_ci"]
    assert low <= steps["ratio"] <= high < 1
    # Each slow step sleeps 20 ms more than the fixed one.
    assert steps["change_ms"] < -SLOW_ITEM_SECONDS * 1000 * 0.8
    assert "input-bound" in finding_ids(document["findings"]["resolved"])
    assert "input-bound" not in finding_ids(document["findings"]["introduced"])
    phases = {row["phase"]: row for row in document["phases"]["rows"]}
    assert phases["data_loading"]["change_ms_per_step"] < -SLOW_ITEM_SECONDS * 1000 * 0.8


def test_same_seed_same_interval(runs: tuple[Path, Path]) -> None:
    before, after = runs
    first = diff_json(before, after, "--seed", "7")["step_time"]
    second = diff_json(before, after, "--seed", "7")["step_time"]
    assert first["ratio_ci"] == second["ratio_ci"]
    assert first["seed"] == 7


def test_fail_if_slower_when_swapped(runs: tuple[Path, Path], tmp_path: Path) -> None:
    before, after = runs
    swapped = run_stepscope("diff", after, before, "-q", "--fail-if-slower", "5")
    assert swapped.returncode == EXIT_SLOWER, swapped.stderr
    assert "slower" in swapped.stderr
    # The improvement passes the gate, and the JSON is still written when the gate fails.
    assert run_stepscope("diff", before, after, "-q", "--fail-if-slower", "5").returncode == 0
    output = tmp_path / "diff.json"
    gated = run_stepscope("diff", after, before, "--json", output, "--fail-if-slower", "5")
    assert gated.returncode == EXIT_SLOWER
    assert json.loads(output.read_text())["step_time"]["verdict"] == "slower"


def test_bad_input_names_the_file_and_leaves_no_output(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    before, _ = runs
    missing = tmp_path / "missing.json"
    truncated = tmp_path / "truncated.json.gz"
    truncated.write_bytes(gzip.compress(before.read_bytes())[:2000])
    for bad in (missing, truncated):
        for pair in ((before, bad), (bad, before)):
            output = tmp_path / "out.json"
            result = run_stepscope("diff", *pair, "--json", output)
            assert result.returncode == EXIT_BAD_INPUT, result.stderr
            assert bad.name in result.stderr
            assert not output.exists()
            assert list(tmp_path.glob("out.json*")) == []
