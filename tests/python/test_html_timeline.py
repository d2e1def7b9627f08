"""The HTML report's timeline in headless chromium: it draws every event the page embeds, and
those are exactly the trace's host calls and device work in the chosen steps plus the events the
finding names; a finding's card highlights its events; a hostile name stays text; and
`stepscope report --annotate` writes the trace for Perfetto beside the page."""

from __future__ import annotations

import copy
import html
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import kineto_trace, write_trace
from test_html_report import browser, shared_trace_files, stepscope

HOSTILE = "</script><img src=x onerror=alert(1)>"
DRAWN_CATEGORIES = {"user_annotation", "cpu_op", "cuda_runtime", "kernel"}
DATALOADER = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"


def input_bound_trace() -> dict[str, Any]:
    """Six steps, each waiting 3 ms on the DataLoader (an input-bound finding), one op renamed to
    markup."""
    trace = kineto_trace(steps=6)
    events = trace["traceEvents"]
    for event in [e for e in events if str(e.get("name", "")).startswith("ProfilerStep#")]:
        events.append(
            {
                **copy.deepcopy(event),
                "name": DATALOADER,
                "ts": event["ts"] + 5_700,
                "dur": 3_000,
                "args": {"External id": event["args"]["External id"] + 500},
            }
        )
    next(e for e in events if e.get("name") == "aten::linear")["name"] = HOSTILE
    return trace


