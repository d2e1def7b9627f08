// Calibration of the gain estimate: a finding of BEFORE that AFTER no longer has was (most
// likely) fixed, so the measured change of the mean step time is what its fix achieved. The
// bound says what the fix could achieve at most, the likely value what the diagnosis expected.
// The measurement means that only when nothing else changed: runs on different devices, world
// sizes, precisions or batch shapes get no calibration (an A100 run against a V100 run measured
// "-6.36x the prediction"), and neither does a finding that predicted no saving.
#include <string>

#include "diff/diff_parts.h"

namespace stepscope::diff {

namespace {

const Finding* before_finding(const Report& before, const FindingChange& resolved) {
  for (const RankReport& rank : before.ranks) {
    for (const Finding& candidate : rank.diagnosis.findings) {
      if (candidate.id == resolved.id && candidate.rank == resolved.rank) return &candidate;
    }
  }
  return nullptr;
}

std::string condition_names(const std::vector<ConditionChange>& conditions) {
  std::string names;
  for (const ConditionChange& c : conditions) {
    if (!names.empty()) names += ", ";
    names += c.condition;
  }
  return names;
}

}  // namespace

void calibrate(const Report& before, DiffResult& result) {
  const StepComparison& s = result.steps;
  if (s.verdict == Verdict::kUndetermined || result.findings_resolved.empty()) return;
  if (!result.unlike_conditions.empty()) {
    result.notes.push_back("no calibration of predicted gains: the runs are not like for like (" +
                           condition_names(result.unlike_conditions) +
                           " differ), so the measured change is not the fixes' alone");
    return;
  }
  for (const FindingChange& resolved : result.findings_resolved) {
    const Finding* finding = before_finding(before, resolved);
    if (finding == nullptr || finding->gain.likely_ns <= 0) continue;
    Calibration c;
    c.id = resolved.id;
    c.rank = resolved.rank;
    c.predicted_likely_ns = finding->gain.likely_ns;
    c.predicted_bound_ns = finding->gain.bound_ns;
    c.measured_ns = s.before_mean_ns - s.after_mean_ns;
    // ratio = after / before: a saving of (1 − ratio) × before; the interval flips.
    c.measured_low_ns = (1.0 - s.ratio_high) * s.before_mean_ns;
    c.measured_high_ns = (1.0 - s.ratio_low) * s.before_mean_ns;
    if (c.measured_ns > 0) {
      c.measured_over_predicted = c.measured_ns / static_cast<double>(c.predicted_likely_ns);
    }
    c.resolved_together = result.findings_resolved.size();
    result.calibration.push_back(std::move(c));
  }
}

}  // namespace stepscope::diff
