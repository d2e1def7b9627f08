#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

#include "report/report_model.h"
#include "report/step_selection.h"
#include "stepscope/analysis/catalogue.h"
#include "stepscope/job/rank_summary.h"

namespace stepscope {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

RankAnalyses analyze_rank(const Trace& trace, const AnalysisOptions& options) {
  RankAnalyses rank(trace);
  rank.options = options;
  for (const AnalysisDescription& analysis : analysis_catalogue()) analysis.compute(rank);
  return rank;
}

void ReportDeleter::operator()(Report* report) const { delete report; }

Result<ReportPtr> analyze(const AnalyzeRequest& request) {
  ReportPtr report(new Report);
  report->request = request;
  const auto load_start = std::chrono::steady_clock::now();
  STEPSCOPE_ASSIGN_OR_RETURN(report->traces, load_traces(request.path, request.load));
  report->load_seconds = seconds_since(load_start);
  const auto analysis_start = std::chrono::steady_clock::now();
  // Ranks are independent: analysed `jobs` at a time.
  const std::size_t n = report->traces.ranks.size();
  std::vector<std::optional<RankReport>> analysed(n);
  unsigned jobs =
      request.jobs != 0 ? request.jobs : std::max(1U, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, n));
  std::atomic<std::size_t> next{0};
  auto work = [&report, &request, &next, &analysed, n] {
    for (std::size_t i = next++; i < n; i = next++) {
      const Trace& trace = report->traces.ranks[i];
      RankReport rank{analyze_rank(trace, request.analysis), {}};
      rank.diagnosis = diagnose(rank.analyses);
      analysed[i].emplace(std::move(rank));
    }
  };
  if (jobs <= 1) {
    work();
  } else {
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(work);
    for (std::thread& t : threads) t.join();
  }
  report->ranks.reserve(n);
  for (std::optional<RankReport>& rank : analysed) report->ranks.push_back(std::move(*rank));
  for (const RankReport& rank : report->ranks) {
    if (Status s = check_step_selection(rank.analyses.steps, request.analysis); !s) {
      Error error = std::move(s).error();
      error.file = rank.analyses.trace->source_path;
      return error;
    }
  }
  // A folder: the job analysis, over summaries that went through their JSON form, so that
  // `merge` over written summaries gives exactly the same job.
  std::error_code folder_error;
  if (std::filesystem::is_directory(request.path, folder_error) && !request.load.rank) {
    std::vector<job::RankSummary> summaries;
    for (const RankReport& rank : report->ranks) {
      const std::string text = job::summary_to_json(
          job::summarize_rank(*rank.analyses.trace, rank.analyses, rank.diagnosis));
      Result<job::RankSummary> summary =
          job::summary_from_json(text, rank.analyses.trace->source_path);
      if (!summary) return std::move(summary).error();
      summaries.push_back(std::move(summary).value());
    }
    report->job = job::analyze_job(std::move(summaries), job::JobOptions{request.run});
  }
  if (request.analysis.mode == Mode::kCompatHta) {
    report->hta = hta::compute_hta_report(report->traces, request.analysis);
  }
  report->analysis_seconds = seconds_since(analysis_start);
  return report;
}

}  // namespace stepscope
