// libFuzzer target: the rank summary behind `stepscope merge`, then the job analysis of it and
// of a second rank made from it, and both renderings. The first input byte picks the second
// rank's number (a duplicate, a neighbour or an outsider); the rest is the document. A refusal is
// fine; a crash, a leak, UB or an allocation sized by the document is not.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stepscope/job/job_analysis.h"
#include "stepscope/job/job_report.h"
#include "stepscope/job/rank_summary.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t choice = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  auto summary = stepscope::job::summary_from_json(text, "fuzz.summary.json");
  if (!summary) return 0;
  stepscope::job::RankSummary other = *summary;
  other.rank = summary->rank + static_cast<std::int64_t>(choice % 3);  // same, next, next but one
  other.file = "other.summary.json";
  std::vector<stepscope::job::RankSummary> ranks{std::move(*summary), std::move(other)};
  const stepscope::job::JobAnalysis job = stepscope::job::analyze_job(std::move(ranks));
  (void)stepscope::job::render_job_text(job, 10);
  (void)stepscope::job::render_job_json(job);
  return 0;
}
