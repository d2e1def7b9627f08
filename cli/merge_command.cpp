#include "merge_command.h"

#include <fmt/core.h>

#include <fstream>
#include <sstream>

#include "stepscope/job/job_report.h"
#include "stepscope/report.h"

namespace stepscope::cli {

void add_merge_command(CLI::App& app, MergeArguments& a) {
  CLI::App* command = app.add_subcommand(
      "merge", "The job report from rank summaries written by `stepscope summarize`");
  command->add_option("SUMMARY", a.summaries, "summary files, one per rank")->required();
  command->add_option("--json", a.json_output, "write the job as JSON to FILE ('-': stdout)");
  command->add_option("--html", a.html_output, "write the job as an HTML page to FILE");
  command->add_option("--run", a.run, "several runs among the summaries: analyse run N");
  command->add_option("--top", a.top, "rows in top-N tables")->check(CLI::Range(1, 100000));
  command->add_flag("-q,--quiet", a.quiet, "no terminal report");
}

bool read_summaries(const std::vector<std::string>& paths, std::vector<std::string>& texts) {
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      fmt::print(stderr, "stepscope: error: {}: cannot open the summary\n", path);
      return false;
    }
    std::ostringstream text;
    text << in.rdbuf();
    texts.push_back(text.str());
  }
  return true;
}

int run_merge(const MergeArguments& a) {
  std::vector<std::string> texts;
  if (!read_summaries(a.summaries, texts)) return 2;
  Result<job::JobAnalysis> merged =
      job::merge_summaries(texts, a.summaries, job::JobOptions{a.run});
  if (!merged) {
    fmt::print(stderr, "stepscope: error: {}\n", merged.error().describe());
    return 2;
  }
  if (!a.json_output.empty()) {
    if (Status s = write_output_file(a.json_output, job::render_job_json(*merged)); !s) {
      fmt::print(stderr, "stepscope: error: {}\n", s.error().describe());
      return 2;
    }
  }
  if (!a.html_output.empty()) {
    if (Status s = write_output_file(a.html_output, job::render_job_html(*merged)); !s) {
      fmt::print(stderr, "stepscope: error: {}\n", s.error().describe());
      return 2;
    }
  }
  if (!a.quiet && a.json_output != "-") fmt::print("{}", job::render_job_text(*merged, a.top));
  return 0;
}

}  // namespace stepscope::cli
