"""The pure helpers of bench/run_benchmarks.py (row verdicts, the table, the machine header) and
its command line; no timings."""

from __future__ import annotations

import datetime
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "run_benchmarks.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_benchmarks", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_benchmarks"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_judge(bench: ModuleType) -> None:
    assert bench.judge(2.0, ">=", 1.8) is True
    assert bench.judge(1.33, ">=", 1.8) is False
    assert bench.judge(0.8, "<=", 0.8) is True
    assert bench.judge(1.4, "<=", 0.8) is False
    assert bench.judge(None, ">=", 1.0) is None
    assert bench.judge(1.0, "", None) is None
    with pytest.raises(ValueError):
        bench.judge(1.0, "<", 1.0)


def test_instructions_per_unit(bench: ModuleType) -> None:
    # 1.978 G instructions over 62,351,697 bytes and 218,204 events (the generated trace).
    per_byte, per_event = bench.instructions_per_unit(1.978e9, 62_351_697, 218_204)
    assert per_byte == pytest.approx(31.72, abs=0.01)
    assert per_event == pytest.approx(9065.0, abs=1.0)
    assert bench.instructions_per_unit(5.0, 0, 0) == (0.0, 0.0)


def test_rows_and_table(bench: ModuleType) -> None:
    hta = bench.target_row(
        "analyze control vs HTA",
        0.167,
        "s",
        ratio=3.84 / 0.167,
        op=">=",
        threshold=50,
        baseline_name="HTA",
        baseline_value=3.84,
    )
    assert hta.target == ">= 50x" and hta.met is False
    speed = bench.target_row(
        "1 GB .json", 620.0, "MB/s", ratio=None, op=">=", threshold=500, ratio_unit=" MB/s"
    )
    assert speed.target == ">= 500 MB/s" and speed.met is True  # judged on the value
    info = bench.target_row("bytes per event", 122.0, "B", ratio=None, note="events")
    assert info.met is None and info.target == ""
    skipped = bench.skipped_row("1 GB .json.gz vs HTA", "--hta-large not given", ">=", 100)
    assert skipped.met is None and skipped.value is None

    lines = bench.format_rows([hta, speed, info, skipped])
    assert lines[0].startswith("| figure | stepscope | baseline | ratio | target | verdict |")
    assert lines[2] == (
        "| analyze control vs HTA | 0.167 s | HTA 3.84 s | 23.0x | >= 50x | not met |"
    )
    assert lines[3] == "| 1 GB .json | 620 MB/s |  |  | >= 500 MB/s | met |"
    assert lines[4] == "| bytes per event | 122 B |  |  |  | events |"
    assert lines[5].endswith("| >= 100x | not measured: --hta-large not given |")
    assert all(line.count("|") == 7 for line in lines)


def test_a_figure_next_to_its_target_is_not_rounded_onto_the_other_side(
    bench: ModuleType,
) -> None:
    assert bench.format_judged(1.7986, ">=", 1.8) == "1.799"
    assert bench.format_judged(1.8004, ">=", 1.8) == "1.80"  # met, and shown as met
    assert bench.format_judged(499.6, ">=", 500) == "499.6"
    assert bench.format_judged(0.80004, "<=", 0.8) == "0.80004"
    assert bench.format_judged(1.7985, "", None) == "1.80"  # nothing to judge against
    close = bench.target_row(
        "2 threads vs 1", 1.27, "s", ratio=1.7986, op=">=", threshold=1.8, baseline_value=2.28
    )
    assert "| 1.799x | >= 1.8x | not met |" in bench.format_rows([close])[2]
    slow = bench.target_row(
        "1 GB .json", 499.6, "MB/s", ratio=None, op=">=", threshold=500, ratio_unit=" MB/s"
    )
    assert bench.format_rows([slow])[2].startswith("| 1 GB .json | 499.6 MB/s |")


