#include "render/dropped_data.h"

#include <fmt/format.h>

#include "render/text_format.h"

namespace stepscope::render {

std::vector<std::string> dropped_events(const Trace& trace) {
  const ImportStats& s = trace.stats;
  std::vector<std::string> lines;
  if (s.invalid_complete_events > 0) {
    lines.push_back(fmt::format("skipped {} complete events without ts/dur or with dur < 0",
                                format_count(s.invalid_complete_events)));
  }
  if (s.unmatched_begin_end > 0) {
    lines.push_back(
        fmt::format("skipped {} unmatched B/E events", format_count(s.unmatched_begin_end)));
  }
  return lines;
}

}  // namespace stepscope::render
