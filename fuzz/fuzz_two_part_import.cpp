// libFuzzer target: a trace read in place in parts (run_in_parts) against one reading of the
// same bytes. The first two input bytes choose a cut (a fraction of the rest), the rest is the
// trace: read in two parts from that cut, then in three with a second cut from the same bytes
// swapped, in a schedule and with a second reader's start they choose. Every reading must fail
// with the same error as one reading, or load the same events; none may crash, hang or read out
// of bounds.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "importers/kineto/event_splitter.h"
#include "importers/kineto/pipeline.h"
#include "importers/kineto/read_in_parts.h"
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

Reading read(const std::string& padded, std::size_t size, const std::optional<PartPlan>& plan) {
  Reading reading;
  auto source = stepscope::io::padded_memory_byte_source(padded.data(), size);
  EventSplitter splitter(*source);
  TraceBuilder builder(reading.trace);
  stepscope::Status status = plan ? run_in_parts(splitter, builder, *source, *plan, 64, {})
                                  : run_sequential(splitter, builder, {});
  if (status) status = builder.finish(splitter.top_level(), 1);
  if (!status) reading.error = status.error();
  return reading;
}

void expect_same(const Reading& one, const Reading& two) {
  check(one.error.has_value() == two.error.has_value());
  if (one.error) {
    check(one.error->message == two.error->message);
    check(one.error->byte_offset == two.error->byte_offset);
    return;
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
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t trace_size = size - 2;
  // The scanners read up to 64 bytes past the end, as a mapping allows.
  std::string padded(reinterpret_cast<const char*>(data) + 2, trace_size);
  padded.append(64, '\0');
  const auto fraction = [trace_size](std::uint8_t high, std::uint8_t low) {
    return (trace_size * (static_cast<std::uint64_t>(high) << 8 | low)) >> 16;
  };
  const Reading one = read(padded, trace_size, std::nullopt);
  PartPlan two;
  two.cuts = {fraction(data[0], data[1])};
  expect_same(one, read(padded, trace_size, two));
  PartPlan three;
  three.cuts = {fraction(data[0], data[1]), fraction(data[1], data[0])};
  std::sort(three.cuts.begin(), three.cuts.end());
  if (three.cuts[0] == three.cuts[1]) return 0;
  three.second_from = 1 + data[0] % 2;
  const PartSchedule schedules[] = {PartSchedule::kFirstThenSecond, PartSchedule::kSecondThenFirst,
                                    PartSchedule::kTwoThreads};
  three.schedule = schedules[data[1] % 3];
  expect_same(one, read(padded, trace_size, three));
  return 0;
}
