// libFuzzer target: the saved memory-plan measurement behind `stepscope plan MEASUREMENT.json`,
// then the plan and both renderings on whatever parses. The first input byte picks the options
// (shards, effective batch), the rest is the document. A refusal is fine; a crash, a leak or UB
// is not.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "stepscope/memory/plan.h"
#include "stepscope/memory/plan_document.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t options = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  auto measured = stepscope::memory::parse_plan_measurement(text, "fuzz.json");
  if (!measured) return 0;
  measured->shards = 1 + (options & 0x0f);
  measured->effective_batch = (options >> 4) * 37;
  auto plan = stepscope::memory::plan_memory(*measured);
  if (!plan) return 0;
  (void)stepscope::memory::render_plan_text(*plan);
  (void)stepscope::memory::render_plan_json(*plan);
  return 0;
}
