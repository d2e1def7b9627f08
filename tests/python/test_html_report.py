"""The HTML report in a real browser: Debian's headless chromium loads the report of every
trace in the shared traces folder (conftest.shared_traces_dir) with no console message and no
script error, the charts hold the bars the analysis says they should, and a screenshot shows
them drawn."""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, SHARED_TRACES, require_shared_traces

NOT_TRACES = {"benchmark_simple_add_et.json.gz", "memory_timeline.raw.gz"}


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CI"):
        pytest.fail("CI installs chromium (apt-get install chromium); it is missing")
    pytest.skip("no chromium on this machine: the browser checks did not run")


def stepscope() -> str:
    command = os.environ.get("STEPSCOPE_CLI") or shutil.which("stepscope")
    assert command, "pip install . puts stepscope on PATH"
    return command


def browser(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            chromium(),
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            *arguments,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


# Measures, in the page, each block of the main column against the column: a script added to a
# copy of the page writes what it found into <body data-layout>, which --dump-dom reads back.
LAYOUT_PROBE = """<script>
(function(){
  var main=document.querySelector('main');
  var box=main.getBoundingClientRect(), style=getComputedStyle(main);
  var left=box.left+parseFloat(style.paddingLeft), right=box.right-parseFloat(style.paddingRight);
  var off=[], checked=0;
  function visit(parent){
    Array.prototype.forEach.call(parent.children,function(el){
      if(el.tagName==='SCRIPT'||el.tagName==='STYLE')return;
      var r=el.getBoundingClientRect();
      if(r.width===0&&r.height===0)return;
      checked++;
      if(Math.abs(r.left-left)>1||r.right>right+1){
        off.push(el.tagName+'.'+(el.getAttribute('class')||'')+' '+
                 (el.textContent||'').slice(0,40)+' left '+Math.round(r.left)+
                 ' right '+Math.round(r.right));
      }
      if(el.tagName==='SECTION')visit(el);
    });
  }
  visit(main);
  document.body.setAttribute('data-layout',JSON.stringify({left:left,right:right,
    viewport:document.documentElement.clientWidth,checked:checked,off:off}));
})();
</script>"""


def column_layout(html: Path, tmp_path: Path) -> dict[str, Any]:
    """Where the blocks of the page's main column sit, in a 1400 px wide window."""
    probed = tmp_path / f"probed-{html.name}"
    probed.write_text(html.read_text().replace("</body>", LAYOUT_PROBE + "</body>"))
    result = browser("--window-size=1400,3000", "--dump-dom", probed.as_uri())
    match = re.search(r'<body[^>]*data-layout="([^"]*)"', result.stdout)
    assert match is not None, result.stderr[-2000:]
    layout: dict[str, Any] = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    return layout


def assert_one_centred_column(html: Path, tmp_path: Path) -> None:
    """Every block of the main column (and of its sections) starts at the column's left edge
    and stays inside it, and the column has as much room on its left as on its right."""
    layout = column_layout(html, tmp_path)
    assert layout["checked"] >= 3, layout
    assert layout["off"] == [], layout["off"]
    left = float(layout["left"])
    right_margin = float(layout["viewport"]) - float(layout["right"])
    assert left > 100, f"the column is not centred in a 1400 px window: {layout}"
    assert abs(left - right_margin) <= 2, layout


def write_report(trace: Path, out: Path) -> Path:
    subprocess.run([stepscope(), "report", str(trace), "-o", str(out), "-q"], check=True)
    return out


def kept_steps(trace: Path) -> int:
    output = subprocess.run(
        [stepscope(), "analyze", str(trace), "--json", "-", "-q"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    steps = json.loads(output)["ranks"][0]["steps"]["steps"]
    return sum(step["status"] == "kept" for step in steps)


def shared_trace_files() -> list[Path]:
    if not SHARED_TRACES.is_dir():
        return []
    return sorted(
        p
        for p in SHARED_TRACES.rglob("*")
        if p.is_file()
        and (".json" in p.name or p.name.endswith(".gz"))
        and p.name not in NOT_TRACES
    )


def test_shared_traces_are_present() -> None:
    require_shared_traces()
    assert len(shared_trace_files()) >= 25


@pytest.mark.parametrize("trace", shared_trace_files(), ids=lambda p: str(p.name))
def test_report_loads_in_chromium_without_errors(trace: Path, tmp_path: Path) -> None:
    html = write_report(trace, tmp_path / "report.html")
    result = browser("--dump-dom", html.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console
    dom = result.stdout
    assert 'data-script-ok="1"' in dom, "the report's script did not run to its end"
    assert re.search(r"<body[^>]*data-errors=", dom) is None, "a script error was recorded"
    # The step-time chart has one bar per kept step (or per group of steps, for long runs).
    kept = kept_steps(trace)
    match = re.search(r'<svg class="chart" data-chart="step-time" data-bars="(\d+)"', dom)
    if kept == 0:
        assert match is None
        return
    assert match is not None
    bars = int(match.group(1))
    assert bars == min(kept, bars) and (bars == kept or bars <= 120)
    chart = dom[match.start() : dom.index("</svg>", match.start())]
    assert chart.count('<rect class="bar"') == bars


def test_folder_report_has_the_rank_table(tmp_path: Path) -> None:
    folder = SHARED_TRACES / "hta" / "sampled_two_ranks"
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    html = write_report(folder, tmp_path / "ranks.html")
    result = browser("--dump-dom", html.as_uri())
    assert 'data-script-ok="1"' in result.stdout
    # The job's table of every rank (the folder is analysed one rank at a time).
    table = result.stdout[result.stdout.index('id="job-ranks"') :]
    table = table[: table.index("</table>")]
    assert table.count("<tr>") == 3  # the header and two ranks


def decode_png(data: bytes) -> tuple[int, int, int, bytes]:
    """Width, height, bytes per pixel and the raw pixels of an 8-bit RGB/RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat = 8, b""
    width = height = channels = 0
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6)
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    pixels = bytearray()
    previous = bytearray(stride)
    for row in range(height):
        start = row * (stride + 1)
        filter_type, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            up_left = previous[i - channels] if i >= channels else 0
            if filter_type == 1:
                line[i] = (line[i] + left) & 0xFF
            elif filter_type == 2:
                line[i] = (line[i] + up) & 0xFF
            elif filter_type == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif filter_type == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else up_left
                line[i] = (line[i] + predictor) & 0xFF
        pixels += line
        previous = line
    return width, height, channels, bytes(pixels)


def test_screenshot_shows_the_charts(tmp_path: Path) -> None:
    html = write_report(REPO / "examples" / "example_trace.json.gz", tmp_path / "example.html")
    png = tmp_path / "shot.png"
    result = browser(
        "--hide-scrollbars", "--window-size=1000,3200", f"--screenshot={png}", html.as_uri()
    )
    assert png.exists(), result.stderr[-2000:]
    width, height, channels, pixels = decode_png(png.read_bytes())
    assert (width, height) == (1000, 3200)

    # The bars are drawn in the report's blue (#4c78a8) and the DataLoader's yellow (#eeca3b).
    def near(r: int, g: int, b: int, at: int) -> bool:
        return abs(pixels[at] - r) + abs(pixels[at + 1] - g) + abs(pixels[at + 2] - b) < 30

    step = channels * 7  # sample every 7th pixel: plenty for areas this large
    blue = sum(near(0x4C, 0x78, 0xA8, at) for at in range(0, len(pixels) - 3, step))
    yellow = sum(near(0xEE, 0xCA, 0x3B, at) for at in range(0, len(pixels) - 3, step))
    sampled = len(pixels) // step
    assert blue / sampled > 0.01, f"blue bars cover {blue / sampled:.2%} of the page"
    assert yellow / sampled > 0.005, f"DataLoader bars cover {yellow / sampled:.2%}"


def test_diff_page_loads_in_chromium(tmp_path: Path) -> None:
    pair = SHARED_TRACES / "hta" / "trace_diff"
    if not pair.is_dir():
        pytest.skip(f"{pair} is absent")
    html = tmp_path / "diff.html"
    subprocess.run(
        [stepscope(), "diff", str(pair / "control"), str(pair / "test"), "--html", str(html), "-q"],
        check=True,
    )
    result = browser("--dump-dom", html.as_uri())
    assert [line for line in result.stderr.splitlines() if ":CONSOLE" in line] == []
    assert 'data-script-ok="1"' in result.stdout
    match = re.search(r'data-chart="diff-steps" data-bars="(\d+)"', result.stdout)
    assert match is not None and int(match.group(1)) == 12  # 6 kept steps on each side
    assert ">slower<" in result.stdout


def cpu_trace(path: Path, step_ms: list[float]) -> Path:
    """A CPU-only trace: ProfilerStep# spans, each with one aten::mm taking most of the step."""
    events: list[dict[str, object]] = []
    start = 1_700_000_000_000_000
    for number, ms in enumerate(step_ms):
        dur = int(ms * 1000)
        events.append(
            {
                "ph": "X",
                "cat": "user_annotation",
                "name": f"ProfilerStep#{number}",
                "pid": 1,
                "tid": 1,
                "ts": start,
                "dur": dur,
            }
        )
        events.append(
            {
                "ph": "X",
                "cat": "cpu_op",
                "name": "aten::mm",
                "pid": 1,
                "tid": 1,
                "ts": start + 10,
                "dur": dur - 20,
            }
        )
        start += dur + 5
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    return path


def test_report_blocks_share_one_centred_column(tmp_path: Path) -> None:
    # A single GPU rank (the Diagnosis heading, verdict and cards come first), a folder of two
    # ranks and a CPU-only trace written here.
    require_shared_traces()
    pages = [
        write_report(SHARED_TRACES / "hta" / "trace_diff" / "control", tmp_path / "gpu.html"),
        write_report(SHARED_TRACES / "hta" / "sampled_two_ranks", tmp_path / "ranks.html"),
        write_report(cpu_trace(tmp_path / "cpu.json", [10, 11, 10.5, 12]), tmp_path / "cpu.html"),
    ]
    assert "<h2>Diagnosis</h2>" in pages[0].read_text()
    for page in pages:
        assert_one_centred_column(page, tmp_path)


def test_diff_pages_share_one_centred_column(tmp_path: Path) -> None:
    require_shared_traces()
    pair = SHARED_TRACES / "hta" / "trace_diff"
    gpu = tmp_path / "gpu-diff.html"
    subprocess.run(
        [stepscope(), "diff", str(pair / "control"), str(pair / "test"), "--html", str(gpu), "-q"],
        check=True,
        capture_output=True,
    )
    assert_one_centred_column(gpu, tmp_path)
    before = cpu_trace(tmp_path / "before.json", [10, 11, 10.5, 12, 10])
    after = cpu_trace(tmp_path / "after.json", [8, 8.5, 8.2, 9, 8.1])
    cpu = tmp_path / "cpu-diff.html"
    subprocess.run(
        [stepscope(), "diff", str(before), str(after), "--html", str(cpu), "-q"],
        check=True,
        capture_output=True,
    )
    text = cpu.read_text()
    # A CPU pair: no heading for kernels neither side has, no device columns.
    assert "Kernels and copies" not in text
    assert "self device" not in text
    assert "self CPU before" in text
    assert_one_centred_column(cpu, tmp_path)
