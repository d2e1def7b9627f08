"""`stepscope run -- python SCRIPT` and `python -m stepscope.run SCRIPT` on plain PyTorch scripts
that import nothing from stepscope (CPU only): the exit status is the script's, the trace has
ProfilerStep# steps, and the diagnosis is printed.

Runs the CLI (STEPSCOPE_CLI, else `stepscope` on PATH); the recorder comes from the installed
stepscope package, as it does for users.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from job_support import stepscope_command

TIMEOUT_S = 120
WINDOW = ["--skip", "1", "--steps", "3"]

# A training loop whose Dataset calls a slow function: input-bound by construction. Arguments:
# the exit status, the step that raises (-1: none), the DataLoader's workers (default 0).
TRAIN = """
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset


def decode_sample(index):
    time.sleep(0.01)
    return torch.randn(16), torch.randn(1)


class Slow(Dataset):
    def __len__(self):
        return 96

    def __getitem__(self, index):
        return decode_sample(index)


workers = int(sys.argv[3]) if len(sys.argv) > 3 else 0
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Slow(), batch_size=4, num_workers=workers)
for step, (x, y) in enumerate(loader):
    if step == int(sys.argv[2]):
        raise RuntimeError("failed inside the window")
    loss = torch.nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
sys.exit(int(sys.argv[1]))
"""

# Trains until interrupted, printing each step once its optimizer step is done.
ENDLESS_TRAIN = """
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Slow(Dataset):
    def __len__(self):
        return 1_000_000

    def __getitem__(self, index):
        time.sleep(0.01)
        return torch.randn(16), torch.randn(1)


model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for step, (x, y) in enumerate(DataLoader(Slow(), batch_size=4)):
    loss = torch.nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}", flush=True)
"""

# No optimizer: the steps are the model's outermost forward calls.
INFERENCE = """
import torch

model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
with torch.no_grad():
    for _ in range(8):
        model(torch.randn(8, 16))
"""

# Two gloo ranks under torchrun; rank 1 sleeps in every step, so rank 0 waits for it.
DDP = """
import time

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 64))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for _ in range(8):
    if dist.get_rank() == 1:
        time.sleep(0.1)
    model(torch.randn(32, 64)).sum().backward()
    optimizer.step()
dist.destroy_process_group()
"""

# A step of two optimizer steps, in a module of its own: --step-fn work:step names it.
STEP_MODULE = """
import torch

