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


class StepOverlap(TypedDict):
    number: int
    communication_us: float
    exposed_communication_us: float
    overlap_share: float | None


class DeviceTemporal(TypedDict):
    device: int
    window_us: float
    busy_us: float
    idle_us: float
    compute_us: float
    non_compute_us: float
    communication_us: float
    communication_only_us: float
    memory_us: float
    memory_only_us: float
    idle_share: float
    compute_share: float
    non_compute_share: float
    comp_comm_overlap_us: float
    comp_comm_overlap_share: float | None
    timeline_span_us: float
    timeline_idle_us: float
    activities: int
    outside_window_activities: int
    outside_window_us: float
    steps: list[StepOverlap]


class GpuTemporal(TypedDict):
    applicable: bool
    not_applicable_reason: NotRequired[str]
    devices: list[DeviceTemporal]
    steps: list[StepOverlap]


class IdleCause(TypedDict):
    idle_us: float
    gaps: int
    share: float


class StreamIdle(TypedDict):
    device: int
    stream: int
    activities: int
    idle_between_activities_us: float
    host_wait: IdleCause
    kernel_wait: IdleCause
    other: IdleCause
    unlinked: IdleCause
    leading_idle_us: float
    trailing_idle_us: float


class IdleTime(TypedDict):
    applicable: bool
    not_applicable_reason: NotRequired[str]
    kernel_wait_threshold_us: float
    streams: list[StreamIdle]


class BandwidthTotals(TypedDict):
    calls: int
    bytes: int
    time_us: float
    algbw_gb_per_s: float
    busbw_gb_per_s: float


class FastestCall(TypedDict):
    bytes: int
    time_us: float
    algbw_gb_per_s: float
    busbw_gb_per_s: float


class SizeBucket(TypedDict):
    min_bytes: int
    max_bytes: int
    calls: int
    bytes: int
    time_us: float
    algbw_gb_per_s: float
    busbw_gb_per_s: float


class CollectiveBandwidth(TypedDict):
    device: int
    collective: str
    group_size: int | None
    calls: int
    bytes: int
    time_us: float
    algbw_gb_per_s: float
    busbw_gb_per_s: float
    fastest_call: FastestCall
    size_buckets: list[SizeBucket]


class SkippedCollectives(TypedDict):
    without_args: int
    unknown_dtype: int
    other_collective: int
    zero_duration: int
    outside_window: int


class CollectiveBandwidthFigures(TypedDict):
    applicable: bool
    not_applicable_reason: NotRequired[str]
    scope: str
    communication_kernels: int
    args_from_launching_op: int
    collectives: list[CollectiveBandwidth]
    skipped: SkippedCollectives


class StreamQueueLength(TypedDict):
    device: int
    stream: int
    launches: int
    samples: int
    depth_at_window_start: int
    max_depth: int
    min_depth: int
    time_weighted_mean_depth: float
    time_at_limit_us: float
    time_at_limit_share: float


class QueueLength(TypedDict):
    applicable: bool
    not_applicable_reason: NotRequired[str]
    queue_limit: int
    window_start_us: NotRequired[float]
    window_end_us: NotRequired[float]
    streams: list[StreamQueueLength]


class RankFigures(TypedDict):
    steps: Steps
    step_time: StepTime
    gpu_temporal: GpuTemporal
    idle_time: IdleTime
    collective_bandwidth: CollectiveBandwidthFigures
    queue_length: QueueLength
