"""Types of the figures in `stepscope analyze --json`, one TypedDict per object.

Generated from include/stepscope/figures/ by `stepscope_figures_gen --write .`;
do not edit.
"""

from typing import NotRequired, TypedDict


class Window(TypedDict):
    start_us: float
    end_us: float
    duration_us: float


class StepsWindow(TypedDict):
    start_us: float
    end_us: float
    duration_us: float
    source: str


class Step(TypedDict):
    number: int
    status: str
    host_start_us: float
    host_end_us: float
    start_us: float
    end_us: float
    duration_us: float
    host_duration_us: float
    device_activities: int
    outlier: bool


class Steps(TypedDict):
    rebased_on_device: bool
    count: int
    kept: int
    window: StepsWindow | None
    steps: list[Step]
    notes: list[str]


class DurationStatistics(TypedDict):
    count: int
    mean_us: NotRequired[float]
    std_us: NotRequired[float]
    min_us: NotRequired[float]
    p50_us: NotRequired[float]
    p95_us: NotRequired[float]
    p99_us: NotRequired[float]
    max_us: NotRequired[float]
    cv: NotRequired[float]
    few_samples: bool


class StepTime(TypedDict):
    duration: DurationStatistics
    host_duration: DurationStatistics


class RankFigures(TypedDict):
    steps: Steps
    step_time: StepTime
