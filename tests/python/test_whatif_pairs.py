"""bench/whatif_pairs.py: measured before/after pairs, and `stepscope whatif`'s predictions.

Records the pairs once (the loops are in whatif_pairs_loops.py) by running the script as a
user would, then checks the fixture itself (the traces have their steps; the loader fix really
is faster), the script's side of the `whatif` contract with a stand-in command, and, when
STEPSCOPE_CLI (else `stepscope` on PATH) lists `whatif` in its --help, that each prediction is
within 15 % of the measured fixed step. A command without `whatif` fails that check under
CI=true and skips it elsewhere.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

pytest.importorskip("torch")

SCRIPT = REPO / "bench" / "whatif_pairs.py"
PAIRS = ("loader", "item", "op")
TOLERANCE_PCT = 15.0


def run_script(*arguments: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *(str(argument) for argument in arguments)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The output folder of one recording of every pair."""
    out = tmp_path_factory.mktemp("whatif_pairs")
    done = run_script("--out", out)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def entries(out: Path) -> dict[str, dict[str, Any]]:
    listing: list[dict[str, Any]] = json.loads((out / "pairs.json").read_text())
    return {entry["pair"]: entry for entry in listing}


def test_pairs_listing(recorded: Path) -> None:
    found = entries(recorded)
    assert sorted(found) == sorted(PAIRS)
    assert found["loader"]["change"] == ["--loader", "0"]
    assert found["item"]["change"] == ["--no-syncs"]
    change = found["op"]["change"]
    assert change[0] == "--op" and re.fullmatch(r"aten::mm=[0-9.]+x", change[1]), change
    factor = found["op"]["op_factor"]
    # float32 products are faster than float64 ones; the factor is the ratio of the timings.
    assert factor["factor"] > 1.2
    assert factor["factor"] == pytest.approx(factor["before_ms"] / factor["after_ms"])
    for entry in found.values():
        for key in ("measured_before_ms", "measured_after_ms", "trace_before_ms"):
            assert entry[key] > 0, (entry["pair"], key)


def test_traces_have_profiler_steps(recorded: Path) -> None:
    for name, entry in entries(recorded).items():
        for side in ("before", "after"):
            path = recorded / name / f"{side}.json"
            assert entry[f"trace_{side}"] == f"{name}/{side}.json"
            events = json.loads(path.read_text())["traceEvents"]
            steps = [
                event
                for event in events
                if event.get("ph") == "X" and str(event.get("name")).startswith("ProfilerStep#")
            ]
            assert len(steps) == entry["steps"]["kept_in_trace"], (name, side)
            mean_ms = sum(float(event["dur"]) for event in steps) / len(steps) / 1e3
            assert mean_ms == pytest.approx(entry[f"trace_{side}_ms"])


def test_loader_fix_is_faster(recorded: Path) -> None:
    loader = entries(recorded)["loader"]
    assert loader["measured_after_ms"] < 0.8 * loader["measured_before_ms"], loader
    # Loading is a large part of the step without workers and a small one with two.
    assert 0.25 < loader["trace_before_loader_share"] < 0.75, loader
    assert loader["trace_after_loader_share"] < 0.2, loader


def fake_stepscope(folder: Path, help_text: str, step_ns: dict[str, float]) -> Path:
    """A stand-in command: prints `help_text` for --help; for whatif, records its arguments
    beside itself and prints the measured and predicted step (µs) as `whatif --json` does."""
    path = folder / "fake-stepscope"
    path.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "from pathlib import Path\n"
        "if sys.argv[1:] == ['--help']:\n"
        f"    print({help_text!r})\n"
        "    sys.exit(0)\n"
        "calls = Path(__file__).with_name('calls.jsonl')\n"
        "with calls.open('a') as file:\n"
        "    file.write(json.dumps(sys.argv[1:]) + '\\n')\n"
        f"step_ns = {step_ns!r}\n"
        "print(json.dumps({'measured_step_us': step_ns['before'] / 1e3,\n"
        "                  'predicted_step_us': step_ns['after'] / 1e3, 'more': 1}))\n"
    )
    path.chmod(0o755)
    return path


