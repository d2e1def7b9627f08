"""Bad inputs and dangerous outputs through the CLI (STEPSCOPE_CLI, else `stepscope` on PATH).

Outputs never destroy what is not theirs (inputs, devices, FIFOs, symlinks); inputs of every
kind (pipes, `-`, FIFOs, odd folder entries, padded gzip) are read or refused by name.
"""

from __future__ import annotations

import gzip
import json
import os
import pickle
import shutil
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import kineto_trace, write_trace


def cli() -> str:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    if not command:
        pytest.skip("no stepscope command: set STEPSCOPE_CLI or pip install .")
    return command


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([cli(), *args], input=stdin, capture_output=True, check=False)


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    return write_trace(tmp_path / "trace.json.gz", kineto_trace())


@pytest.mark.parametrize(
    "command",
    [
        ["analyze", "{t}", "-q", "--json", "{t}"],
        ["analyze", "{t}", "-q", "--annotate", "{t}"],
        ["report", "{t}", "-q", "-o", "{t}"],
        ["diff", "{t}", "{t}", "-q", "--json", "{t}"],
        ["diff", "{t}", "{t}", "-q", "--html", "{t}"],
        ["memory", "{t}", "-q", "--json", "{t}"],
    ],
)
def test_output_equal_to_the_input_is_refused(trace: Path, command: list[str]) -> None:
    before = trace.read_bytes()
    done = run(*[part.format(t=trace) for part in command])
    assert done.returncode == 2, done.stderr
    assert b"would overwrite the input" in done.stderr
    assert trace.read_bytes() == before


def test_output_through_a_link_to_the_input_is_refused(trace: Path, tmp_path: Path) -> None:
    link = tmp_path / "alias.json"
    link.symlink_to(trace.name)
    before = trace.read_bytes()
    done = run("analyze", str(trace), "-q", "--json", str(link))
    assert done.returncode == 2
    assert trace.read_bytes() == before


