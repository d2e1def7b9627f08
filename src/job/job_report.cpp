// Map and reduce entry points for the front ends.
#include "stepscope/job/job_report.h"

#include "report/report_model.h"
#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/report.h"

namespace stepscope::job {

Result<std::string> summarize_file(const std::string& path, const AnalysisOptions& analysis,
                                   const LoadOptions& load) {
  STEPSCOPE_ASSIGN_OR_RETURN(Trace trace, load_trace_file(path, load));
  const RankAnalyses analyses = analyze_rank(trace, analysis);
  const Diagnosis diagnosis = diagnose(analyses);
  return summary_to_json(summarize_rank(trace, analyses, diagnosis));
}

Result<JobAnalysis> merge_summaries(const std::vector<std::string>& texts,
                                    const std::vector<std::string>& names,
                                    const JobOptions& options) {
  std::vector<RankSummary> summaries;
  summaries.reserve(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::string name = i < names.size() ? names[i] : "summary " + std::to_string(i);
    STEPSCOPE_ASSIGN_OR_RETURN(RankSummary summary, summary_from_json(texts[i], name));
    summaries.push_back(std::move(summary));
  }
  if (summaries.empty()) {
    return make_error(ErrorKind::kBadOption, "merge needs at least one summary");
  }
  return analyze_job(std::move(summaries), options);
}

Result<JobAnalysis> analyze_folder_job(const std::string& path) {
  AnalyzeRequest request;
  request.path = path;
  STEPSCOPE_ASSIGN_OR_RETURN(ReportPtr report, analyze(request));
  if (!report->job) {
    Error error = make_error(ErrorKind::kBadOption, "not a folder of rank traces");
    error.file = path;
    return error;
  }
  return std::move(*report->job);
}

}  // namespace stepscope::job