def test_format_number(bench: ModuleType) -> None:
    assert bench.format_number(0) == "0"
    assert bench.format_number(1234.5) == "1,234"
    assert bench.format_number(23.04) == "23.0"
    assert bench.format_number(1.337) == "1.34"
    assert bench.format_number(0.01234) == "0.0123"


def test_describe_machine(bench: ModuleType) -> None:
    cpuinfo = "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nprocessor\t: 1\nmodel name\t: x\n"
    meminfo = "MemTotal:       16384000 kB\nMemFree: 1 kB\nMemAvailable:    8192000 kB\n"
    machine = bench.describe_machine(
        cpuinfo,
        meminfo,
        stepscope_version="stepscope 0.1.0",
        stepscope_path="/repo/build/dev/stepscope",
        pgo_path="/repo/build/pgo/stepscope",
        commit="abc123",
        now=datetime.datetime(2026, 11, 26, 5, 0, tzinfo=datetime.timezone.utc),
        load=(1.5, 2.0, 2.25),
    )
    assert machine["cpu"] == "AMD EPYC 7B13"
    assert machine["memory"] == "15.6 GiB (7.8 GiB available)"
    assert machine["date"] == "2026-11-26 05:00:00 UTC"
    assert machine["load average at start"] == "1.50 2.00 2.25 (1, 5, 15 min)"
    assert machine["stepscope"] == "stepscope 0.1.0 (/repo/build/dev/stepscope)"
    assert machine["stepscope PGO build"] == "/repo/build/pgo/stepscope"
    for key in ("cores", "kernel", "python", "commit"):
        assert machine[key]
    header = bench.format_header(machine)
    assert header[0].startswith("cpu:") and "AMD EPYC 7B13" in header[0]
    assert bench.cpu_model("") and bench.meminfo_kib("", "MemTotal") is None
    assert bench.format_load(None) == "unknown"


def test_shim_is_not_a_binary(bench: ModuleType, tmp_path: Path) -> None:
    shim = tmp_path / "stepscope"
    shim.write_text('#!/usr/bin/env bash\nexec pyenv exec stepscope "$@"\n')
    shim.chmod(0o755)
    assert not bench.is_executable_binary(shim)
    assert bench.is_executable_binary(Path(sys.executable).resolve())


def test_pgo_build_is_found_only_when_it_is_a_binary(bench: ModuleType, tmp_path: Path) -> None:
    shim = tmp_path / "stepscope"
    shim.write_text("#!/bin/sh\n")
    shim.chmod(0o755)
    with pytest.raises(SystemExit, match="not an executable binary"):
        bench.find_pgo_build(str(shim))
    binary = Path(sys.executable).resolve()
    assert bench.find_pgo_build(str(binary)) == binary
    found = bench.find_pgo_build(None)
    assert found is None or bench.is_executable_binary(found)


