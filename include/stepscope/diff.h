// Comparing two runs (`stepscope diff BEFORE AFTER`): step time with a bootstrap confidence
// interval and a verdict, and what changed per phase, op, kernel and finding. DiffResult is
// plain data with every name copied out of the traces, so renderers (JSON, text, HTML) need
// neither the traces nor the reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/error.h"
#include "stepscope/load.h"
#include "stepscope/text_options.h"

namespace stepscope {

struct Report;  // report_model.h

// Version of the JSON document written by render_diff_json; bumped on incompatible change.
inline constexpr int kDiffJsonSchemaVersion = 3;

// A finding of both runs is judged by the time it accounts for per step (its gain's bound, the
// most its fix can save), not by its title, which can outlive the problem: resolved when that time
// fell below kFindingResolvedShare of the before run's, improved when it fell to at most
// kFindingImprovedShare of it, persisting otherwise (docs/diff.md). A finding the after run no
// longer has is resolved; one that accounts for no time (memory growth) persists while both have
// it.
inline constexpr double kFindingResolvedShare = 0.10;
inline constexpr double kFindingImprovedShare = 0.75;

struct DiffRequest {
  std::string before;  // a trace file or a folder of them, as for analyze
  std::string after;
  AnalysisOptions analysis;
  LoadOptions load;
  int top = 10;            // rows kept in each changed / appeared / vanished list
  std::uint64_t seed = 1;  // bootstrap PRNG seed: the same seed gives the same interval
  int resamples = 10000;   // bootstrap resamples
};

struct DiffOptions {
  int top = 10;
  std::uint64_t seed = 1;
  int resamples = 10000;
};

enum class Verdict : std::uint8_t { kFaster, kSlower, kNoSignificantChange, kUndetermined };
// "faster", "slower", "no significant change", "undetermined".
[[nodiscard]] std::string_view to_string(Verdict verdict);

// The step times one side contributes: per kept step, the slowest rank's duration.
struct StepSample {
  std::vector<std::int64_t> durations_ns;  // in step order
  std::size_t ranks = 0;
  std::string source;  // how the sample was formed, in words
};

struct StepComparison {
  StepSample before;
  StepSample after;
  double before_mean_ns = 0;
  double after_mean_ns = 0;
  double before_median_ns = 0;
  double after_median_ns = 0;
  double change_ns = 0;     // after mean − before mean
  double change_share = 0;  // change / before mean (0.1 = 10 % slower)
  double ratio = 0;         // after mean / before mean
  double ratio_low = 0;     // bootstrap percentile interval of the ratio
  double ratio_high = 0;
  double confidence = 0.95;
  int resamples = 0;
  std::uint64_t seed = 0;
  Verdict verdict = Verdict::kUndetermined;
  std::string reason;  // why undetermined; empty otherwise
};

// Per kept step figures of one side; `present` is false when the name is absent on that side.
struct PhaseChange {
  std::string phase;
  double before_ns = 0;  // mean host time per kept step
  double after_ns = 0;
};

struct OpChange {
  std::string name;
  bool in_before = false;
  bool in_after = false;
  double before_self_cpu_ns = 0;  // per kept step
  double after_self_cpu_ns = 0;
  double before_self_device_ns = 0;
  double after_self_device_ns = 0;
  double before_calls = 0;  // per kept step
  double after_calls = 0;
};

struct KernelChange {
  std::string name;
  std::string kind;  // "kernel", "memcpy", "memset", "accelerator_kernel"
  bool in_before = false;
  bool in_after = false;
  double before_ns = 0;  // device time per kept step
  double after_ns = 0;
  double before_count = 0;  // instances per kept step
  double after_count = 0;
};

// A finding's headline figure (its first evidence) on each side: what a persisting finding
// measured before and after ("exposed communication per step: 14.653 → 9.210 ms/step").
struct FindingFigure {
  std::string label;
  std::string unit;
  std::optional<double> before;  // absent on a side without the finding, or without this figure
  std::optional<double> after;
};

struct FindingChange {
  std::string id;
  std::string title;
  std::int64_t rank = 0;        // the before run's rank, or the after run's for introduced findings
  std::string severity_before;  // empty on the side without the finding
  std::string severity_after;
  std::int64_t likely_gain_before_ns = 0;  // per step
  std::int64_t likely_gain_after_ns = 0;
  FindingFigure figure;  // empty label: neither side's finding had evidence
  // The time the finding accounts for per step (its gain's bound), 0 on a side without it.
  std::int64_t owned_before_ns = 0;
  std::int64_t owned_after_ns = 0;
};

// A condition under which the runs differ, so that the change of step time is not the effect of
// the code change alone: "device", "devices per rank", "world size", "precision", "batch shape".
struct ConditionChange {
  std::string condition;
  std::string before;
  std::string after;
  std::string source;  // where in the traces the condition was read, in words
};

// A finding of BEFORE resolved in AFTER: the gain it predicted against the measured change of
// the mean step time (calibration of the estimate). Only for runs alike in every condition the
// traces tell, and for findings that predicted a saving. When several findings were resolved, the
// measured change belongs to all of them together (`resolved_together`).
struct Calibration {
  std::string id;
  std::int64_t rank = 0;
  std::int64_t predicted_likely_ns = 0;  // per step, as the before run's diagnosis said
  std::int64_t predicted_bound_ns = 0;
  double measured_ns = 0;      // before mean − after mean step time (> 0: faster)
  double measured_low_ns = 0;  // from the 95 % interval of the ratio
  double measured_high_ns = 0;
  // measured / predicted likely, only when the run got faster: a loss is no multiple of a saving.
  std::optional<double> measured_over_predicted;
  std::size_t resolved_together = 1;
};

struct RunSide {
  std::string path;
  std::vector<std::int64_t> ranks;
  std::vector<std::string> bottlenecks;  // per rank, as the diagnosis names it
  std::size_t kept_steps = 0;            // per rank, the smallest count
};

struct DiffResult {
  RunSide before;
  RunSide after;
  // Conditions in which the runs differ; empty when they are like for like, as far as the traces
  // tell (docs/diff.md names what is compared).
  std::vector<ConditionChange> unlike_conditions;
  StepComparison steps;
  bool phases_applicable = false;  // both sides have phase markers
  std::vector<PhaseChange> phases;
  // Lists below are sorted by the size of the change, largest first, and cut to `top`;
  // the *_total counts say how many there were before the cut.
  std::vector<OpChange> ops;  // ops on both sides
  std::size_t ops_total = 0;
  std::vector<OpChange> ops_appeared;  // only after, by self time after (CPU + device)
  std::size_t ops_appeared_total = 0;
  std::vector<OpChange> ops_vanished;  // only before, by self time before
  std::size_t ops_vanished_total = 0;
  std::vector<KernelChange> kernels;  // device activity names on both sides
  std::size_t kernels_total = 0;
  std::vector<KernelChange> kernels_appeared;  // only after, by time after
  std::size_t kernels_appeared_total = 0;
  std::vector<KernelChange> kernels_vanished;  // only before, by time before
  std::size_t kernels_vanished_total = 0;
  std::vector<FindingChange> findings_resolved;    // gone, or its time all but gone
  std::vector<FindingChange> findings_improved;    // its time fell substantially but remains
  std::vector<FindingChange> findings_introduced;  // after only
  std::vector<FindingChange> findings_persisting;
  // One per resolved finding that predicted a saving, when the verdict is known and the runs are
  // like for like.
  std::vector<Calibration> calibration;
  std::vector<std::string> notes;
  int top = 10;
};

// Analyses both sides (errors name the file) and compares them.
Result<DiffResult> compare_runs(const DiffRequest& request);

// The comparison of two analysed reports; pure, and deterministic for a given seed.
DiffResult diff_reports(const Report& before, const Report& after, const DiffOptions& options);

// True when the after run is slower than `percent` % with confidence: the interval's lower
// bound of the ratio after / before exceeds 1 + percent / 100.
[[nodiscard]] bool slower_beyond(const DiffResult& result, double percent);

std::string render_diff_json(const DiffResult& result);
std::string render_diff_text(const DiffResult& result, const TextOptions& options);
std::string render_diff_text(const DiffResult& result, int top);  // 100 columns
// The self-contained HTML page (the report's shell: inline CSS and SVG, opens offline).
std::string render_diff_html(const DiffResult& result);

}  // namespace stepscope
