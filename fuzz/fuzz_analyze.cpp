// libFuzzer target: load, run every analysis and the diagnosis, and render both reports, in the
// mode picked by the first byte. Whatever loads must analyse and render without crashing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "report/report_model.h"
#include "stepscope/load.h"
#include "stepscope/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  stepscope::AnalysisOptions options;
  options.mode = static_cast<stepscope::Mode>(data[0] % 3);
  options.hta_rounding = (data[0] & 4) == 0;
  options.group_by_input_shape = (data[0] & 8) != 0;
  options.top = 1 + (data[0] >> 4);
  if ((data[1] & 1) != 0) options.steps = stepscope::StepRange{data[1] >> 4, (data[1] >> 4) + 2};
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);
  stepscope::Result<stepscope::Trace> trace = stepscope::load_trace_text(text, "fuzz.json");
  if (!trace) return 0;
  stepscope::Report report;
  report.request.path = "fuzz.json";
  report.request.analysis = options;
  report.traces.ranks.push_back(std::move(trace).value());
  for (const stepscope::Trace& loaded : report.traces.ranks) {
    stepscope::RankReport rank{stepscope::analyze_rank(loaded, options), {}};
    rank.diagnosis = stepscope::diagnose(rank.analyses);
    report.ranks.push_back(std::move(rank));
  }
  const std::string json = stepscope::render_json(report);
  const std::string terminal = stepscope::render_text(report, options.top);
  if (json.empty() || terminal.empty()) std::abort();
  return 0;
}
