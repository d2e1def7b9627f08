// One rank reduced to what the job-level analysis needs (the "map" of map-then-reduce): step
// times, phase times, every collective with its process group, order, size and start/end, and
// the rank's own findings. Small, serialisable and versioned, so that ranks can be summarised
// anywhere (threads, Dask workers, a Slurm array) and merged later without their traces.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/analysis/phases.h"
#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/error.h"
#include "stepscope/trace.h"

namespace stepscope::job {

// Version of the summary document; bumped on incompatible change. merge refuses other versions.
inline constexpr int kSummaryVersion = 1;

struct SummaryStep {
  std::int64_t number = 0;
  std::int64_t start_ns = 0;  // trace time of the rank's own clock
  std::int64_t end_ns = 0;
  std::int64_t compute_ns = 0;  // device computation (CPU traces: host time outside collectives)
  std::int64_t communication_ns = 0;  // union of the rank's collectives inside the step
  std::int64_t idle_ns = 0;           // device idle (CPU traces: 0)
  std::array<std::int64_t, kPhaseCount> phase_ns{};  // host time per phase (phases.h)
  [[nodiscard]] std::int64_t duration_ns() const { return end_ns - start_ns; }
};

struct SummaryCollective {
  std::string kind;   // all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, send_recv,
                      // reduce, or the normalised name (barrier, gather, ...)
  std::string group;  // process group name; "default" when the trace does not say
  std::int64_t order = 0;        // position among this rank's collectives of the same group
  std::int64_t bytes = kAbsent;  // message size S by nccl-tests conventions; -1 unknown
  std::string dtype;
  std::int64_t group_size = kAbsent;
  std::int64_t start_ns = 0;  // the kernel's (CPU: the gloo op's) start and end, rank clock
  std::int64_t end_ns = 0;
  std::int64_t overlapped_ns = 0;  // of [start, end), time other work ran beside it
  std::int64_t step = -1;          // number of the kept step holding its start; -1 none
  bool on_device = true;           // a GPU kernel (false: a host-side gloo op)
};

struct SummaryFinding {
  std::string id;
  std::string title;
  std::string severity;
  std::string bottleneck;
  std::string phase;
  std::int64_t likely_gain_ns = 0;  // per step
  double likely_share = 0;
  std::string fix;
};

// Time per step an op (by name) takes on this rank: where a straggler lost its time.
struct SummaryOp {
  std::string name;
  std::int64_t ns_per_step = 0;  // inclusive host time (device time when larger) per kept step
};

struct RankSummary {
  int summary_version = kSummaryVersion;
  std::int64_t rank = 0;
  std::string rank_source;  // distributed_info, file_name, file_order, default_zero
  std::int64_t world_size = kAbsent;
  std::string backend;
  std::string file;
  std::int64_t trace_start_ns = 0;  // the trace's time range, rank clock
  std::int64_t trace_end_ns = 0;
  bool has_device_activity = false;
  std::string bottleneck;  // the rank's own diagnosis
  std::string summary;
  std::vector<SummaryStep> steps;  // kept steps
  std::vector<SummaryCollective> collectives;
  std::vector<SummaryFinding> findings;  // ranked as the rank's diagnosis ranks them
  std::vector<SummaryOp> ops;            // top ops by time per step
  std::vector<std::string> notes;
};

// Builds the summary of one analysed rank. `trace` must be the one `analyses` was computed on.
RankSummary summarize_rank(const Trace& trace, const RankAnalyses& analyses,
                           const Diagnosis& diagnosis);

// JSON text (exact integers; doubles written round-trip) and back. `name` names the source in
// errors.
std::string summary_to_json(const RankSummary& summary);
Result<RankSummary> summary_from_json(std::string_view json, const std::string& name);

}  // namespace stepscope::job
