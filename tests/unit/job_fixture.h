// Multi-rank fixtures for the job tests: CPU (gloo) data-parallel ranks with a forward phase,
// a backward op and one all_reduce per step on gloo's worker thread, on a shared "true" clock
// that each rank may see shifted.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/job/rank_summary.h"
#include "stepscope/load.h"
#include "support/trace_fixture.h"

namespace stepscope::testing {

struct JobRankSpec {
  std::int64_t rank = 0;
  std::int64_t world_size = 2;
  double forward_us = 1000;   // this rank's forward per step
  double clock_shift_us = 0;  // what this rank's clock reads ahead of the true clock
  double start_us = 1'000'000;
};

// Every rank runs `steps` steps; each step's all_reduce starts when the rank's backward ends
// and finishes (on every rank at once) 200 µs after the last rank started it.
inline std::string job_rank_json(const JobRankSpec& me, const std::vector<double>& all_forward_us,
                                 int steps = 6) {
  TraceFixture f;
  f.top_level("distributedInfo", "{\"backend\": \"gloo\", \"rank\": " + std::to_string(me.rank) +
                                     ", \"world_size\": " + std::to_string(me.world_size) + "}");
  const double backward_us = 500;
  const double transfer_us = 200;
  const double slowest = *std::max_element(all_forward_us.begin(), all_forward_us.end());
  const double step_us = slowest + backward_us + transfer_us + 100;
  for (int k = 0; k < steps; ++k) {
    const double s = me.start_us + k * step_us + me.clock_shift_us;
    f.step(k + 1, s, step_us - 10);
    f.annotation("## forward ##", s + 5, me.forward_us - 10);
    f.op("aten::linear", s + 10, me.forward_us - 30);
    f.op("autograd::engine::evaluate_function: AddmmBackward0", s + me.forward_us,
         backward_us - 10);
    const double arrival = s + me.forward_us + backward_us;
    const double end = s + slowest + backward_us + transfer_us;
    f.annotation("gloo:all_reduce", arrival, end - arrival, 2);
    f.op("c10d::allreduce_", arrival - 5, 3);
  }
  return f.json();
}

inline std::vector<std::string> job_jsons(const std::vector<double>& forward_us,
                                          const std::vector<double>& shifts_us = {},
                                          double start_us = 1'000'000) {
  std::vector<std::string> out;
  for (std::size_t r = 0; r < forward_us.size(); ++r) {
    JobRankSpec spec;
    spec.rank = static_cast<std::int64_t>(r);
    spec.world_size = static_cast<std::int64_t>(forward_us.size());
    spec.forward_us = forward_us[r];
    spec.clock_shift_us = r < shifts_us.size() ? shifts_us[r] : 0;
    spec.start_us = start_us;
    out.push_back(job_rank_json(spec, forward_us));
  }
  return out;
}

inline job::RankSummary summary_of(const std::string& json, const std::string& name) {
  Result<Trace> trace = load_trace_text(json, name);
  EXPECT_TRUE(trace.ok());
  const RankAnalyses analyses = analyze_rank(*trace, AnalysisOptions{});
  return job::summarize_rank(*trace, analyses, diagnose(analyses));
}

inline std::vector<job::RankSummary> summaries_of(const std::vector<std::string>& jsons) {
  std::vector<job::RankSummary> out;
  for (std::size_t r = 0; r < jsons.size(); ++r) {
    out.push_back(summary_of(jsons[r], "rank" + std::to_string(r) + ".json"));
  }
  return out;
}

// A fresh folder under the system temp directory, removed by the caller.
inline std::filesystem::path job_folder(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("stepscope_job_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace stepscope::testing
