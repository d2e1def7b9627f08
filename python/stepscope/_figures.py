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
    region: NotRequired[str]


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


class RoleShares(TypedDict):
    kernel: float
    memcpy: float
    memset: float
    communication: float
    runtime: float
    data_loader: float
    cpu_exec: float
    other: float


class RoleTimes(TypedDict):
    kernel_us: float
    memcpy_us: float
    memset_us: float
    communication_us: float
    runtime_us: float
    data_loader_us: float
    cpu_exec_us: float
    other_us: float
    runtime_sync_us: NotRequired[float]
    runtime_launch_us: NotRequired[float]
    step_us: float
    shares: RoleShares


class StepBreakdownRow(TypedDict):
    number: int
    start_us: float
    end_us: float
    roles: RoleTimes


class StepBreakdown(TypedDict):
    mode: str
    applicable: bool
    reason: NotRequired[str]
    kept_steps: int
    mean_per_step: RoleTimes | None
    steps: list[StepBreakdownRow]
    quirks: list[str]


class PhaseMarkers(TypedDict):
    forward: int
    backward: int
    optimizer: int
    data_loading: int


class PhaseFigures(TypedDict):
    host_us: float
    host_share: float
    device_us: float


class PhaseTimes(TypedDict):
    step_us: float
    forward: PhaseFigures
    backward: PhaseFigures
    optimizer: PhaseFigures
    data_loading: PhaseFigures
    other: PhaseFigures


class StepPhases(TypedDict):
    number: int
    forward_inferred: bool
    phases: PhaseTimes


class LabelledTime(TypedDict):
    name: str
    markers: int
    mean_host_us_per_step: float


class Phases(TypedDict):
    mode: str
    applicable: bool
    reason: NotRequired[str]
    kept_steps: int
    markers: PhaseMarkers
    mean_per_step: PhaseTimes | None
    steps: list[StepPhases]
    labels: list[LabelledTime]
    notes: list[str]
    quirks: list[str]


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


class ClassOverlap(TypedDict):
    classes: str
    time_us: float
    share: float


KernelRow = TypedDict(
    "KernelRow",
    {
        "name": str,
        "class": str,
        "count": int,
        "total_us": float,
        "mean_us": float,
        "min_us": float,
        "max_us": float,
        "std_us": float,
        "share": float,
    },
)


class KernelOthers(TypedDict):
    count: int
    total_us: float


class KernelOthersByClass(TypedDict):
    computation: KernelOthers
    communication: KernelOthers
    memory: KernelOthers


class DeviceKernels(TypedDict):
    device: int
    class_overlap: list[ClassOverlap]
    activity_time_us: float
    distinct_names: int
    top: list[KernelRow]
    top_computation: list[KernelRow]
    top_communication: list[KernelRow]
    top_memory: list[KernelRow]
    others: KernelOthers
    others_by_class: KernelOthersByClass


class Kernels(TypedDict):
    applicable: bool
    not_applicable_reason: NotRequired[str]
    devices: list[DeviceKernels]


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


class IdleOwner(TypedDict):
    cause: str
    us_per_step: float
    share_of_step: float


class IdleAttribution(TypedDict):
    applicable: bool
    not_applicable_reason: NotRequired[str]
    steps: NotRequired[int]
    idle_us_per_step: NotRequired[float]
    causes: NotRequired[list[IdleOwner]]


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


OperatorRow = TypedDict(
    "OperatorRow",
    {
        "name": str,
        "input_dims": NotRequired[str],
        "input_types": NotRequired[str],
        "class": str,
        "calls": int,
        "self_cpu_us": float,
        "total_cpu_us": float,
        "self_device_us": float,
        "total_device_us": float,
        "avg_self_cpu_us": float,
        "avg_total_cpu_us": float,
        "avg_self_device_us": float,
        "avg_total_device_us": float,
        "device_activities": int,
        "self_cpu_share": float,
        "self_device_share": float,
    },
)