def embedded_timeline(page: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="timeline-data-0">(.*?)</script>', page)
    assert match, "the page embeds the timeline's data"
    data: dict[str, Any] = json.loads(match.group(1))
    return data


def attribute(dom: str, name: str) -> str:
    match = re.search(r'<div class="timeline"[^>]*\b' + name + r'="([^"]*)"', dom)
    assert match, f"the timeline element has {name}"
    return match.group(1)


def finding_event_names(source: Path) -> list[set[str]]:
    """Per finding of `stepscope analyze --json`, the names of the events its evidence rests on."""
    document = json.loads(
        subprocess.run(
            [stepscope(), "analyze", str(source), "--json", "-", "-q"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    return [
        {refs["name"] for evidence in finding["evidence"] for refs in evidence["events"]}
        for finding in document["ranks"][0]["diagnosis"]["findings"]
    ]


def expected_events(trace: dict[str, Any], steps: list[int], named: set[str]) -> int:
    """Host calls and device work starting inside the chosen steps' host spans, and the events
    the findings name wherever they are."""
    spans = [
        (e["ts"], e["ts"] + e["dur"])
        for e in trace["traceEvents"]
        if e.get("name") in {f"ProfilerStep#{n}" for n in steps}
    ]
    count = 0
    for e in trace["traceEvents"]:
        if e.get("ph") != "X" or e.get("cat") not in DRAWN_CATEGORIES:
            continue
        inside = any(start <= e["ts"] < end for start, end in spans)
        count += inside or e["name"] in named
    return count


@pytest.fixture
def report(tmp_path: Path) -> tuple[dict[str, Any], Path]:
    trace = input_bound_trace()
    source = write_trace(tmp_path / "input_bound.json", trace)
    page = tmp_path / "report.html"
    subprocess.run([stepscope(), "report", str(source), "-o", str(page), "-q"], check=True)
    return trace, page


@pytest.fixture
def named(report: tuple[dict[str, Any], Path]) -> list[set[str]]:
    return finding_event_names(report[1].parent / "input_bound.json")


def no_errors(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, result.stderr[-2000:]
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console  # script errors and CSP violations are console messages
    assert 'data-script-ok="1"' in result.stdout
    assert re.search(r"<body[^>]*data-errors=", result.stdout) is None


def test_timeline_draws_the_chosen_steps_and_the_findings_events(
    report: tuple[dict[str, Any], Path], named: list[set[str]]
) -> None:
    trace, page = report
    data = embedded_timeline(page.read_text())
    steps = [step[0] for step in data["steps"]]
    assert 2 <= len(steps) <= 4
    assert DATALOADER in set().union(*named)
    expected = expected_events(trace, steps, set().union(*named))
    assert expected > 5 * len(steps)  # events the findings name outside the steps are added
    result = browser("--dump-dom", page.as_uri())
    no_errors(result)
    assert attribute(result.stdout, "data-ready") == "1"
    assert int(attribute(result.stdout, "data-drawn-events")) == expected
    assert attribute(result.stdout, "data-highlighted") == "0"
    assert f"({expected} of {expected} events)" in html.unescape(result.stdout)


def test_clicking_a_finding_highlights_its_events(
    report: tuple[dict[str, Any], Path], named: list[set[str]]
) -> None:
    trace, page = report
    finding = embedded_timeline(page.read_text())["findings"][0]
    assert finding["id"] == "input-bound" and named[0] == {DATALOADER}
    waits = sum(e.get("name") == DATALOADER for e in trace["traceEvents"])
    # The page clicks the card a #timeline-finding-RANK-INDEX link names, as a reader would.
    result = browser("--dump-dom", page.as_uri() + "#timeline-finding-0-0")
    no_errors(result)
    assert int(attribute(result.stdout, "data-highlighted")) == waits == 6
    assert attribute(result.stdout, "data-finding") == "input-bound"
    assert re.search(
        r'<div class="finding [a-z]+ linked selected" data-finding="0:0"', result.stdout
    )


def test_the_critical_path_button_highlights_the_path(report: tuple[dict[str, Any], Path]) -> None:
    _, page = report
    data = embedded_timeline(page.read_text())
    on_path = data["critical_path"]
    # The input-bound steps' path runs through the DataLoader's fetches.
    names = {data["strings"][data["events"][k][4]] for k in on_path}
    assert DATALOADER in names
    assert 'class="timeline-path"' in page.read_text()
    result = browser("--dump-dom", page.as_uri() + "#timeline-critical-path-0")
    no_errors(result)
    assert int(attribute(result.stdout, "data-highlighted")) == len(on_path) > 0
    assert attribute(result.stdout, "data-finding") == "critical-path"


def test_hostile_names_stay_text(report: tuple[dict[str, Any], Path]) -> None:
    _, page = report
    text = page.read_text()
    assert "<img" not in text
    assert text.count("</script>") == 3  # the timeline's data and script, and the table sorter
    data = embedded_timeline(text)
    assert HOSTILE in data["strings"]


def test_report_writes_the_annotated_trace_for_perfetto(tmp_path: Path) -> None:
    source = write_trace(tmp_path / "input_bound.json", input_bound_trace())
    page, annotated = tmp_path / "report.html", tmp_path / "annotated.json"
    subprocess.run(
        [stepscope(), "report", str(source), "-o", str(page), "--annotate", str(annotated), "-q"],
        check=True,
    )
    events = json.loads(annotated.read_text())["traceEvents"]
    assert any(e.get("name") == "input-bound" or "input-bound" in json.dumps(e) for e in events)
    assert len(events) > len(input_bound_trace()["traceEvents"])
    assert "ui.perfetto.dev" in page.read_text()


def test_report_never_writes_the_annotated_trace_over_its_input(tmp_path: Path) -> None:
    source = write_trace(tmp_path / "input_bound.json", input_bound_trace())
    before = source.read_bytes()
    result = subprocess.run(
        [
            stepscope(),
            "report",
            str(source),
            "-o",
            str(tmp_path / "r.html"),
            "--annotate",
            str(source),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "--annotate" in result.stderr
    assert source.read_bytes() == before


PAGE_LIMIT_BYTES = 5 * 1024 * 1024  # the bound docs/html-report.md states


def largest_shared_traces(count: int) -> list[Path]:
    return sorted(shared_trace_files(), key=lambda p: p.stat().st_size)[-count:]


@pytest.mark.parametrize("trace", largest_shared_traces(3), ids=lambda p: str(p.name))
def test_large_traces_give_a_bounded_page_that_draws_every_embedded_event(
    trace: Path, tmp_path: Path
) -> None:
    page = tmp_path / "report.html"
    subprocess.run([stepscope(), "report", str(trace), "-o", str(page), "-q"], check=True)
    assert page.stat().st_size < PAGE_LIMIT_BYTES
    result = browser("--dump-dom", page.as_uri())
    no_errors(result)
    embedded = int(attribute(result.stdout, "data-events"))
    assert 0 < embedded <= 20_000
    assert int(attribute(result.stdout, "data-drawn-events")) == embedded


def test_report_refuses_to_annotate_a_folder_before_analysing_it(tmp_path: Path) -> None:
    folder = tmp_path / "ranks"
    folder.mkdir()
    for rank in (0, 1):
        write_trace(folder / f"rank{rank}.json", kineto_trace(rank=rank))
    result = subprocess.run(
        [
            stepscope(),
            "report",
            str(folder),
            "-o",
            str(tmp_path / "r.html"),
            "--annotate",
            str(tmp_path / "a.json"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "not a folder" in result.stderr
    assert not (tmp_path / "a.json").exists() and not (tmp_path / "r.html").exists()


# Plays a reader's gestures on the canvas after the page's own scripts ran, and writes what the
# page showed after each into attributes of <body>. The lane geometry (34 px header, 14 px rows,
# 6 px between lanes, 180 px of labels) is the drawing script's.
GESTURES = """<script>
(function(){
  var root=document.querySelector('div.timeline'),canvas=root.querySelector('canvas');
  var data=JSON.parse(document.getElementById(root.getAttribute('data-source')).textContent);
  var box=canvas.getBoundingClientRect(),body=document.body;
  function view(){return root.getAttribute('data-view').split(',').map(Number);}
  function at(type,x,y,extra){
    var init={clientX:box.left+x,clientY:box.top+y,bubbles:true,cancelable:true};
    for(var k in extra)init[k]=extra[k];
    canvas.dispatchEvent(type==='wheel'?new WheelEvent(type,init):new MouseEvent(type,init));
  }
  body.setAttribute('data-view-0',view().join(','));
  at('wheel',180+(box.width-180)/2,40,{deltaY:-500});
  body.setAttribute('data-view-zoomed',view().join(','));
  body.setAttribute('data-drawn-zoomed',root.getAttribute('data-drawn-events'));
  at('mousedown',400,40);at('mousemove',500,40);at('mouseup',500,40);
  body.setAttribute('data-view-panned',view().join(','));
  root.querySelector('button.timeline-reset').click();
  var gpu=data.lanes.findIndex(function(l){return l[1]===1;}),y=34+7;
  for(var i=0;i<gpu;i++)y+=data.lanes[i][2]*14+6;
  var kernel=data.events.find(function(e){return e[0]===gpu;});
  var x=180+(kernel[2]+kernel[3]/2)/data.span_ns*(box.width-180);
  at('mousemove',x,y);
  body.setAttribute('data-hover',root.querySelector('.timeline-details').textContent);
})();
</script>"""


def test_wheel_zooms_drag_pans_and_hover_describes_a_kernel(
    report: tuple[dict[str, Any], Path], tmp_path: Path
) -> None:
    _, page = report
    driven = tmp_path / "driven.html"
    driven.write_text(page.read_text().replace("</body>", GESTURES + "</body>"))
    result = browser("--dump-dom", driven.as_uri())
    no_errors(result)
    body = re.search(r"<body[^>]*>", result.stdout)
    assert body
    tag = html.unescape(body.group(0))

    def read(name: str) -> str:
        match = re.search(name + r'="([^"]*)"', tag, re.S)
        assert match, name
        return match.group(1)

    def span(name: str) -> tuple[float, float]:
        start, end = (float(v) for v in read(name).split(","))
        return start, end

    start, end = span("data-view-0")
    zoomed = span("data-view-zoomed")
    # deltaY -500 zooms in by e^-1 around the middle of the canvas.
    assert zoomed[1] - zoomed[0] == pytest.approx((end - start) * 0.3679, rel=0.01)
    assert zoomed[0] > start and zoomed[1] < end
    assert 0 < int(read("data-drawn-zoomed")) < int(attribute(result.stdout, "data-events"))
    panned = span("data-view-panned")
    # Dragging 100 px to the right shows earlier times, by 100 px worth of the zoomed span.
    assert panned[1] - panned[0] == pytest.approx(zoomed[1] - zoomed[0], rel=1e-6)
    assert panned[0] < zoomed[0]
    hover = read("data-hover")
    assert hover.startswith("ampere_sgemm_128x64_tn\nkernel · 5.000 ms")
    assert "launched by op: " + HOSTILE in hover  # step 0's op, shown as text
    assert "launch call: cudaLaunchKernel" in hover
    assert "step 0" in hover
