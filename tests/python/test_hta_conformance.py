"""compat-hta against the HTA reference figures of ../shared/docs/conformance.md §5.

The expected values are read from the tables of conformance.md itself (no copy of them lives
here), for every one of the nine reference traces, with the tolerances of its §2. When
../shared is absent the tests say so and are skipped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any

import pytest
from conftest import SHARED_TRACES

# The reference figures live in the shared docs beside the shared traces.
CONFORMANCE = SHARED_TRACES.parent / "docs" / "conformance.md"
FRACTIONAL = {"amd_trace", "nccl_parser_config", "ns_resolution_trace", "sampled_two_ranks"}

pytestmark = pytest.mark.skipif(
    not CONFORMANCE.exists(), reason=f"{CONFORMANCE} is absent: HTA conformance not checked"
)


@dataclass
class Reference:
    name: str
    folder: str
    steps: list[int]
    tables: dict[str, list[list[str]]] = field(default_factory=dict)
    others: list[tuple[int, str, float]] = field(default_factory=list)
    overlap: dict[int, float | None] = field(default_factory=dict)


def number(cell: str) -> float:
    return float(cell.replace(",", "").replace("**", "").strip())


def table_after(lines: list[str], start: int) -> tuple[list[list[str]], int]:
    while not lines[start].startswith("|"):
        start += 1
    rows = []
    while start < len(lines) and lines[start].startswith("|"):
        cells = [c.strip() for c in lines[start].strip().strip("|").split("|")]
        if not set(cells[0]) <= set("-: "):
            rows.append(cells)
        start += 1
    return rows[1:], start  # without the header


def parse_references() -> list[Reference]:
    text = CONFORMANCE.read_text()
    section = text[text.index("## 5. Per-trace HTA figures") : text.index("## 6. Native-mode")]
    references = []
    for block in section.split("\n### `")[1:]:
        lines = block.splitlines()
        name = lines[0].rstrip("`")
        folder = re.search(r"`\.\./shared/traces/(hta/[^`]+)`", block)
        assert folder, name
        steps_line = next(line for line in lines if line.startswith("- HTA profiler steps"))
        steps = [int(s) for s in re.findall(r"\d+", steps_line.split(":", 1)[1])]
        reference = Reference(name, folder.group(1), steps)
        for title, key in [
            ("Temporal breakdown", "temporal"),
            ("Kernel classes", "classes"),
            ("Top 5 kernels", "kernels"),
            ("Idle time per stream", "idle"),
            ("Launch statistics", "launches"),
            ("Queue length", "queue"),
        ]:
            at = next(i for i, line in enumerate(lines) if line.startswith(title))
            reference.tables[key], _ = table_after(lines, at + 1)
        others = re.search(r"HTA's `others` rows: (.*)\.", block)
        if others:
            for rank, kind, value in re.findall(r"rank (\d+) (\w+) ([\d,]+) µs", others.group(1)):
                reference.others.append((int(rank), kind, number(value)))
        overlap_line = next(line for line in lines if "Communication/computation overlap" in line)
        for rank, value in re.findall(r"rank (\d+): (null|[\d.]+)", overlap_line):
            reference.overlap[int(rank)] = None if value == "null" else float(value)
        references.append(reference)
    return references


REFERENCES = parse_references() if CONFORMANCE.exists() else []


def analyze_compat_hta(folder: str) -> dict[str, Any]:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    assert command, "pip install . puts stepscope on PATH"
    output = subprocess.run(
        [
            command,
            "analyze",
            str(SHARED_TRACES / folder),
            "--mode",
            "compat-hta",
            "--json",
            "-",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    hta: dict[str, Any] = json.loads(output)["hta"]
    return hta


def close_us(name: str, got: float, expected: float) -> bool:
    if name in FRACTIONAL:
        return abs(got - expected) <= max(2.0, abs(expected) * 1e-4)
    return got == pytest.approx(expected, abs=1e-6)


def rank_of(hta: dict[str, Any], rank: int) -> dict[str, Any]:
    return next(r for r in hta["ranks"] if r["rank"] == rank)


@pytest.mark.parametrize("reference", REFERENCES, ids=[r.name for r in REFERENCES])
def test_compat_hta_matches_reference(reference: Reference) -> None:
    hta = analyze_compat_hta(reference.folder)
    failures: list[str] = []

    def check(what: str, ok: bool, got: object, expected: object) -> None:
        if not ok:
            failures.append(f"{what}: got {got}, expected {expected}")

    check("steps", hta["profiler_steps"] == reference.steps, hta["profiler_steps"], reference.steps)
    for row in reference.tables["temporal"]:
        temporal = rank_of(hta, int(row[0]))["temporal"]
        for column, key in [
            (1, "kernel_span_us"),
            (2, "idle_us"),
            (3, "compute_us"),
            (4, "non_compute_us"),
        ]:
            check(
                f"rank {row[0]} {key}",
                close_us(reference.name, temporal[key], number(row[column])),
                temporal[key],
                row[column],
            )
        for column, key in [
            (5, "idle_percent"),
            (6, "compute_percent"),
            (7, "non_compute_percent"),
        ]:
            check(
                f"rank {row[0]} {key}",
                abs(temporal[key] - number(row[column])) <= 0.0100001,
                temporal[key],
                row[column],
            )
    classes = {c["label"]: c for c in hta["kernel_classes"]}
    for label, class_total, percent in reference.tables["classes"]:
        if number(class_total) == 0:
            continue  # zero-length artefact rows (conformance.md §4.6)
        got = classes.get(label)
        check(
            f"class {label}",
            got is not None
            and close_us(reference.name, got["sum_us"], number(class_total))
            and abs(got["percent"] - number(percent)) <= 0.1000001,
            got,
            (class_total, percent),
        )
    for row in reference.tables["kernels"]:
        rank, prefix = int(row[0]), row[2].strip("`").rstrip("…")
        kernels = [k for k in rank_of(hta, rank)["kernels"] if k["name"].startswith(prefix)]
        if len(kernels) != 1:
            failures.append(f"rank {rank} kernel {prefix!r}: {len(kernels)} matches")
            continue
        k = kernels[0]
        check(f"{prefix} count", k["count"] == number(row[3]), k["count"], row[3])
        check(
            f"{prefix} sum",
            close_us(reference.name, k["sum_us"], number(row[4])),
            k["sum_us"],
            row[4],
        )
        for column, key in [(6, "min_us"), (7, "max_us")]:
            check(
                f"{prefix} {key}",
                close_us(reference.name, k[key], number(row[column])),
                k[key],
                row[column],
            )
        for column, key in [(5, "mean_us"), (8, "std_us")]:
            check(f"{prefix} {key}", abs(k[key] - number(row[column])) <= 0.01, k[key], row[column])
    for rank, kind, others_total in reference.others:
        others = [o for o in rank_of(hta, rank)["others"] if o["kernel_type"] == kind]
        check(
            f"rank {rank} {kind} others",
            len(others) == 1 and close_us(reference.name, others[0]["sum_us"], others_total),
            others,
            others_total,
        )
    for row in reference.tables["idle"]:
        streams = {s["stream"]: s for s in rank_of(hta, int(row[0]))["idle_time"]}
        got = streams.get(int(row[1]))
        for column, key in [(2, "host_wait_us"), (3, "kernel_wait_us"), (4, "other_us")]:
            check(
                f"rank {row[0]} stream {row[1]} {key}",
                got is not None and close_us(reference.name, got[key], number(row[column])),
                got and got[key],
                row[column],
            )
    for rank, expected in reference.overlap.items():
        got = rank_of(hta, rank)["comm_comp_overlap_percent"]
        ok = (
            got is None
            if expected is None
            else got is not None and abs(got - expected) <= 0.0100001
        )
        check(f"rank {rank} overlap", ok, got, expected)
    for row in reference.tables["launches"]:
        launches = rank_of(hta, int(row[0]))["launch_stats"]
        check(
            f"rank {row[0]} launches",
            launches["launches"] == number(row[1]),
            launches["launches"],
            row[1],
        )
        for column, key in [(2, "cpu_duration_us"), (3, "gpu_duration_us"), (4, "launch_delay_us")]:
            check(
                f"rank {row[0]} {key}",
                close_us(reference.name, launches[key], number(row[column])),
                launches[key],
                row[column],
            )
        for column, key in [(5, "cpu_duration_over_50us"), (6, "launch_delay_over_100us")]:
            check(
                f"rank {row[0]} {key}",
                launches[key] == number(row[column]),
                launches[key],
                row[column],
            )
    for row in reference.tables["queue"]:
        queues = {q["stream"]: q for q in rank_of(hta, int(row[0]))["queue_length"]}
        got = queues.get(int(row[1]))
        check(
            f"rank {row[0]} stream {row[1]} queue",
            got is not None
            and got["samples"] == number(row[2])
            and got["max"] == number(row[4])
            and abs(got["mean"] - number(row[3])) <= 0.02 * max(number(row[3]), 1e-9),
            got,
            row[2:],
        )
    assert not failures, "\n".join(failures)


def test_every_reference_trace_was_parsed() -> None:
    assert len(REFERENCES) == 9
    assert all(r.tables["temporal"] and r.tables["launches"] for r in REFERENCES)


# conformance.md §5 notes: the same rows with `hta_rounding` off (±0.001 µs).
UNROUNDED = {
    "hta/ns_resolution_trace": (384634.463, 6452.701, 374738.006, 3443.756, None),
    "hta/amd_trace": (8911.887, 8762.845, 110.881, 38.161, None),
    "hta/nccl_parser_config": (435587.561, 336419.714, 76935.828, 22232.019, 14.76),
}


@pytest.mark.parametrize("folder", sorted(UNROUNDED))
def test_compat_hta_without_rounding(folder: str) -> None:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    assert command
    output = subprocess.run(
        [
            command,
            "analyze",
            str(SHARED_TRACES / folder),
            "--mode",
            "compat-hta",
            "--no-hta-rounding",
            "--json",
            "-",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    hta = json.loads(output)["hta"]
    temporal = hta["ranks"][0]["temporal"]
    span, idle, compute, non_compute, overlap = UNROUNDED[folder]
    assert not hta["rounding"]
    assert temporal["kernel_span_us"] == pytest.approx(span, abs=0.001)
    assert temporal["idle_us"] == pytest.approx(idle, abs=0.001)
    assert temporal["compute_us"] == pytest.approx(compute, abs=0.001)
    assert temporal["non_compute_us"] == pytest.approx(non_compute, abs=0.001)
    if overlap is not None:
        assert hta["ranks"][0]["comm_comp_overlap_percent"] == pytest.approx(overlap, abs=0.01)