DeviceActivityRow = TypedDict(
    "DeviceActivityRow",
    {
        "name": str,
        "class": str,
        "count": int,
        "device_us": float,
        "avg_device_us": float,
        "min_device_us": float,
        "max_device_us": float,
        "unattributed_count": int,
        "device_share": float,
    },
)


class Operators(TypedDict):
    applicable: bool
    not_applicable_reason: NotRequired[str]
    grouped_by_input_shape: bool
    scope: str
    scope_start_us: NotRequired[float]
    scope_end_us: NotRequired[float]
    ops_outside_scope: int
    self_cpu_total_us: float
    device_total_us: float
    attributed_device_us: float
    unattributed_device_us: float
    unattributed_activities: int
    attributed_device_share: float
    attributed_by_external_id: int
    attributed_through_launch_call: int
    merged_single_children: int
    rows: list[OperatorRow]
    device_rows: list[DeviceActivityRow]


class ModuleScope(TypedDict):
    start_us: float
    end_us: float


class ModuleRow(TypedDict):
    path: str
    name: str
    depth: int
    parent: int
    calls: int
    host_total_us: float
    host_self_us: float
    device_total_us: float
    device_self_us: float


class Modules(TypedDict):
    applicable: bool
    not_applicable_reason: NotRequired[str]
    source: str
    scope: ModuleScope | None
    kept_steps: int
    calls_outside_scope: int
    rows: list[ModuleRow]


class LaunchClassStats(TypedDict):
    count: int
    cpu_duration_p50_us: NotRequired[float]
    cpu_duration_p95_us: NotRequired[float]
    cpu_duration_max_us: NotRequired[float]
    gpu_duration_p50_us: NotRequired[float]
    gpu_duration_p95_us: NotRequired[float]
    gpu_duration_max_us: NotRequired[float]
    launch_delay_p50_us: NotRequired[float]
    launch_delay_p95_us: NotRequired[float]
    launch_delay_max_us: NotRequired[float]
    signed_delay_negative_count: int
    cpu_duration_over_50us_count: int
    launch_delay_over_100us_count: int
    short_kernel_count: int
    few_samples: NotRequired[bool]


class LaunchClasses(TypedDict):
    kernel_launch: LaunchClassStats
    graph_launch: LaunchClassStats
    async_memory: LaunchClassStats
    sync_memory: LaunchClassStats


class Launches(TypedDict):
    applicable: bool
    not_applicable_reason: NotRequired[str]
    scope: str
    outside_window_pairs: int
    cpu_duration_cutoff_us: float
    launch_delay_cutoff_us: float
    classes: LaunchClasses


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


class TensorCoreRule(TypedDict):
    pattern: str
    list: str
    kernels: int
    kernel_us: float


class GpuDeviceMetrics(TypedDict):
    device: int
    window_us: float
    kernels: int
    kernel_busy_us: float
    utilization: float
    busy_with_memory_us: NotRequired[float]
    utilization_with_memory: NotRequired[float | None]
    est_sm_efficiency: float | None
    kernels_with_blocks_per_sm: int
    est_achieved_occupancy: float | None
    kernels_with_occupancy: int
    tensor_core_kernel_us: float
    tensor_core_base_kernel_us: float
    tensor_core_share: float | None
    tensor_core_rules: list[TensorCoreRule]


class GpuMetrics(TypedDict):
    mode: str
    applicable: bool
    reason: NotRequired[str]
    window: Window | None
    tensor_core_heuristic: bool
    tensor_core_share_all_kernels: NotRequired[float | None]
    devices: list[GpuDeviceMetrics]
    quirks: list[str]


class LiveAllocations(TypedDict):
    op: str
    bytes: int
    allocations: int
    first_allocation_us: float


class MemoryPeak(TypedDict):
    allocated_bytes: int | None
    time_us: float
    reserved_bytes: int | None
    step: int | None
    op: str | None
    phase: str | None
    live_by_op: list[LiveAllocations]


class StepMemory(TypedDict):
    step: int
    kept: bool
    allocated_at_start_bytes: int | None
    allocated_at_end_bytes: int | None
    peak_allocated_bytes: int | None


