"""The command line as a new user meets it: help that fits 100 columns and names the program,
--quiet for progress only and --no-report for the report, and a hint where `--` is missing."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import kineto_trace, write_trace

COMMANDS = [
    "analyze",
    "report",
    "diff",
    "memory",
    "plan",
    "monitor",
    "summarize",
    "merge",
    "scaling",
    "run",
    "whatif",
]


def cli() -> str:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    if not command:
        pytest.skip("no stepscope command: set STEPSCOPE_CLI or pip install .")
    return command


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([cli(), *args], capture_output=True, text=True, check=False)


@pytest.mark.parametrize("command", ["", *COMMANDS, "rules"])
def test_help_fits_100_columns_and_names_the_program(command: str) -> None:
    result = run(*([command] if command else []), "--help")
    assert result.returncode == 0, result.stderr
    long_lines = [line for line in result.stdout.splitlines() if len(line) > 100]
    assert long_lines == []
    usage = next(line for line in result.stdout.splitlines() if line.startswith("Usage:"))
    assert usage.split()[1] == "stepscope"


def test_diff_help_lists_the_verdicts_and_exit_codes() -> None:
    text = run("diff", "--help").stdout
    for verdict in ["faster, slower", "no significant change", "undetermined"]:
        assert verdict in text
    assert "3 slower beyond --fail-if-slower" in text


@pytest.mark.parametrize(
    "option", [["--jobs", "2"], ["--run", "0"], ["--per-rank"], ["--link-gbps", "25"]]
)
def test_diff_refuses_the_folder_report_options_it_would_ignore(
    tmp_path: Path, option: list[str]
) -> None:
    trace = write_trace(tmp_path / "trace.json.gz", kineto_trace())
    refused = run("diff", str(trace), str(trace), "-q", "--no-report", *option)
    assert refused.returncode == 2
    assert option[0] in refused.stderr
    accepted = run("analyze", str(trace), "-q", "--no-report", *option)
    assert accepted.returncode == 0, accepted.stderr


def test_quiet_silences_progress_only_and_no_report_the_report(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "trace.json.gz", kineto_trace())
    quiet = run("analyze", str(trace), "-q")
    assert quiet.returncode == 0, quiet.stderr
    assert "Diagnosis" in quiet.stdout or "verdict" in quiet.stdout.lower()
    out = tmp_path / "report.json"
    silent = run("analyze", str(trace), "--no-report", "--json", str(out))
    assert silent.returncode == 0, silent.stderr
    assert silent.stdout == ""
    assert out.read_text().startswith("{")


def test_monitor_without_double_dash_says_to_add_it() -> None:
    result = run("monitor", "python3", "-c", "print(1)")
    assert result.returncode == 2
    assert "Put `--` before the command" in result.stderr
