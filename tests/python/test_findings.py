"""Report.findings: the diagnosis as typed objects (no PyTorch needed)."""

from __future__ import annotations

import copy
from pathlib import Path

from conftest import kineto_trace, write_trace

import stepscope


def test_findings_are_typed_and_follow_the_json(tmp_path: Path) -> None:
    trace = kineto_trace(steps=4)
    # A DataLoader wait before each step's op makes the trace input-bound.
    events = trace["traceEvents"]
    for event in [e for e in events if str(e.get("name", "")).startswith("ProfilerStep#")]:
        events.append(
            {
                **copy.deepcopy(event),
                "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                "ts": event["ts"] + 5_700,
                "dur": 3_000,
                "args": {"External id": event["args"]["External id"] + 500},
            }
        )
    report = stepscope.analyze(write_trace(tmp_path / "input_trace.json", trace))
    findings = report.findings
    raw = report.ranks[0]["diagnosis"]["findings"]
    assert [f.id for f in findings] == [f["id"] for f in raw]
    assert findings, str(report)
    top = findings[0]
    assert isinstance(top, stepscope.Finding)
    assert top.id == "input-bound" and report.bottleneck == "input_pipeline"
    assert top.to_dict() == raw[0]
    assert isinstance(top.expected_gain, stepscope.ExpectedGain)
    assert top.expected_gain.likely_us_per_step > 0
    assert isinstance(top.evidence[0], stepscope.Evidence)
    assert top.evidence[0].events[0].count == 4
    assert top.severity in str(top)


def test_findings_of_several_ranks_are_merged_by_likely_saving(trace_folder: Path) -> None:
    report = stepscope.analyze(trace_folder)
    findings = report.findings
    per_rank = [len(rank["diagnosis"]["findings"]) for rank in report.ranks]
    assert len(findings) == sum(per_rank)
    gains = [f.expected_gain.likely_us_per_step for f in findings]
    assert gains == sorted(gains, reverse=True)
    empty = stepscope.Report({"ranks": []})
    assert empty.findings == [] and empty.bottleneck == "undetermined"