HELP_WITH_WHATIF = "Subcommands:\n  analyze   Analyze a trace\n  whatif    Re-time the steps"
HELP_WITHOUT = "Subcommands:\n  analyze   Analyze a trace\n  diff      Compare two runs"


def test_whatif_contract_with_a_stand_in(recorded: Path, tmp_path: Path) -> None:
    fake = fake_stepscope(tmp_path, HELP_WITH_WHATIF, {"before": 2_000_000, "after": 1_500_000})
    done = run_script("--out", recorded, "--reuse", "--stepscope", fake, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    found = entries(recorded)
    calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert calls == [
        ["whatif", str(recorded / name / "before.json"), *found[name]["change"], "--json", "-"]
        for name in PAIRS
    ]
    predictions = json.loads((recorded / "whatif.json").read_text())
    for row in predictions:
        entry = found[row["pair"]]
        assert row["predicted_after_ms"] == pytest.approx(0.75 * entry["measured_before_ms"])
        expected = (row["predicted_after_ms"] / entry["measured_after_ms"] - 1) * 100
        assert row["error_pct"] == pytest.approx(expected)
        assert row["whatif_before_ms"] == pytest.approx(2.0)
    assert "| pair | change | measured before | measured after |" in done.stdout
    assert re.search(r"\| loader \| `--loader 0` \| [0-9.]+ ms \| [0-9.]+ ms \|", done.stdout)
    assert re.search(r"\| [+-][0-9.]+ % \|", done.stdout), done.stdout


def test_missing_whatif_fails_clearly(recorded: Path, tmp_path: Path) -> None:
    absent = tmp_path / "no-such-stepscope"
    done = run_script("--out", recorded, "--reuse", "--stepscope", absent, timeout=60)
    assert done.returncode != 0
    assert str(absent) in done.stderr
    fake = fake_stepscope(tmp_path, HELP_WITHOUT, {"before": 1.0, "after": 1.0})
    done = run_script("--out", recorded, "--reuse", "--stepscope", fake, timeout=60)
    assert done.returncode != 0
    assert "no `whatif` command" in done.stderr and str(fake) in done.stderr
    assert not (tmp_path / "calls.jsonl").exists()


def stepscope_with_whatif() -> str:
    """STEPSCOPE_CLI (else `stepscope` on PATH) when its --help lists `whatif`: under CI=true
    anything else fails, elsewhere it skips."""
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    reason = ""
    if not command:
        reason = "no stepscope command (set STEPSCOPE_CLI)"
    else:
        try:
            shown = subprocess.run(
                [command, "--help"], capture_output=True, text=True, timeout=60, check=False
            )
        except OSError as error:
            reason = f"{command} does not run ({error})"
        else:
            if not re.search(r"^\s+whatif\b", shown.stdout + shown.stderr, re.MULTILINE):
                reason = f"{command} has no `whatif` command (its --help does not list it)"
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"{reason}: the whatif predictions were not checked")
        pytest.skip(f"{reason}: the whatif predictions were not checked")
    assert command
    return command


def test_whatif_predictions_within_tolerance(request: pytest.FixtureRequest) -> None:
    command = stepscope_with_whatif()  # before the recording, which a skip does not need
    recorded: Path = request.getfixturevalue("recorded")
    done = run_script("--out", recorded, "--reuse", "--stepscope", command, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    predictions = json.loads((recorded / "whatif.json").read_text())
    assert sorted(row["pair"] for row in predictions) == sorted(PAIRS)
    off = [row for row in predictions if abs(row["error_pct"]) > TOLERANCE_PCT]
    if off:
        # One slow spell of a shared machine moves a pair's measured steps by up to a fifth: a
        # pair off its bound is recorded and predicted once more, and fails only if off twice.
        again = request.getfixturevalue("tmp_path") / "again"
        pairs = ",".join(row["pair"] for row in off)
        retry = run_script("--out", again, "--pairs", pairs, "--stepscope", command, timeout=600)
        assert retry.returncode == 0, retry.stdout + retry.stderr
        second = json.loads((again / "whatif.json").read_text())
        off = [row for row in second if abs(row["error_pct"]) > TOLERANCE_PCT]
        assert not off, done.stdout + "\nrecorded again:\n" + retry.stdout
        return