def test_two_outputs_naming_one_file_are_refused(trace: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    done = run("analyze", str(trace), "-q", "--json", str(out), "--annotate", str(out))
    assert done.returncode == 2
    assert b"name the same file" in done.stderr
    assert not out.exists()


def test_symlink_output_keeps_the_link(trace: Path, tmp_path: Path) -> None:
    link = tmp_path / "latest.json"
    link.symlink_to("report-1.json")
    done = run("analyze", str(trace), "-q", "--json", str(link))
    assert done.returncode == 0, done.stderr
    assert link.is_symlink()
    assert (tmp_path / "report-1.json").read_text().startswith("{")


def test_fifo_output_is_written_through(trace: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    done = run("analyze", str(trace), "-q", "--json", str(fifo))
    reader.join(timeout=30)
    assert done.returncode == 0, done.stderr
    assert received and received[0].startswith(b"{")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe", "trace.json.gz"]


def test_dev_null_stays_a_device_in_a_private_mount_namespace(trace: Path) -> None:
    """Only inside `unshare -m` with a tmpfs over /dev: the real /dev/null is never at risk."""
    unshare = shutil.which("unshare")
    if sys.platform != "linux" or unshare is None:
        pytest.skip("needs Linux and unshare(1)")
    script = (
        "set -e; mount --make-rprivate /; "
        "mount -t tmpfs tmpfs /dev; mknod -m 666 /dev/null c 1 3; "
        '"$0" analyze "$1" --no-report --json /dev/null; "$0" report "$1" -q -o /dev/null; '
        "test -c /dev/null && echo still-a-device; ls -A /dev"
    )
    probe = subprocess.run(
        [unshare, "-m", "--propagation", "private", "sh", "-c", "mount --make-rprivate /"],
        capture_output=True,
        check=False,
    )
    if probe.returncode != 0:
        pytest.skip(f"unshare -m with a tmpfs mount is not permitted here: {probe.stderr!r}")
    done = subprocess.run(
        [unshare, "-m", "--propagation", "private", "sh", "-c", script, cli(), str(trace)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split()
    assert lines == ["still-a-device", "null"]  # no temporary left beside it


def test_stdin_and_pipes_are_read_whole(trace: Path, tmp_path: Path) -> None:
    plain = gzip.decompress(trace.read_bytes())
    from_file = run("analyze", str(trace), "-q", "--json", "-")
    assert from_file.returncode == 0
    for data in (plain, trace.read_bytes()):
        done = run("analyze", "-", "-q", "--json", "-", stdin=data)
        assert done.returncode == 0, done.stderr
        assert done.stdout.count(b'"steps"') == from_file.stdout.count(b'"steps"')
        done = run("analyze", "/dev/stdin", "-q", "--json", str(tmp_path / "o.json"), stdin=data)
        assert done.returncode == 0, done.stderr


def test_gzip_zero_padding_is_accepted_and_errors_give_both_offsets(
    trace: Path, tmp_path: Path
) -> None:
    padded = tmp_path / "padded.json.gz"
    padded.write_bytes(trace.read_bytes() + bytes(4096))
    assert run("analyze", str(padded), "-q").returncode == 0
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(trace.read_bytes()[:300])
    done = run("analyze", str(cut), "-q")
    assert done.returncode == 2
    assert b"at decompressed byte" in done.stderr
    assert b"(compressed byte 300)" in done.stderr


@pytest.mark.parametrize("kind", ["loop", "dangling", "fifo"])
def test_odd_folder_entries_are_bad_files(trace: Path, tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "job"
    folder.mkdir()
    shutil.copy(trace, folder / "rank0.json.gz")
    odd = folder / "rank1.json"
    if kind == "loop":
        (folder / "other.json").symlink_to("rank1.json")
        odd.symlink_to("other.json")
    elif kind == "dangling":
        odd.symlink_to("missing.json")
    else:
        os.mkfifo(odd)
    done = run("analyze", str(folder), "-q")
    assert done.returncode == 2, done.stderr
    assert str(folder).encode() in done.stderr and b"json" in done.stderr
    assert b"internal error" not in done.stderr
    skipped = run("analyze", str(folder), "-q", "--skip-bad", "--json", "-")
    assert skipped.returncode == 0, skipped.stderr
    assert b"rank1.json" in skipped.stdout


def test_control_characters_in_file_names_are_printable(tmp_path: Path) -> None:
    name = tmp_path / "evil\x1b[31m\x07.json"
    name.write_text("not json")
    done = run("analyze", str(name), "-q")
    assert done.returncode == 2
    assert b"\x1b" not in done.stderr and b"\x07" not in done.stderr
    assert b"evil\\x1b[31m\\x07.json" in done.stderr


def test_monitor_checks_outputs_before_running(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    done = run(
        "monitor",
        "--no-gpu",
        "-q",
        "-o",
        str(tmp_path / "no" / "t.json"),
        "--",
        "touch",
        str(marker),
    )
    assert done.returncode == 2
    assert not marker.exists()
    assert list(tmp_path.iterdir()) == []


def test_monitor_permission_denied_exits_126(tmp_path: Path) -> None:
    script = tmp_path / "not_executable.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    assert run("monitor", "--no-gpu", "-q", "--", str(script)).returncode == 126
    assert run("monitor", "--no-gpu", "-q", "--", str(tmp_path / "missing")).returncode == 127


def test_monitor_kills_a_child_that_ignores_the_second_stop(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    child = f"trap '' INT TERM; touch {ready}; while :; do sleep 0.1; done"
    process = subprocess.Popen(
        [cli(), "monitor", "--no-gpu", "-q", "--", "sh", "-c", child],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(200):
            if ready.exists():
                break
            threading.Event().wait(0.05)
        assert ready.exists()
        process.send_signal(signal.SIGTERM)
        threading.Event().wait(0.2)
        assert process.poll() is None  # the child ignores the first request
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 128 + signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()


def test_steps_selecting_nothing_is_refused_naming_the_steps(trace: Path) -> None:
    done = run("analyze", str(trace), "-q", "--steps", "100:200")
    assert done.returncode == 2
    assert b"selects no step" in done.stderr
    assert b"steps 0-2" in done.stderr  # kineto_trace() writes ProfilerStep#0..2
    assert run("analyze", str(trace), "-q", "--steps", "1:1").returncode == 0


def test_rocm_style_numeric_strings_load_with_a_note(tmp_path: Path) -> None:
    document = kineto_trace()
    for event in document["traceEvents"]:
        args = event.get("args") or {}
        if "correlation" in args:
            args["correlation"] = str(args["correlation"])
        if "est. achieved occupancy %" in args:
            args["est. achieved occupancy %"] = None
    path = write_trace(tmp_path / "rocm.json", document)
    done = run("analyze", str(path), "-q", "--json", "-")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    notes = " ".join(report["input"]["notes"])
    assert "args.correlation held a numeric string" in notes
    assert "occupancy % had the wrong type" in notes
    unchanged = json.loads(
        run(
            "analyze", str(write_trace(tmp_path / "ok.json", kineto_trace())), "-q", "--json", "-"
        ).stdout
    )
    assert report["ranks"][0]["steps"] == unchanged["ranks"][0]["steps"]


def test_snapshot_sharing_one_block_list_is_refused_not_expanded(tmp_path: Path) -> None:
    blocks = [
        {"address": 4096 * i, "size": 512, "requested_size": 500, "state": "active_allocated"}
        for i in range(1500)
    ]
    segments = [
        {
            "device": 0,
            "address": 1 << 30,
            "total_size": 1 << 20,
            "allocated_size": 512,
            "active_size": 512,
            "requested_size": 500,
            "stream": 0,
            "segment_type": "large",
            "is_expandable": False,
            "blocks": blocks,  # the same list object: pickled once, referenced through the memo
        }
        for _ in range(1500)
    ]
    path = tmp_path / "shared.pickle"
    path.write_bytes(pickle.dumps({"segments": segments, "device_traces": [[]]}, protocol=4))
    assert path.stat().st_size < 1 << 20
    done = run("memory", str(path), "-q")
    assert done.returncode == 2, done.stderr
    assert b"shared between segments" in done.stderr
    assert b"at byte" in done.stderr


def test_a_huge_sparse_file_is_not_refused_for_its_size(tmp_path: Path) -> None:
    """Column space is reserved from the file size only up to a cap: a sparse 50 GB file under
    a 600 MB address-space limit reaches the parser (and its real error), not bad_alloc."""
    sparse = tmp_path / "sparse.json"
    with sparse.open("wb") as f:
        f.write(b'{"traceEvents":[')
        f.truncate(50 << 30)
    done = subprocess.run(
        ["sh", "-c", 'ulimit -v 600000 && exec "$0" analyze "$1" -q', cli(), str(sparse)],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert b"not an event object" in done.stderr
    assert b"internal error" not in done.stderr and b"out of memory" not in done.stderr


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
@pytest.mark.parametrize("command", ["analyze", "memory"])
def test_a_checkpoint_passed_by_mistake_is_named(
    tmp_path: Path, legacy: bool, command: str
) -> None:
    torch = pytest.importorskip("torch")
    checkpoint = tmp_path / "model.pt"
    torch.save({"weight": torch.zeros(4)}, checkpoint, _use_new_zipfile_serialization=not legacy)
    result = run(command, str(checkpoint))
    assert result.returncode == 2
    message = result.stderr.decode()
    assert str(checkpoint) in message
    kind = "legacy pickle format" if legacy else "zip archive"
    assert f"torch.save checkpoint ({kind})" in message