def test_same_figures_ignores_only_the_timings(bench: ModuleType, tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text('{"ranks": [{"steps": 3}], "timing": {"load_seconds": 1.4}}')
    second.write_text('{"timing": {"load_seconds": 1.3}, "ranks": [{"steps": 3}]}')
    assert bench.same_figures(first, second)
    second.write_text('{"timing": {"load_seconds": 1.4}, "ranks": [{"steps": 4}]}')
    assert not bench.same_figures(first, second)


def test_ci_mode_arguments(bench: ModuleType) -> None:
    args = bench.parse_args(["--ci"])
    assert (args.size_mb, args.repeat, args.hta_large) == (100, 1, False)
    args = bench.parse_args(["--ci", "--size-mb", "50", "--hta-large"])
    assert (args.size_mb, args.hta_large) == (50, False)
    full = bench.parse_args([])
    assert (full.size_mb, full.repeat) == (1024, 3)


def test_memory_bandwidth_row(bench: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numpy")
    measured = iter([10e9, 12e9, 11e9, 13e9, 10e9, 20e9])  # one, two, one, two, one, two
    monkeypatch.setattr(bench, "read_bandwidth", lambda processes: next(measured))
    rows: list[Any] = []
    bench.bench_memory_bandwidth(bench.parse_args(["--repeat", "3"]), rows)
    (row,) = rows
    assert row.unit == "GB/s"
    assert row.baseline_value == pytest.approx(10.0)  # the medians: 10 alone, 13 together
    assert row.value == pytest.approx(13.0)
    assert row.ratio == pytest.approx(1.3)
    assert row.met is None and row.target == ""  # no target


def test_pairs_alternate_and_their_spread_is_noted(bench: ModuleType) -> None:
    order: list[str] = []

    def timed(label: str, seconds: float) -> Any:
        def run() -> Any:
            order.append(label)
            return bench.Run(seconds, 0)

        return run

    ones, twos = bench.run_pairs(timed("one", 2.0), timed("two", 1.0), 3)
    assert order == ["one", "two"] * 3
    ones[1] = bench.Run(3.0, 0)  # the machine slowed down during the second pair
    twos[1] = bench.Run(1.5, 0)
    note = bench.spread_note("1 / 2", ones, twos)
    assert note.startswith("runs 1 / 2: 2.00 2.00 3.00 s against 1.00 1.00 1.50 s;")
    assert "pairwise ratios 2.00x-2.00x, median 2.00x" in note
    assert note.endswith("(the verdict is on the medians' ratio)")
    assert bench.spread_note("1 / 2", ones, twos, judged=False).endswith(
        "(the ratio is the medians')"
    )


def test_write_json_is_atomic(bench: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "sub" / "rows.json"
    bench.write_json(out, {"rows": [1]})
    assert out.read_text() == '{\n  "rows": [\n    1\n  ]\n}\n'
    assert [p.name for p in out.parent.iterdir()] == ["rows.json"]


def test_help() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--ci", "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert "--ci" in done.stdout and "issue 16" in done.stdout


def test_pairwise_median_compares_each_pair(bench: ModuleType) -> None:
    firsts = [bench.Run(2.0, 0), bench.Run(4.0, 0), bench.Run(3.0, 0)]
    seconds = [bench.Run(1.0, 0), bench.Run(4.0, 0), bench.Run(6.0, 0)]
    assert bench.pairwise_median(firsts, seconds) == 1.0
    with pytest.raises(ValueError):
        bench.pairwise_median(firsts, seconds[:2])


def test_one_thread_row_is_judged_in_mb_per_second(bench: ModuleType) -> None:
    fast = bench.one_thread_row("x", 1_000_000_000, bench.Run(1.6, 0), "same figures")
    assert fast.value == pytest.approx(625.0) and fast.met is True
    assert fast.note == "1.60 s for 1,000 MB; same figures"
    slow = bench.one_thread_row("x", 1_000_000_000, bench.Run(2.5, 0))
    assert slow.met is False and slow.note == "2.50 s for 1,000 MB"


def test_distinct_names_trace_differs_only_in_names(bench: ModuleType) -> None:
    many = bench.distinct_names_trace(1200, 400)["traceEvents"]
    few = bench.distinct_names_trace(1200, 50)["traceEvents"]
    ops = [e for e in many if e["cat"] == "cpu_op"]
    assert len(ops) == 1200
    assert len({e["name"] for e in ops}) == 400
    assert len({e["name"] for e in few if e["cat"] == "cpu_op"}) == 50
    steps = [e for e in many if e["name"].startswith("ProfilerStep#")]
    assert len(steps) == 4
    # every op lies inside its step, and both traces share every time
    assert all(
        any(s["ts"] <= o["ts"] and o["ts"] + o["dur"] <= s["ts"] + s["dur"] for s in steps)
        for o in ops
    )
    assert [(e["ts"], e["dur"]) for e in many] == [(e["ts"], e["dur"]) for e in few]


README_TEXT = """# project

Text before.

<!-- benchmark-table:start -->

**Latest full run: an old one**

| figure | stepscope |
|---|---|
| old | 1 s |
<!-- benchmark-table:end -->

Text after, kept as it is.
"""


def test_splice_readme_replaces_only_the_block(bench: ModuleType) -> None:
    spliced = bench.splice_readme(README_TEXT, "**new header**\n\n| figure |\n|---|\n| new |\n")
    before, rest = spliced.split(bench.TABLE_START)
    inside, after = rest.split(bench.TABLE_END)
    assert before == README_TEXT.split(bench.TABLE_START)[0]
    assert after == README_TEXT.split(bench.TABLE_END)[1]
    assert inside == "\n\n**new header**\n\n| figure |\n|---|\n| new |\n"
    assert "old" not in spliced
    # Splicing again with the same block changes nothing: the markers stay, one of each.
    assert bench.splice_readme(spliced, "**new header**\n\n| figure |\n|---|\n| new |") == spliced


@pytest.mark.parametrize(
    "text",
    [
        "# a README without the markers\n",
        "<!-- benchmark-table:start -->\nno end\n",
        "<!-- benchmark-table:end -->\n<!-- benchmark-table:start -->\n",
        README_TEXT + "<!-- benchmark-table:start -->\n",
    ],
    ids=["none", "no end", "out of order", "two starts"],
)
def test_splice_readme_refuses_a_readme_without_one_pair_of_markers(
    bench: ModuleType, text: str
) -> None:
    with pytest.raises(ValueError):
        bench.splice_readme(text, "| table |")


def test_write_readme_writes_through_a_temporary_file(bench: ModuleType, tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(README_TEXT, encoding="utf-8")
    bench.write_readme(readme, "| new |")
    assert "| new |" in readme.read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir()] == ["README.md"]
    plain = tmp_path / "plain.md"
    plain.write_text("no markers\n", encoding="utf-8")
    with pytest.raises(ValueError):
        bench.write_readme(plain, "| new |")
    assert plain.read_text(encoding="utf-8") == "no markers\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "plain.md"]


def test_readme_block_names_the_run_and_the_machine(bench: ModuleType) -> None:
    machine = {
        "cpu": "AMD EPYC",
        "cores": "2 (2 usable by this process)",
        "memory": "23.5 GiB",
        "kernel": "Linux 6.18 x86_64",
        "commit": "5b428d0",
        "date": "2026-11-29 20:08:00 UTC",
        "load average at start": "0.93 0.50 0.40 (1, 5, 15 min)",
        "load average at end": "1.27 0.90 0.60 (1, 5, 15 min)",
        "run": "full: generated trace 1024 MiB",
    }
    row = bench.target_row("x", 2.0, "s", ratio=2.0, op=">=", threshold=1.8)
    command = bench.command_line(["--repeat", "7", "--write-readme", "--hta-large"])
    assert command == "python3 bench/run_benchmarks.py --repeat 7 --hta-large"
    assert bench.command_line(["--write-readme", "R.md", "--ci"]).endswith("py --ci")
    block = bench.readme_block(machine, command, [row])
    header, blank, *table = block.split("\n")
    assert header.startswith("**Latest full run: 2026-11-29 20:08:00 UTC, commit `5b428d0`**")
    assert "AMD EPYC" in header and "0.93" in header and "1.27" in header
    assert "`python3 bench/run_benchmarks.py --repeat 7 --hta-large`" in header
    assert blank == "" and table == bench.format_rows([row])


def test_write_readme_is_a_full_run_option(bench: ModuleType) -> None:
    assert bench.parse_args(["--write-readme"]).write_readme == bench.README
    assert bench.parse_args([]).write_readme is None
    with pytest.raises(SystemExit):
        bench.parse_args(["--ci", "--write-readme"])


def test_the_readme_has_the_markers(bench: ModuleType) -> None:
    text = bench.README.read_text(encoding="utf-8")
    assert bench.splice_readme(text, "| x |").count("| x |") == 1