MemoryCurvePoint = tuple[float, int, int | None]


class MemoryCurve(TypedDict):
    points_total: int
    downsampled: str
    columns: list[str]
    points: list[MemoryCurvePoint]


class DeviceMemory(TypedDict):
    device: str
    device_type: int
    device_id: int
    records: int
    allocations: int
    frees: int
    never_freed: int
    never_freed_bytes: int
    never_freed_by_op: list[LiveAllocations]
    peak_allocated_bytes: int | None
    peak_reserved_bytes: int | None
    peak_reserved_time_us: float
    first_allocated_bytes: int | None
    last_allocated_bytes: int | None
    allocated_before_first_record_bytes: int | None
    fragmentation_at_peak: float | None
    reserved_increases: int
    reserved_decreases: int
    peak: MemoryPeak
    steps: list[StepMemory]
    curve: MemoryCurve


class Memory(TypedDict):
    applicable: bool
    not_applicable_reason: NotRequired[str]
    origin_us: NotRequired[float]
    devices: list[DeviceMemory]


class OpFlops(TypedDict):
    name: str
    dtype: str
    calls: int
    flops: float
    time_us: float
    achieved_tflops: float
    source: str
    bytes: float
    intensity: float | None
    bound: str
    attainable_tflops: float | None
    attainable_share: float | None


class ComputeEfficiency(TypedDict):
    applicable: bool
    not_applicable_reason: NotRequired[str]
    flops_per_step: float
    achieved_tflops: float
    device_name: str
    dtype: str
    peak_tflops: float
    mfu: float | None
    peak_source: str
    peak_bandwidth_gbps: float
    ridge_point: float | None
    ops: list[OpFlops]


PathClassTime = TypedDict(
    "PathClassTime",
    {
        "class": str,
        "us_per_step": float,
        "share": float,
    },
)


PathEvent = TypedDict(
    "PathEvent",
    {
        "name": str,
        "class": str,
        "us_per_step": float,
        "count": int,
    },
)


class CriticalPath(TypedDict):
    applicable: bool
    not_applicable_reason: NotRequired[str]
    steps: int
    measured_step_us: NotRequired[float]
    modelled_step_us: NotRequired[float]
    classes: list[PathClassTime]
    events: list[PathEvent]
    unlinked_activities: int
    cross_stream_waits: int
    bounds: list[str]


class RankFigures(TypedDict):
    steps: Steps
    step_time: StepTime
    step_breakdown: StepBreakdown
    phases: Phases
    gpu_temporal: GpuTemporal
    kernels: Kernels
    idle_time: IdleTime
    idle_attribution: IdleAttribution
    collective_bandwidth: CollectiveBandwidthFigures
    operators: Operators
    modules: Modules
    launches: Launches
    queue_length: QueueLength
    gpu_metrics: GpuMetrics
    memory: Memory
    compute_efficiency: ComputeEfficiency
    critical_path: CriticalPath


class SkippedFile(TypedDict):
    file: str
    reason: str


class Input(TypedDict):
    path: str
    files: list[str]
    skipped: list[SkippedFile]
    notes: list[str]


class Timing(TypedDict):
    load_seconds: float
    analysis_seconds: float


class Device(TypedDict):
    id: int
    name: str
    total_memory_bytes: int
    compute_capability: str
    sm_count: int


class EventRefs(TypedDict):
    name: str
    count: int
    first_start_us: float
    last_end_us: float
    steps: list[int]


class Evidence(TypedDict):
    label: str
    value: float
    unit: str
    events: list[EventRefs]


class ExpectedGain(TypedDict):
    bound_us_per_step: float
    likely_us_per_step: float
    bound_share_of_step: float
    likely_share_of_step: float
    method: str


class CodeLocation(TypedDict):
    file: str | None
    line: int | None
    function: str | None
    module_path: str | None


class Finding(TypedDict):
    id: str
    title: str
    severity: str
    bottleneck: str
    phase: str
    rank: int
    evidence: list[Evidence]
    fix: str
    expected_gain: ExpectedGain
    code: CodeLocation | None


