// The parts of a comparison, one concept per file: step statistics (step_comparison.cpp),
// phases / ops / kernels (breakdown_comparison.cpp), findings (finding_comparison.cpp), the
// runs' conditions (condition_comparison.cpp) and the calibration of predicted gains
// (calibration.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "report/report_model.h"
#include "stepscope/diff.h"

namespace stepscope::diff {

// The step times of one run: per step number kept on every rank, the slowest rank's duration
// (the rank that gates the step in synchronous data-parallel training).
StepSample step_sample(const Report& report);

// Bootstrap of the ratio of mean step times after / before (each side resampled with
// replacement, seeded splitmix64), 95 % percentile interval, and the verdict.
StepComparison compare_steps(StepSample before, StepSample after, const DiffOptions& options);

// Phases (mean host time per kept step, averaged over ranks).
void compare_phases(const Report& before, const Report& after, DiffResult& result);
// Ops by name (self CPU, self device time and calls per kept step, averaged over ranks).
void compare_ops(const Report& before, const Report& after, const DiffOptions& options,
                 DiffResult& result);
// Device activities (kernels, memcpy, memset) starting inside the analysis window, by name.
void compare_kernels(const Report& before, const Report& after, const DiffOptions& options,
                     DiffResult& result);
// Findings by (id, rank): resolved, improved, introduced, persisting, judged by the time each
// accounts for per step (kFindingResolvedShare in diff.h).
void compare_findings(const Report& before, const Report& after, DiffResult& result);
// The conditions in which the runs differ (device, devices per rank, world size, precision, batch
// shape) into result.unlike_conditions; a note for those the traces cannot tell.
void compare_conditions(const Report& before, const Report& after, DiffResult& result);
// For each resolved finding that predicted a saving, its predicted gain against the measured
// step-time change; nothing when the runs are not like for like (run compare_conditions first).
void calibrate(const Report& before, DiffResult& result);

// splitmix64: a small, fast, seedable PRNG (Steele, Lea, Flood 2014).
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31U);
  }
  // Uniform in [0, n) (multiply-shift; the bias is below 2^-32 for the sizes used here).
  std::size_t below(std::size_t n) {
    return static_cast<std::size_t>((static_cast<unsigned __int128>(next()) * n) >> 64U);
  }

 private:
  std::uint64_t state_;
};

}  // namespace stepscope::diff
