// compare_runs: analyse both runs with analyze(), then diff_reports.
#include "diff/diff_parts.h"

namespace stepscope {

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSlower:
      return "slower";
    case Verdict::kNoSignificantChange:
      return "no significant change";
    case Verdict::kUndetermined:
      return "undetermined";
  }
  return "undetermined";
}

namespace {

RunSide run_side(const Report& report) {
  RunSide side;
  side.path = report.request.path;
  bool first = true;
  for (const RankReport& rank : report.ranks) {
    side.ranks.push_back(rank.analyses.trace->rank);
    side.bottlenecks.emplace_back(to_string(rank.diagnosis.bottleneck));
    const std::size_t kept = rank.analyses.steps.kept().size();
    side.kept_steps = first ? kept : std::min(side.kept_steps, kept);
    first = false;
  }
  return side;
}

}  // namespace

DiffResult diff_reports(const Report& before, const Report& after, const DiffOptions& options) {
  DiffResult result;
  result.top = options.top;
  result.before = run_side(before);
  result.after = run_side(after);
  diff::compare_conditions(before, after, result);
  result.steps = diff::compare_steps(diff::step_sample(before), diff::step_sample(after), options);
  diff::compare_phases(before, after, result);
  diff::compare_ops(before, after, options, result);
  diff::compare_kernels(before, after, options, result);
  diff::compare_findings(before, after, result);
  diff::calibrate(before, result);
  if (before.ranks.size() != after.ranks.size()) {
    result.notes.push_back("the runs have different rank counts (before " +
                           std::to_string(before.ranks.size()) + ", after " +
                           std::to_string(after.ranks.size()) + ")");
  }
  return result;
}

Result<DiffResult> compare_runs(const DiffRequest& request) {
  AnalyzeRequest side;
  side.path = request.before;
  side.analysis = request.analysis;
  side.load = request.load;
  side.stream_folder = false;  // the comparison reads every rank's steps
  STEPSCOPE_ASSIGN_OR_RETURN(const ReportPtr before, analyze(side));
  side.path = request.after;
  STEPSCOPE_ASSIGN_OR_RETURN(const ReportPtr after, analyze(side));
  return diff_reports(*before, *after, {request.top, request.seed, request.resamples});
}

bool slower_beyond(const DiffResult& result, double percent) {
  const StepComparison& s = result.steps;
  if (s.verdict == Verdict::kUndetermined) return false;
  return s.ratio_low > 1.0 + percent / 100.0;
}

}  // namespace stepscope
