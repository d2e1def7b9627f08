// Calibration of the gain estimate: a finding of BEFORE that AFTER no longer has was (most
// likely) fixed, so the measured change of the mean step time is what its fix achieved. The
// bound says what the fix could achieve at most, the likely value what the diagnosis expected.
#include "diff/diff_parts.h"

namespace stepscope::diff {

void calibrate(const Report& before, DiffResult& result) {
  const StepComparison& s = result.steps;
  if (s.verdict == Verdict::kUndetermined || result.findings_resolved.empty()) return;
  for (const FindingChange& resolved : result.findings_resolved) {
    const Finding* finding = nullptr;
    for (const RankReport& rank : before.ranks) {
      for (const Finding& candidate : rank.diagnosis.findings) {
        if (candidate.id == resolved.id && candidate.rank == resolved.rank) {
          finding = &candidate;
          break;
        }
      }
      if (finding != nullptr) break;
    }
    if (finding == nullptr) continue;
    Calibration c;
    c.id = resolved.id;
    c.rank = resolved.rank;
    c.predicted_likely_ns = finding->gain.likely_ns;
    c.predicted_bound_ns = finding->gain.bound_ns;
    c.measured_ns = s.before_mean_ns - s.after_mean_ns;
    // ratio = after / before: a saving of (1 − ratio) × before; the interval flips.
    c.measured_low_ns = (1.0 - s.ratio_high) * s.before_mean_ns;
    c.measured_high_ns = (1.0 - s.ratio_low) * s.before_mean_ns;
    c.measured_over_predicted =
        c.predicted_likely_ns > 0 ? c.measured_ns / static_cast<double>(c.predicted_likely_ns) : 0;
    c.resolved_together = result.findings_resolved.size();
    result.calibration.push_back(std::move(c));
  }
}

}  // namespace stepscope::diff
