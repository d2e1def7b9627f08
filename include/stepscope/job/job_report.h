// Front-end entry points of the job analysis: summarise one trace (map), merge summaries (reduce),
// and render the job. `analyze FOLDER` runs the same reduce in-process.
#pragma once

#include <string>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/error.h"
#include "stepscope/job/job_analysis.h"
#include "stepscope/load.h"
#include "stepscope/text_options.h"

namespace stepscope::job {

// Loads one trace file, analyses it, and returns its summary as JSON text.
Result<std::string> summarize_file(const std::string& path, const AnalysisOptions& analysis,
                                   const LoadOptions& load = {});

// Reads summary files one at a time (each parsed before the next is read, so memory holds
// summaries, not their texts) and runs the job analysis. A file over 64 MiB is refused: a
// summary is a few kilobytes.
Result<JobAnalysis> merge_summary_files(const std::vector<std::string>& paths,
                                        const JobOptions& options = {});

// The summary files that `inputs` name, in order: a file is itself; a folder gives its
// `*.summary.json` files, sorted by name; `@LIST` gives the paths in file LIST, one per line;
// `-` gives the paths on standard input, one per line (for more ranks than a command line
// holds).
Result<std::vector<std::string>> summary_paths(const std::vector<std::string>& inputs);

// Reads summary JSON texts (`names[i]` names texts[i] in errors) and runs the job analysis.
Result<JobAnalysis> merge_summaries(const std::vector<std::string>& texts,
                                    const std::vector<std::string>& names,
                                    const JobOptions& options = {});

// The job of a folder of rank traces (`analyze FOLDER`'s job); an error if `path` is no folder.
Result<JobAnalysis> analyze_folder_job(const std::string& path);

// The job as JSON: {"schema": "stepscope.job", "schema_version": N, "job": {...}}; the `job`
// object is the one `analyze FOLDER --json` writes.
std::string render_job_json(const JobAnalysis& job);
// The job section of the terminal report.
std::string render_job_text(const JobAnalysis& job, const TextOptions& options);
std::string render_job_text(const JobAnalysis& job, int top);  // 100 columns
// The job section of the HTML report (a fragment: verdict, heat map, waits, collective table).
std::string render_job_html_section(const JobAnalysis& job);
// A whole HTML page for `merge --html`.
std::string render_job_html(const JobAnalysis& job);

}  // namespace stepscope::job
