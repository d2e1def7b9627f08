#include "diagnosis/code_attribution.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

namespace stepscope {

namespace {

using LocationKey = std::tuple<std::string, std::int64_t, std::string, std::string>;

// The longest event of each name: refs may mark a moment inside their events (an allocation
// inside an op), so the search starts that much before the refs' first time.
std::vector<std::int64_t> longest_by_name(const Trace& trace) {
  std::vector<std::int64_t> longest(trace.strings.size(), 0);
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    std::int64_t& at = longest[trace.events.name[i]];
    at = std::max(at, trace.events.dur_ns[i]);
  }
  return longest;
}

std::optional<CodeLocation> dominant_location(const Trace& trace, const CodeContext& context,
                                              const std::vector<std::int64_t>& longest,
                                              const Finding& finding) {
  const EventTable& e = trace.events;
  std::map<LocationKey, std::int64_t> weight;
  for (const Evidence& evidence : finding.evidence) {
    for (const EventRefs& refs : evidence.events) {
      const StringId name = trace.strings.find(refs.name);
      if (name == StringPool::kNotInterned) continue;
      auto at = std::lower_bound(e.start_ns.begin(), e.start_ns.end(),
                                 refs.first_start_ns - longest[name]);
      for (auto i = static_cast<EventIndex>(at - e.start_ns.begin());
           i < static_cast<EventIndex>(e.size()) && e.start_ns[i] <= refs.last_end_ns; ++i) {
        if (e.name[i] != name || e.end_ns(i) < refs.first_start_ns) continue;
        CodeLocation location = locate(trace, context, i);
        if (location.empty()) continue;
        weight[{std::move(location.file), location.line, std::move(location.function),
                std::move(location.module_path)}] += std::max<std::int64_t>(e.dur_ns[i], 1);
      }
    }
  }
  if (weight.empty()) return std::nullopt;
  const auto best =
      std::max_element(weight.begin(), weight.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  const auto& [file, line, function, module] = best->first;
  return CodeLocation{file, line, function, module};
}

}  // namespace

void attribute_code(const RankAnalyses& rank, std::vector<Finding>& findings) {
  if (rank.code.empty()) return;
  const std::vector<std::int64_t> longest = longest_by_name(*rank.trace);
  for (Finding& finding : findings) {
    if (finding.code) continue;  // the rule named the code itself (sampled input functions)
    finding.code = dominant_location(*rank.trace, rank.code, longest, finding);
  }
}

}  // namespace stepscope