class Diagnosis(TypedDict):
    bottleneck: str
    phase: str
    summary: str
    window: NotRequired[str]
    limited_by: NotRequired[str]
    dominant_operations: list[str]
    findings: list[Finding]


class Import(TypedDict):
    input_bytes: int
    events: int
    complete_events: int
    instant_events: int
    memory_events: int
    flow_events: int
    counter_events: int
    metadata_events: int
    async_events_not_analysed: int
    other_phase_events_not_analysed: int
    invalid_complete_events_skipped: int
    unmatched_begin_end_skipped: int
    unknown_category_events: int
    external_id_is_correlation: bool
    threads: int
    bytes_in_memory: int
    bytes_in_memory_per_event: float


RankHeader = TypedDict(
    "RankHeader",
    {
        "rank": int,
        "rank_source": str,
        "file": str,
        "format": NotRequired[str],
        "producer": NotRequired[str],
        "world_size": NotRequired[int],
        "devices": list[Device],
        "diagnosis": Diagnosis,
        "import": Import,
    },
)


class JobFinding(TypedDict):
    id: str
    title: str
    severity: str
    bottleneck: str
    phase: str
    rank: int
    ranks: list[int]
    evidence: list[Evidence]
    fix: str
    expected_gain: ExpectedGain


class JobRank(TypedDict):
    rank: int
    steps: int
    step_time_p50_ms: float
    step_time_max_ms: float
    compute_ms: float
    exposed_comm_ms: float
    wait_ms: float
    idle_ms: float
    top_finding: str
    top_finding_title: str


class Straggler(TypedDict):
    rank: int
    late_ms_per_step: float
    share_of_collectives_last: float
    share_of_collectives_late: float
    phase: str
    phase_excess_ms_per_step: float
    evidence: list[str]
    waiting_ranks: list[int]


class JobCollective(TypedDict):
    kind: str
    min_bytes: int
    max_bytes: int
    count: int
    total_ms: float
    transfer_ms: float
    wait_ms: float
    bytes: int
    algbw_gb_per_s: float
    busbw_gb_per_s: float
    latency_bound: bool
    link_peak_gb_per_s: float | None
    busbw_share_of_link_peak: float | None


class ClockOffset(TypedDict):
    rank: int
    offset_us: float
    collectives: int
    spread_us: float


class Scaling(TypedDict):
    applicable: bool
    efficiency: float
    ideal_step_ms: float
    actual_step_ms: float


class JobRun(TypedDict):
    index: int
    world_size: int
    analysed: bool
    ranks: list[int]
    files: list[str]


class Job(TypedDict):
    verdict: str
    world_size: int
    ranks_analysed: int
    matched_collectives: int
    findings: list[JobFinding]
    ranks: list[JobRank]
    stragglers: list[Straggler]
    collectives: list[JobCollective]
    clock_offsets: list[ClockOffset]
    scaling: Scaling
    runs: list[JobRun]
    notes: list[str]


class RunSide(TypedDict):
    path: str
    ranks: list[int]
    bottlenecks: list[str]
    kept_steps: int


class ConditionChange(TypedDict):
    condition: str
    before: str
    after: str
    source: str


class StepSample(TypedDict):
    steps: int
    ranks: int
    sample: str
    mean_ms: float
    median_ms: float
    step_ms: list[float]


class StepComparison(TypedDict):
    verdict: str
    reason: NotRequired[str]
    statistic: str
    confidence: float
    resamples: int
    seed: int
    before: StepSample
    after: StepSample
    change_ms: float
    change_percent: float
    ratio: float | None
    ratio_ci: list[float] | None
    change_percent_ci: NotRequired[list[float]]


class PhaseChange(TypedDict):
    phase: str
    before_ms_per_step: float
    after_ms_per_step: float
    change_ms_per_step: float


class DiffPhases(TypedDict):
    applicable: bool
    rows: list[PhaseChange]


class OpChange(TypedDict):
    name: str
    before_self_cpu_ms_per_step: float
    after_self_cpu_ms_per_step: float
    before_self_device_ms_per_step: float
    after_self_device_ms_per_step: float
    before_calls_per_step: float
    after_calls_per_step: float


class OpChanges(TypedDict):
    total: int
    rows: list[OpChange]


class DiffOps(TypedDict):
    total: int
    rows: list[OpChange]
    appeared: OpChanges
    vanished: OpChanges


class KernelChange(TypedDict):
    name: str
    kind: str
    before_ms_per_step: float
    after_ms_per_step: float
    change_ms_per_step: float
    before_count_per_step: float
    after_count_per_step: float


class KernelChanges(TypedDict):
    total: int
    rows: list[KernelChange]


class DiffKernels(TypedDict):
    changed: KernelChanges
    appeared: KernelChanges
    vanished: KernelChanges


class FindingFigure(TypedDict):
    label: str
    unit: str
    before: NotRequired[float | None]
    after: NotRequired[float | None]


class FindingChange(TypedDict):
    id: str
    title: str
    rank: int
    severity_before: NotRequired[str]
    likely_gain_before_us_per_step: NotRequired[float]
    owned_before_ms_per_step: NotRequired[float]
    severity_after: NotRequired[str]
    likely_gain_after_us_per_step: NotRequired[float]
    owned_after_ms_per_step: NotRequired[float]
    figure: NotRequired[FindingFigure]


class DiffFindings(TypedDict):
    resolved: list[FindingChange]
    improved: list[FindingChange]
    introduced: list[FindingChange]
    persisting: list[FindingChange]


class Calibration(TypedDict):
    id: str
    rank: int
    predicted_likely_ms_per_step: float
    predicted_bound_ms_per_step: float
    measured_ms_per_step: float
    measured_ms_per_step_ci: list[float]
    measured_over_predicted: NotRequired[float | None]
    resolved_together: int


class Diff(TypedDict):
    before: RunSide
    after: RunSide
    not_like_for_like: list[ConditionChange]
    step_time: StepComparison
    phases: DiffPhases
    ops: DiffOps
    kernels: DiffKernels
    findings: DiffFindings
    calibration: list[Calibration]
    notes: list[str]


class MonitorGpu(TypedDict):
    index: int
    name: str
    uuid: str


class MonitorDistribution(TypedDict):
    count: int
    p5: float
    p50: float
    p95: float
    mean: float
    max: float


class MonitorDistributions(TypedDict):
    main_cpu_cores: MonitorDistribution
    workers_cpu_cores: MonitorDistribution
    worker_mean_cpu_cores: MonitorDistribution
    machine_cpu_share: MonitorDistribution
    tree_rss_bytes: MonitorDistribution
    machine_memory_used_bytes: MonitorDistribution
    gpu_utilization_share: MonitorDistribution
    gpu_memory_utilization_share: MonitorDistribution
    gpu_memory_used_share: MonitorDistribution
    gpu_power_w: MonitorDistribution
    gpu_sm_clock_mhz: MonitorDistribution
    gpu_temperature_c: MonitorDistribution


class MonitorVerdict(TypedDict):
    bottleneck: str
    id: str
    headline: str
    reasons: list[str]
    next_step: str


class MonitorSummary(TypedDict):
    startup_us: float
    samples: int
    duration_us: float
    mean_interval_us: float
    max_workers: int
    gpu_available: bool
    gpus_used: list[int]
    gpus_used_seen: bool
    monitor_cpu_share_of_core: float
    distributions: MonitorDistributions
    verdict: MonitorVerdict


class MonitorProcess(TypedDict):
    pid: int
    ppid: int
    name: str
    root: bool
    cpu_cores: float
    rss_bytes: int
    threads: int
    read_bytes_per_s: float | None
    write_bytes_per_s: float | None
    voluntary_switches_per_s: float
    involuntary_switches_per_s: float


class MonitorGpuProcess(TypedDict):
    pid: int
    used_memory_bytes: int | None
    in_tree: bool


class MonitorGpuSample(TypedDict):
    index: int
    utilization_share: float | None
    memory_utilization_share: float | None
    memory_used_bytes: int | None
    memory_total_bytes: int | None
    power_w: float | None
    power_limit_w: float | None
    sm_clock_mhz: int | None
    memory_clock_mhz: int | None
    temperature_c: int | None
    pcie_tx_bytes_per_s: float | None
    pcie_rx_bytes_per_s: float | None
    processes: list[MonitorGpuProcess]


class MonitorSample(TypedDict):
    time_us: float
    interval_us: float
    machine_cpu_share: float
    machine_memory_used_bytes: int
    monitor_cpu_cores: float
    processes: list[MonitorProcess]
    gpus: list[MonitorGpuSample]


class MonitorTimeline(TypedDict):
    command: list[str]
    root_pid: int
    exit_status: int | None
    start_unix_us: float
    requested_interval_us: float
    duration_us: float
    cpu_count: int
    machine_memory_total_bytes: int
    gpu_status: str | None
    gpus: list[MonitorGpu]
    samples_taken: int
    sample_stride: int
    monitor_cpu_us: float
    summary: MonitorSummary
    samples: list[MonitorSample]


class SnapshotTiming(TypedDict):
    load_seconds: float
    analysis_seconds: float


class BlocksByState(TypedDict):
    active_allocated: int
    active_pending_free: int
    inactive: int
    other: int


class StackFrame(TypedDict):
    name: str
    filename: str
    line: int


class SnapshotBlock(TypedDict):
    address: int
    bytes: int
    requested_bytes: int | None
    site: str
    stack: list[StackFrame]


class SnapshotSite(TypedDict):
    site: str
    bytes: int
    allocations: int
    example_stack: list[StackFrame]


class FragmentationCost(TypedDict):
    unused_bytes: int
    segments_with_unused: int
    largest_free_block_bytes: int
    returnable_bytes: int
    returnable_share: float
    fix: str


class SnapshotState(TypedDict):
    segments: int
    large_segments: int
    expandable_segments: int
    reserved_bytes: int
    allocated_bytes: int
    active_bytes: int
    requested_bytes: int | None
    blocks: int
    blocks_by_state: BlocksByState
    inactive_bytes: int
    largest_inactive_block_bytes: int
    fragmentation: float | None
    inactive_fragmentation: float | None
    largest_live_blocks: list[SnapshotBlock]
    live_by_site: list[SnapshotSite]
    fragmentation_cost: FragmentationCost | None


class EntriesByAction(TypedDict):
    alloc: NotRequired[int]
    free_requested: NotRequired[int]
    free_completed: NotRequired[int]
    segment_alloc: NotRequired[int]
    segment_free: NotRequired[int]
    segment_map: NotRequired[int]
    segment_unmap: NotRequired[int]
    snapshot: NotRequired[int]
    oom: NotRequired[int]
    other: NotRequired[int]


class OomReport(TypedDict):
    requested_bytes: int
    device_free_bytes: int | None
    time_us: int | None
    stack: list[StackFrame]
    live_bytes: int
    live_by_site: list[SnapshotSite]


class SnapshotTrace(TypedDict):
    entries: int
    entries_by_action: EntriesByAction
    first_time_us: int | None
    last_time_us: int | None
    free_action: str
    allocated_before_trace_bytes: int
    peak_allocated_bytes: int
    peak_entry: int
    peak_time_us: int | None
    live_at_peak_by_site: list[SnapshotSite]
    never_freed: int
    never_freed_bytes: int
    never_freed_by_site: list[SnapshotSite]
    ooms: int
    last_oom_device_free_bytes: int | None
    last_oom: OomReport | None


class SnapshotDevice(TypedDict):
    device: int
    state: SnapshotState
    trace: SnapshotTrace


class MemorySnapshot(TypedDict):
    file: str
    input_bytes: int
    unique_frames: int
    unique_stacks: int
    device_traces: int
    timing: SnapshotTiming
    devices: list[SnapshotDevice]
