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
