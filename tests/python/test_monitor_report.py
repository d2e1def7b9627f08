"""`stepscope report` on a monitor timeline: a real `stepscope monitor -o t.json` of a busy
Python child, drawn as HTML and loaded in headless chromium with no console message and no
script error."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from test_html_report import assert_one_centred_column, browser, stepscope

BUSY_LOOP = "import time\nend = time.time() + 1.0\nwhile time.time() < end: pass\n"
MONITOR = ["monitor", "--interval", "50ms"]


def monitor_timeline(out: Path) -> Path:
    subprocess.run(
        [stepscope(), *MONITOR, "-o", str(out), "--", sys.executable, "-c", BUSY_LOOP],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return out


def test_monitor_timeline_report_loads_in_chromium(tmp_path: Path) -> None:
    timeline = monitor_timeline(tmp_path / "t.json")
    assert json.loads(timeline.read_text())["schema"] == "stepscope.monitor"
    html = tmp_path / "r.html"
    subprocess.run([stepscope(), "report", str(timeline), "-o", str(html)], check=True)
    text = html.read_text()
    assert 'id="verdict"' in text and 'id="distributions"' in text
    result = browser("--dump-dom", html.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console
    dom = result.stdout
    assert 'data-script-ok="1"' in dom, "the report's script did not run to its end"
    assert re.search(r"<body[^>]*data-errors=", dom) is None, "a script error was recorded"
    match = re.search(r'<svg class="chart" data-chart="monitor-cpu"', dom)
    assert match is not None, "the CPU chart is missing"
    chart = dom[match.start() : dom.index("</svg>", match.start())]
    assert 'data-series="main process"' in chart
    assert_one_centred_column(html, tmp_path)


def test_bad_timeline_is_exit_status_2_and_writes_nothing(tmp_path: Path) -> None:
    timeline = tmp_path / "t.json"
    timeline.write_text('{"schema":"stepscope.monitor","schema_version":1,"samples":[{"time_us":')
    html = tmp_path / "r.html"
    result = subprocess.run(
        [stepscope(), "report", str(timeline), "-o", str(html)], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert str(timeline) in result.stderr
    assert not html.exists()
