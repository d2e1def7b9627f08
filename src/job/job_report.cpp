// Map and reduce entry points for the front ends.
#include "stepscope/job/job_report.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "io/whole_file.h"
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

namespace {

constexpr std::size_t kMaxSummaryBytes = std::size_t{64} << 20;

// Paths one per line; blank lines skipped, a trailing '\r' dropped (lists written on Windows).
Result<std::vector<std::string>> paths_in(std::istream& in, const std::string& name) {
  std::vector<std::string> paths;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) paths.push_back(line);
  }
  if (in.bad()) {
    Error error = make_error(ErrorKind::kIo, "cannot read the list of summaries");
    error.file = name;
    return error;
  }
  return paths;
}

Result<std::vector<std::string>> summaries_in_folder(const std::string& folder) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  std::error_code code;
  for (fs::directory_iterator it(folder, code), end; !code && it != end; it.increment(code)) {
    const std::string name = it->path().filename().string();
    if (name.ends_with(".summary.json") && it->is_regular_file(code)) {
      paths.push_back(it->path().string());
    }
  }
  if (code) {
    Error error = make_error(ErrorKind::kIo, "cannot list the folder: " + code.message());
    error.file = folder;
    return error;
  }
  if (paths.empty()) {
    Error error = make_error(ErrorKind::kNotTrace,
                             "no *.summary.json files in this folder (write them with "
                             "`stepscope summarize TRACE -o RANK.summary.json`)");
    error.file = folder;
    return error;
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace

Result<std::vector<std::string>> summary_paths(const std::vector<std::string>& inputs) {
  std::vector<std::string> paths;
  for (const std::string& input : inputs) {
    std::vector<std::string> more;
    std::error_code code;
    if (input == "-") {
      STEPSCOPE_ASSIGN_OR_RETURN(more, paths_in(std::cin, "standard input"));
    } else if (input.starts_with('@')) {
      const std::string list = input.substr(1);
      std::ifstream in(list);
      if (!in) {
        Error error = make_error(ErrorKind::kIo, "cannot open the list of summaries");
        error.file = list;
        return error;
      }
      STEPSCOPE_ASSIGN_OR_RETURN(more, paths_in(in, list));
    } else if (std::filesystem::is_directory(input, code)) {
      STEPSCOPE_ASSIGN_OR_RETURN(more, summaries_in_folder(input));
    } else {
      more.push_back(input);
    }
    paths.insert(paths.end(), more.begin(), more.end());
  }
  if (paths.empty()) return make_error(ErrorKind::kBadOption, "merge needs at least one summary");
  return paths;
}

Result<JobAnalysis> merge_summary_files(const std::vector<std::string>& paths,
                                        const JobOptions& options) {
  std::vector<RankSummary> summaries;
  summaries.reserve(paths.size());
  for (const std::string& path : paths) {
    STEPSCOPE_ASSIGN_OR_RETURN(
        const std::string text,
        io::read_whole_file(path, kMaxSummaryBytes,
                            "a rank summary is a few kilobytes: is this a summary?"));
    STEPSCOPE_ASSIGN_OR_RETURN(RankSummary summary, summary_from_json(text, path));
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
