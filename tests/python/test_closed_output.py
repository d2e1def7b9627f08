"""Standard output that cannot take the report (closed with `>&-`): a one-line error and exit
status 2, never an "internal error", whether the output is long or fits stdio's buffer."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "example_trace.json.gz"


def cli() -> str:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    assert command, "no stepscope command: set STEPSCOPE_CLI or install the package"
    return command


@pytest.mark.parametrize(
    "arguments",
    [
        ["analyze", str(EXAMPLE)],  # a report larger than stdio's buffer
        ["analyze", str(EXAMPLE), "--json", "-", "-q"],
        ["rules"],  # a short output, written only when stdio flushes at exit
    ],
)
def test_a_closed_standard_output_is_exit_status_2(arguments: list[str]) -> None:
    command = " ".join(f"'{part}'" for part in [cli(), *arguments])
    result = subprocess.run(
        ["bash", "-c", command + " >&-"], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 2, result.stderr
    assert "write" in result.stderr  # "cannot write the output", "<stdout>: write failed"
    assert "internal error" not in result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr
