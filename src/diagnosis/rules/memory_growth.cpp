// Rules on GPU memory from `[memory]` events (docs/metrics/11-memory-curve-from-memory-events.md
// §11):
//   memory-growth: memory allocated at the start of each kept step rises step after step, the
//     signature of tensors kept alive across steps (a loss accumulated without .item(), outputs
//     stored for logging with their graph). Threshold: it rises at every step boundary, by more
//     than 1 MiB a step, over at least three kept steps.
//   reserved-unused: at the allocation peak the allocator reserves at least twice what tensors
//     use, and at least 1 GiB more: fragmentation.
//   allocator-churn: cudaMalloc / cudaFree inside kept steps after the first, the caching
//     allocator going back to the driver. Threshold: their host time >= 1 % of the step.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "analysis/name_test.h"
#include "diagnosis/gain.h"
#include "diagnosis/rules/rules.h"
#include "trace/saturating.h"

namespace stepscope::rules {

namespace {

constexpr std::int64_t kMinGrowthPerStep = 1 << 20;
constexpr std::size_t kMinSteps = 3;
constexpr double kChurnThresholdShare = 0.01;

// Total Allocated of a device at each kept step's start (memory curve, host spans).
std::vector<std::int64_t> allocated_at_step_starts(const DeviceMemory& device) {
  std::vector<std::int64_t> out;
  for (const StepMemory& step : device.steps) {
    if (step.kept) out.push_back(step.allocated_at_start);
  }
  return out;
}

bool rises_every_step(const std::vector<std::int64_t>& values) {
  if (values.size() < kMinSteps || values.front() < 0) return false;
  for (std::size_t k = 1; k < values.size(); ++k) {
    if (saturating_sub(values[k], values[k - 1]) < kMinGrowthPerStep) return false;
  }
  return true;
}

// Allocations inside kept steps never freed within the trace, by the op that made them.
std::vector<EventRefs> unfreed_allocations(const RankAnalyses& rank, const DeviceMemory& device) {
  const Trace& trace = *rank.trace;
  const MemoryTable& m = trace.memory;
  std::map<std::uint64_t, std::size_t> live;  // address -> record of its allocation
  for (std::size_t r = 0; r < m.size(); ++r) {
    if (m.device_type[r] != device.device_type || m.device_id[r] != device.device_id) continue;
    if (m.bytes[r] > 0) {
      live[m.address[r]] = r;
    } else {
      live.erase(m.address[r]);
    }
  }
  EventRefList refs;
  for (const auto& [address, r] : live) {
    const Step* step = step_at(rank.steps, m.time_ns[r]);
    if (step == nullptr) continue;
    const EventIndex op = rank.memory.op_of_record[r];
    refs.add(op == kNoEvent ? "(no op)" : trace.name_of(op), m.time_ns[r], m.time_ns[r], step);
  }
  return refs.most_frequent(5);
}

// What keeps tensors alive is the same on every device; the tool that shows the allocating
// stacks is not: the CUDA memory history exists only for GPU memory.
std::string growth_fix(const DeviceMemory& device) {
  std::string fix =
      "Find what keeps tensors alive across steps: accumulate losses and metrics as Python "
      "numbers (total += loss.item()) or detached tensors (loss.detach()), do not store outputs "
      "that still hold their autograd graph, and clear lists kept for logging. ";
  if (device.device_type == 1) {
    return fix +
           "torch.cuda.memory._record_memory_history() and a snapshot show the stacks that "
           "allocate the growing blocks.";
  }
  return fix +
         "The ops named in the evidence made the allocations still alive at the end of the trace; "
         "profiling with profile_memory=True and with_stack=True shows the Python stacks behind "
         "them.";
}

Finding growth_finding(const RankAnalyses& rank, const DeviceMemory& device,
                       const std::vector<std::int64_t>& allocated) {
  const Trace& trace = *rank.trace;
  const double growth =
      (static_cast<double>(allocated.back()) - static_cast<double>(allocated.front())) /
      static_cast<double>(allocated.size() - 1);
  Finding finding;
  finding.id = "memory-growth";
  finding.bottleneck = Bottleneck::kMemoryCapacity;
  finding.part = StepPart::kWholeStep;
  finding.rank = trace.rank;
  finding.title =
      fmt::format("{} memory grows {:.1f} MiB every step", device.label, growth / (1 << 20));
  finding.evidence.push_back(Evidence{"allocated at the first kept step's start",
                                      static_cast<double>(allocated.front()) / (1 << 20),
                                      "MiB",
                                      {}});
  finding.evidence.push_back(Evidence{"allocated at the last kept step's start",
                                      static_cast<double>(allocated.back()) / (1 << 20),
                                      "MiB",
                                      {}});
  finding.evidence.push_back(Evidence{"growth per step", growth / (1 << 20), "MiB/step",
                                      unfreed_allocations(rank, device)});
  if (const DeviceProperties* properties =
          device.device_type == 1 ? trace.device_properties(device.device_id) : nullptr;
      properties != nullptr && properties->total_global_memory > 0 && growth > 0) {
    const double steps_left = (static_cast<double>(properties->total_global_memory) -
                               static_cast<double>(allocated.back())) /
                              growth;
    finding.evidence.push_back(
        Evidence{"steps until the device is full at this rate", steps_left, "steps", {}});
  }
  finding.fix = growth_fix(device);
  finding.gain = make_gain(0, 0, mean_step_ns(rank),
                           "no time to gain per step: the run fails with out-of-memory once the "
                           "device is full; the severity follows how soon");
  finding.severity = Severity::kHigh;
  return finding;
}

constexpr double kReservedRatio = 2.0;
constexpr std::int64_t kMinUnusedBytes = std::int64_t{1} << 30;

// At the device's allocation peak, memory the caching allocator reserves but no tensor uses.
std::optional<Finding> reserved_unused(const RankAnalyses& rank, const DeviceMemory& device) {
  const Trace& trace = *rank.trace;
  const std::int16_t device_id = device.device_id;
  const std::int64_t allocated = device.peak_allocated;
  const std::int64_t reserved = device.reserved_at_peak;
  if (allocated <= 0 || reserved < 0) return std::nullopt;
  if (static_cast<double>(reserved) < kReservedRatio * static_cast<double>(allocated) ||
      reserved - allocated < kMinUnusedBytes) {
    return std::nullopt;
  }
  Finding finding;
  finding.id = "reserved-unused";
  finding.bottleneck = Bottleneck::kMemoryCapacity;
  finding.part = StepPart::kWholeStep;
  finding.rank = trace.rank;
  finding.title = fmt::format("GPU {} reserves {:.2f} GiB more than its tensors use at the peak",
                              device_id, static_cast<double>(reserved - allocated) / (1 << 30));
  finding.evidence.push_back(
      Evidence{"allocated at the peak", static_cast<double>(allocated) / (1 << 30), "GiB", {}});
  finding.evidence.push_back(
      Evidence{"reserved at the peak", static_cast<double>(reserved) / (1 << 30), "GiB", {}});
  finding.fix =
      "Reduce fragmentation of the caching allocator: PYTORCH_CUDA_ALLOC_CONF="
      "expandable_segments:True, stable tensor shapes (bucketed sequence lengths), and no "
      "torch.cuda.empty_cache() in the loop; torch.cuda.memory_summary() shows the segments.";
  finding.gain = make_gain(0, 0, mean_step_ns(rank),
                           "no time to gain per step: the unused reservation is capacity a larger "
                           "batch or model could use, or the margin before out-of-memory");
  finding.severity = Severity::kMedium;
  return finding;
}

}  // namespace

std::vector<Finding> check_memory_growth(const RankAnalyses& rank) {
  if (rank.steps.kept().empty()) return {};
  std::vector<Finding> findings;
  for (const DeviceMemory& device : rank.memory.devices) {
    // Every device: a CPU leak ends in the OOM killer as surely as a GPU leak in an OOM error.
    const std::vector<std::int64_t> allocated = allocated_at_step_starts(device);
    if (rises_every_step(allocated)) findings.push_back(growth_finding(rank, device, allocated));
    if (device.device_type != 1) continue;
    if (std::optional<Finding> unused = reserved_unused(rank, device)) {
      findings.push_back(*unused);
    }
  }
  return findings;
}

namespace {

bool is_allocator_call(std::string_view name) {
  return name == "cudaMalloc" || name == "cudaFree" || name == "hipMalloc" || name == "hipFree" ||
         name == "cuMemAlloc_v2" || name == "cuMemFree_v2";
}

}  // namespace

std::vector<Finding> check_allocator_churn(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  if (step_ns <= 0 || kept.size() < 2) return {};
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  std::int64_t churn_ns = 0;
  EventRefList calls;
  NameTest<is_allocator_call> allocator_call(trace);  // six comparisons, once per call name
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (!is_launch_call(e.event_class[i]) || !allocator_call(i)) continue;
    const std::string_view name = trace.name_of(i);
    const Step* step = step_at(rank.steps, e.start_ns[i]);
    if (step == nullptr || step == kept.front()) continue;  // the first step may warm the cache
    churn_ns += e.dur_ns[i];
    calls.add(name, e.start_ns[i], e.end_ns(i), step);
  }
  const auto steady_steps = static_cast<double>(kept.size() - 1);
  const auto per_step = static_cast<std::int64_t>(static_cast<double>(churn_ns) / steady_steps);
  if (static_cast<double>(per_step) / step_ns < kChurnThresholdShare) return {};
  Finding finding;
  finding.id = "allocator-churn";
  finding.bottleneck = Bottleneck::kMemoryCapacity;
  finding.part = StepPart::kWholeStep;
  finding.rank = trace.rank;
  finding.title = "The caching allocator calls cudaMalloc / cudaFree in steady-state steps";
  finding.evidence.push_back(Evidence{"cudaMalloc / cudaFree host time per step after the first",
                                      static_cast<double>(per_step) / 1e6, "ms/step", calls.all()});
  finding.fix =
      "Keep the allocator's cache warm: do not call torch.cuda.empty_cache() in the loop, keep "
      "tensor shapes stable (pad variable-length batches to a few bucket sizes), and set "
      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to reduce fragmentation.";
  finding.gain =
      make_gain(per_step, static_cast<std::int64_t>(static_cast<double>(per_step) * 0.8), step_ns,
                "bound: host time in cudaMalloc/cudaFree per steady step (each also "
                "synchronizes the device); likely: 80 % of it");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
