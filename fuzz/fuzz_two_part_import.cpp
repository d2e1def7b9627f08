// libFuzzer target: a trace read in place as two parts at once (run_in_two_parts) against one
// reading of the same bytes. The first two input bytes choose the cut (a fraction of the
// rest), the rest is the trace. Both readings must fail with the same error, or both load the
// same events; neither may crash, hang or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "importers/kineto/event_splitter.h"
#include "importers/kineto/pipeline.h"
#include "importers/kineto/trace_builder.h"
#include "io/byte_source.h"

namespace {

using stepscope::Trace;
using namespace stepscope::kineto;

void check(bool condition) {
  if (!condition) std::abort();
}

struct Reading {
  Trace trace;
  std::optional<stepscope::Error> error;
};

Reading read(const std::string& padded, std::size_t size, std::optional<std::uint64_t> cut) {
  Reading reading;
  auto source = stepscope::io::padded_memory_byte_source(padded.data(), size);
  EventSplitter splitter(*source);
  TraceBuilder builder(reading.trace);
  stepscope::Status status = cut ? run_in_two_parts(splitter, builder, *source, *cut, 64, {})
                                 : run_sequential(splitter, builder, {});
  if (status) status = builder.finish(splitter.top_level(), 1);
  if (!status) reading.error = status.error();
  return reading;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t trace_size = size - 2;
  // The scanners read up to 64 bytes past the end, as a mapping allows.
  std::string padded(reinterpret_cast<const char*>(data) + 2, trace_size);
  padded.append(64, '\0');
  const std::uint64_t cut =
      (trace_size * (static_cast<std::uint64_t>(data[0]) << 8 | data[1])) >> 16;
  const Reading one = read(padded, trace_size, std::nullopt);
  const Reading two = read(padded, trace_size, cut);
  check(one.error.has_value() == two.error.has_value());
  if (one.error) {
    check(one.error->message == two.error->message);
    check(one.error->byte_offset == two.error->byte_offset);
    return 0;
  }
  check(one.trace.events.size() == two.trace.events.size());
  check(one.trace.events.start_ns == two.trace.events.start_ns);
  check(one.trace.events.dur_ns == two.trace.events.dur_ns);
  check(one.trace.events.name == two.trace.events.name);
  check(one.trace.events.thread == two.trace.events.thread);
  check(one.trace.strings.size() == two.trace.strings.size());
  check(one.trace.threads.size() == two.trace.threads.size());
  check(one.trace.stats.events_seen == two.trace.stats.events_seen);
  check(one.trace.stats.unmatched_begin_end == two.trace.stats.unmatched_begin_end);
  return 0;
}
