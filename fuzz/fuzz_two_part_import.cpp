// libFuzzer target: a trace read in place in parts (run_in_parts) against one reading of the
// same bytes. The first two input bytes choose a cut (a fraction of the rest), the rest is the
// trace: read in two parts from that cut, then in three with a second cut from the same bytes
// swapped, in a schedule and with a second reader's start they choose, each reading once with
// the columns growing as they fill and once with the first part's reserved in pages that the
// later parts' pages move into. Every reading must fail
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

// `room`: events the first part's columns reserve in pages of their own, which the later parts'
// pages move into when they fit (none: the columns grow as they fill, and values are copied).
Reading read(const std::string& padded, std::size_t size, const std::optional<PartPlan>& plan,
             std::size_t room = 0) {
  Reading reading;
  auto source = stepscope::io::padded_memory_byte_source(padded.data(), size);
  EventSplitter splitter(*source);
  TraceBuilder builder(reading.trace);
  if (room > 0) builder.reserve(room, true);
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
  check(one.trace.events.category == two.trace.events.category);
  check(one.trace.events.event_class == two.trace.events.event_class);
  check(one.trace.events.stream == two.trace.events.stream);
  check(one.trace.events.device == two.trace.events.device);
  check(one.trace.events.correlation == two.trace.events.correlation);
  check(one.trace.events.external_id == two.trace.events.external_id);
  check(one.trace.events.args_row == two.trace.events.args_row);
  check(one.trace.events.source_offset == two.trace.events.source_offset);
  check(one.trace.events.source_length == two.trace.events.source_length);
  check(one.trace.args.size() == two.trace.args.size());
  for (std::size_t r = 0; r < one.trace.args.size(); ++r) {
    const stepscope::EventArgs& a = one.trace.args[r];
    const stepscope::EventArgs& b = two.trace.args[r];
    check(a.inputs_row == b.inputs_row && a.device_row == b.device_row &&
          a.collective_row == b.collective_row && a.sequence_number == b.sequence_number &&
          a.flops == b.flops);
  }
  check(one.trace.op_inputs.size() == two.trace.op_inputs.size());
  for (std::size_t r = 0; r < one.trace.op_inputs.size(); ++r) {
    const stepscope::OpInputs& a = one.trace.op_inputs[r];
    const stepscope::OpInputs& b = two.trace.op_inputs[r];
    check(a.shapes == b.shapes && a.dtypes == b.dtypes && a.concrete == b.concrete &&
          a.shapes_text == b.shapes_text && a.types_text == b.types_text);
  }
  check(one.trace.memory.time_ns == two.trace.memory.time_ns);
  check(one.trace.memory.thread == two.trace.memory.thread);
  check(one.trace.memory.bytes == two.trace.memory.bytes);
  check(one.trace.flows.time_ns == two.trace.flows.time_ns);
  check(one.trace.flows.category == two.trace.flows.category);
  check(one.trace.flows.thread == two.trace.flows.thread);
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
  // Room for a page of some columns and not of others, or for all of them.
  constexpr std::size_t kRooms[] = {16, 600, 4096};
  const std::size_t room = kRooms[(data[0] >> 1) % 3];
  expect_same(one, read(padded, trace_size, two, room));
  PartPlan three;
  three.cuts = {fraction(data[0], data[1]), fraction(data[1], data[0])};
  std::sort(three.cuts.begin(), three.cuts.end());
  if (three.cuts[0] == three.cuts[1]) return 0;
  three.second_from = 1 + data[0] % 2;
  const PartSchedule schedules[] = {PartSchedule::kFirstThenSecond, PartSchedule::kSecondThenFirst,
                                    PartSchedule::kTwoThreads};
  three.schedule = schedules[data[1] % 3];
  expect_same(one, read(padded, trace_size, three));
  expect_same(one, read(padded, trace_size, three, room));
  return 0;
}
