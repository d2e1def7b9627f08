// libFuzzer target: the Chrome-trace JSON importer on arbitrary bytes. It must either load a
// Trace or return an Error that names the input, never crash, hang or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "stepscope/load.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string name = "fuzz.json";
  stepscope::Result<stepscope::Trace> trace = stepscope::load_trace_text(text, name);
  if (!trace) {
    const stepscope::Error& error = trace.error();
    check(error.file == name);
    check(!error.message.empty());
    if (error.byte_offset) check(*error.byte_offset <= size);
    check(error.describe().find(name) != std::string::npos);
    return 0;
  }
  check(trace->source_path == name);
  check(trace->stats.events_seen > 0);
  return 0;
}