model = torch.nn.Linear(16, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def step():
    for _ in range(2):
        model(torch.randn(8, 16)).sum().backward()
        optimizer.step()
"""

# The script profiles itself: stepscope run must step aside.
OWN_PROFILER = """
import torch

model = torch.nn.Linear(16, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
schedule = torch.profiler.schedule(wait=2, warmup=1, active=2)
with torch.profiler.profile(schedule=schedule) as prof:
    for _ in range(8):
        model(torch.randn(8, 16)).sum().backward()
        optimizer.step()
        prof.step()
"""


# Where TRAIN's samples must be charged: the sleeping line of decode_sample.
SLOW_LINE = 1 + textwrap.dedent(TRAIN).splitlines().index("    time.sleep(0.01)")


def write_script(folder: Path, text: str, name: str = "script.py") -> Path:
    script = folder / name
    script.write_text(textwrap.dedent(text), encoding="utf-8")
    return script


def run(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def stepscope_run(
    tmp_path: Path, script: Path, *script_args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    command = [stepscope_command(), "run", "--out", str(tmp_path / "out"), *WINDOW, "--"]
    return run([*command, sys.executable, str(script), *script_args], tmp_path, env)


def read_trace(path: Path) -> dict[str, Any]:
    with gzip.open(path, "rt", encoding="utf-8") as stream:
        trace: dict[str, Any] = json.load(stream)
    return trace


def profiler_steps(trace: dict[str, Any]) -> list[str]:
    return sorted(
        event["name"]
        for event in trace["traceEvents"]
        if str(event.get("name", "")).startswith("ProfilerStep#")
    )


def test_training_script_is_recorded_and_diagnosed_with_its_exit_status(tmp_path: Path) -> None:
    script = write_script(tmp_path, TRAIN)
    result = stepscope_run(tmp_path, script, "3", "-1")
    assert result.returncode == 3, result.stderr
    trace = read_trace(tmp_path / "out" / "rank0.pt.trace.json.gz")
    assert profiler_steps(trace) == ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"]
    assert trace["stepscope_host"]["cores_available"] >= 1
    # The text report names the input-bound finding by its bottleneck.
    assert "input_pipeline bound: Data loading takes" in result.stdout, result.stdout
    # The input pipeline was sampled in this process: the slow function and its line.
    sampled = trace["stepscope_host"]["input_functions"]
    assert sampled["worker_processes"] == 0
    assert sampled["functions"][0]["function"] == "decode_sample"
    assert f"decode_sample (script.py:{SLOW_LINE})" in result.stdout, result.stdout
    assert (tmp_path / "out" / "report.html").read_text(encoding="utf-8").startswith("<!")
    assert not [p.name for p in (tmp_path / "out").iterdir() if p.name.startswith(".")]


def test_dataloader_workers_are_sampled_and_name_the_slow_function(tmp_path: Path) -> None:
    script = write_script(tmp_path, TRAIN)
    command = [stepscope_command(), "run", "--out", str(tmp_path / "out"), "--skip", "2"]
    command += ["--steps", "8", "--", sys.executable, str(script), "0", "-1", "2"]
    result = run(command, tmp_path)
    assert result.returncode == 0, result.stderr
    trace = read_trace(tmp_path / "out" / "rank0.pt.trace.json.gz")
    sampled = trace["stepscope_host"]["input_functions"]
    assert sampled["worker_processes"] == 2, sampled
    top = sampled["functions"][0]
    assert (top["function"], top["file"], top["hottest_line"]) == (
        "decode_sample",
        "script.py",
        SLOW_LINE,
    )
    assert f"decode_sample (script.py:{SLOW_LINE})" in result.stdout, result.stdout
    assert "2 DataLoader worker processes" in result.stdout, result.stdout
    assert not [p.name for p in (tmp_path / "out").iterdir() if p.name.startswith(".")]


def test_memory_without_cuda_says_so_and_records_the_trace(tmp_path: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this test checks the note of a machine without CUDA")
    script = write_script(tmp_path, INFERENCE)
    out = tmp_path / "out"
    command = [stepscope_command(), "run", "--out", str(out), *WINDOW, "--memory", "--"]
    result = run([*command, sys.executable, str(script)], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "--memory: no CUDA device in this process" in result.stderr
    assert profiler_steps(read_trace(out / "rank0.pt.trace.json.gz")) == [
        "ProfilerStep#0",
        "ProfilerStep#1",
        "ProfilerStep#2",
    ]
    assert not list(out.glob("*.pickle"))


def test_inference_steps_come_from_outermost_forwards(tmp_path: Path) -> None:
    script = write_script(tmp_path, INFERENCE)
    # An existing sitecustomize is chained, not hidden.
    site = tmp_path / "site"
    site.mkdir()
    marker = tmp_path / "chained"
    (site / "sitecustomize.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    inherited = os.environ.get("PYTHONPATH", "")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(site), inherited) if p)}
    result = stepscope_run(tmp_path, script, env=env)
    assert result.returncode == 0, result.stderr
    trace = read_trace(tmp_path / "out" / "rank0.pt.trace.json.gz")
    assert profiler_steps(trace) == ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"]
    assert marker.exists()


def test_a_script_with_its_own_profiler_is_not_profiled_twice(tmp_path: Path) -> None:
    script = write_script(tmp_path, OWN_PROFILER)
    result = stepscope_run(tmp_path, script)
    assert result.returncode == 0, result.stderr
    assert "runs torch.profiler itself" in result.stderr
    assert not list((tmp_path / "out").glob("*.pt.trace.json.gz"))


def test_a_failure_inside_the_window_leaves_a_readable_partial_trace(tmp_path: Path) -> None:
    script = write_script(tmp_path, TRAIN)
    result = stepscope_run(tmp_path, script, "0", "2")  # raises in the window's second step
    assert result.returncode == 1
    assert "RuntimeError: failed inside the window" in result.stderr
    trace = read_trace(tmp_path / "out" / "rank0.pt.trace.json.gz")
    assert profiler_steps(trace) == ["ProfilerStep#0", "ProfilerStep#1"]
    assert "is partial (1 of 3 steps)" in result.stderr


def test_ctrl_c_inside_the_window_leaves_a_partial_trace_and_the_diagnosis(
    tmp_path: Path,
) -> None:
    script = write_script(tmp_path, ENDLESS_TRAIN)
    out = tmp_path / "out"
    command = [stepscope_command(), "run", "--out", str(out), "--skip", "1", "--steps", "1000"]
    # Started the way a CI script's background job is: with SIGINT ignored, which the program
    # inherits. The Ctrl-C that stepscope passes on must stop it all the same.
    errors_file = tmp_path / "stderr.txt"
    with open(errors_file, "w", encoding="utf-8") as errors_stream:
        process = subprocess.Popen(
            [*command, "--", sys.executable, str(script)],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=errors_stream,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        )
    try:
        assert process.stdout is not None
        # The window opens after step 0; once step 2 is printed, it holds a complete step.
        for line in process.stdout:
            if line.strip() == "step 2":
                break
        process.send_signal(signal.SIGINT)
        stdout, _ = process.communicate(timeout=TIMEOUT_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    errors = errors_file.read_text(encoding="utf-8")
    assert process.returncode == 130, errors
    assert "KeyboardInterrupt" in errors, errors
    steps = profiler_steps(read_trace(out / "rank0.pt.trace.json.gz"))
    assert steps and steps[0] == "ProfilerStep#0", steps
    assert "rank0.pt.trace.json.gz is partial" in errors, errors
    assert "input_pipeline bound" in stdout, stdout
    assert (out / "report.html").is_file()


def test_processes_without_torch_and_disabled_runs_record_nothing(tmp_path: Path) -> None:
    probe = write_script(tmp_path, "import sys\nprint('torch' in sys.modules)\n")
    result = stepscope_run(tmp_path, probe)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[0] == "False"  # the hook never imports torch
    assert "no trace was written" in result.stderr
    script = write_script(tmp_path, INFERENCE, "inference.py")
    disabled = {**os.environ, "STEPSCOPE_RUN_DISABLE": "1"}
    command = [stepscope_command(), "run", "--out", str(tmp_path / "off"), *WINDOW, "--"]
    result = run([*command, sys.executable, str(script)], tmp_path, disabled)
    assert result.returncode == 0, result.stderr
    assert not list((tmp_path / "off").glob("*.pt.trace.json.gz"))


def test_stepscope_fails_with_2_before_starting_a_command(tmp_path: Path) -> None:
    result = run([stepscope_command(), "run", "--steps", "0", "--", "true"], tmp_path)
    assert result.returncode == 2
    assert not list(tmp_path.iterdir())  # no out folder made


def test_python_m_stepscope_run(tmp_path: Path) -> None:
    script = write_script(tmp_path, TRAIN)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "stepscope.run", "--out", str(out), *WINDOW]
    result = run([*command, str(script), "5", "-1"], tmp_path)
    assert result.returncode == 5, result.stderr
    trace = read_trace(out / "rank0.pt.trace.json.gz")
    assert profiler_steps(trace) == ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"]
    assert "input_pipeline bound: Data loading takes" in result.stdout, result.stdout
    assert (out / "report.html").is_file()


def test_a_torchrun_job_records_each_rank_and_names_the_straggler(tmp_path: Path) -> None:
    import torch

    if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
        pytest.skip("this torch build has no gloo backend")
    script = write_script(tmp_path, DDP)
    out = tmp_path / "out"
    command = [stepscope_command(), "run", "--out", str(out), "--skip", "2", "--steps", "4"]
    launcher = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2"]
    result = run([*command, "--", *launcher, str(script)], tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.glob("*.pt.trace.json.gz")) == [
        "rank0.pt.trace.json.gz",
        "rank1.pt.trace.json.gz",
    ]
    assert "Straggler: rank 1 arrives late" in result.stdout, result.stdout


def test_step_fn_makes_each_call_a_step_and_the_program_can_stop_after_the_window(
    tmp_path: Path,
) -> None:
    write_script(tmp_path, STEP_MODULE, "work.py")
    loop = "import work\nfor _ in range(8):\n    work.step()\nprint('ran to the end')\n"
    script = write_script(tmp_path, loop)
    out = tmp_path / "out"
    command = [stepscope_command(), "run", "--out", str(out), *WINDOW, "--step-fn", "work:step"]
    command.append("--stop-after-window")
    result = run([*command, "--", sys.executable, str(script)], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "ran to the end" not in result.stdout  # stopped once the window was written
    trace = read_trace(out / "rank0.pt.trace.json.gz")
    assert profiler_steps(trace) == ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"]
    optimizer_steps = [
        event
        for event in trace["traceEvents"]
        if str(event.get("name", "")).startswith("Optimizer.step#")
    ]
    assert len(optimizer_steps) == 6  # two per step: the optimizer did not set the steps
