"""Type stubs for the compiled core, stepscope._core."""

class TraceError(ValueError): ...

def version() -> str: ...
def json_schema_version() -> int: ...
def analyze_json(
    path: str,
    mode: str = "native",
    rank: int | None = None,
    steps: tuple[int, int] | None = None,
    top: int = 10,
    skip_bad: bool = False,
    threads: int = 2,
) -> str: ...
def analyze_text(
    path: str,
    mode: str = "native",
    rank: int | None = None,
    steps: tuple[int, int] | None = None,
    top: int = 10,
    skip_bad: bool = False,
    threads: int = 2,
) -> str: ...
def analyze_both(
    path: str,
    mode: str = "native",
    rank: int | None = None,
    steps: tuple[int, int] | None = None,
    top: int = 10,
    skip_bad: bool = False,
    threads: int = 2,
) -> tuple[str, str]: ...
def analyze_html(
    path: str,
    mode: str = "native",
    rank: int | None = None,
    steps: tuple[int, int] | None = None,
    top: int = 10,
    skip_bad: bool = False,
    threads: int = 2,
) -> str: ...
def memory_snapshot(path: str, top: int = 10) -> tuple[str, str]: ...

class LiveMonitor:
    def __init__(self, interval: float = 0.1, gpus: bool = True) -> None: ...
    def start(self) -> None: ...
    def stop(self) -> None: ...
    def timeline_json(self) -> str: ...
    def timeline_csv(self) -> str: ...
    def summary_text(self) -> str: ...
    def status_line(self) -> str: ...
    def gpu_status(self) -> str: ...

def summarize_json(path: str, mode: str = "native") -> tuple[bool, str]: ...
def merge_json(
    texts: list[str], names: list[str], run: int | None = None
) -> tuple[bool, str, str]: ...
def plan_measurement_document(
    parameter_count: int,
    parameter_bytes: int,
    gradient_bytes: int,
    optimizer_state_bytes: int,
    optimizer: str,
    device: str,
    batch_a: int,
    peak_a: int,
    batch_b: int,
    peak_b: int,
    optimizer_peak: int,
    capacity_bytes: int,
    repeated_blocks: int,
    timing_a: tuple[float, float, float, float],
    timing_b: tuple[float, float, float, float],
    notes: list[str],
) -> str: ...
def memory_plan_document(
    document: str,
    file: str,
    shards: int,
    safety_margin: float,
    effective_batch: int,
    link_gbps: float,
) -> tuple[bool, str, str, str]: ...

default_link_gbps: float
