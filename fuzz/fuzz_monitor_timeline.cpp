// libFuzzer target: the monitor-timeline reader behind `stepscope report TIMELINE.json`, then
// its HTML page on whatever parses. A refusal is fine; a crash, a leak or UB is not.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "stepscope/live/timeline_document.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto document = stepscope::live::parse_timeline_document(text, "fuzz.json");
  if (!document) return 0;
  (void)stepscope::live::render_monitor_html(*document);
  return 0;
}
