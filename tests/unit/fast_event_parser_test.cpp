// The fast event parser must agree with simdjson on every event it accepts, and decline what
// it cannot handle so that simdjson reports the error.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "importers/kineto/arg_keys.h"
#include "importers/kineto/container_scanner.h"
#include "importers/kineto/decimal.h"
#include "importers/kineto/event_parser.h"
#include "importers/kineto/event_splitter.h"
#include "importers/kineto/fast_event_parser.h"
#include "io/byte_source.h"
#include "support/shared_traces.h"

namespace stepscope::kineto {
namespace {

// A time the fast parser converted must be what the builder makes of the literal.
void expect_time_matches_literal(const RawEvent::Time& time, std::string_view literal,
                                 const std::string& where) {
  if (!time.converted) return;
  EXPECT_EQ(time.ns, microseconds_literal_to_ns(literal)) << where << " literal " << literal;
  EXPECT_EQ(time.fractional, !is_integer_literal(literal)) << where << " literal " << literal;
}

void expect_same(const RawEvent& a, const RawEvent& b, const std::string& where) {
  expect_time_matches_literal(a.ts, b.ts_literal, where);
  expect_time_matches_literal(a.dur, b.dur_literal, where);
  EXPECT_EQ(a.phase, b.phase) << where;
  EXPECT_EQ(a.name, b.name) << where;
  EXPECT_EQ(a.category, b.category) << where;
  EXPECT_EQ(a.ts_literal, b.ts_literal) << where;
  EXPECT_EQ(a.dur_literal, b.dur_literal) << where;
  EXPECT_EQ(a.has_ts, b.has_ts) << where;
  EXPECT_EQ(a.has_dur, b.has_dur) << where;
  EXPECT_EQ(a.pid.text, b.pid.text) << where;
  EXPECT_EQ(a.pid.number, b.pid.number) << where;
  EXPECT_EQ(a.pid.is_number, b.pid.is_number) << where;
  EXPECT_EQ(a.tid.text, b.tid.text) << where;
  EXPECT_EQ(a.tid.number, b.tid.number) << where;
  EXPECT_EQ(a.tid.is_number, b.tid.is_number) << where;
  EXPECT_EQ(a.pid.present, b.pid.present) << where;
  EXPECT_EQ(a.tid.present, b.tid.present) << where;
  EXPECT_EQ(a.flow_id, b.flow_id) << where;
  EXPECT_EQ(a.stream, b.stream) << where;
  EXPECT_EQ(a.device, b.device) << where;
  EXPECT_EQ(a.correlation, b.correlation) << where;
  EXPECT_EQ(a.external_id, b.external_id) << where;
  EXPECT_EQ(a.input_dims, b.input_dims) << where;
  EXPECT_EQ(a.input_types, b.input_types) << where;
  EXPECT_EQ(a.concrete_inputs, b.concrete_inputs) << where;
  EXPECT_EQ(a.collective_name, b.collective_name) << where;
  EXPECT_EQ(a.dtype, b.dtype) << where;
  EXPECT_EQ(a.process_group_name, b.process_group_name) << where;
  EXPECT_EQ(a.metadata_name, b.metadata_name) << where;
  EXPECT_EQ(a.has_event_args, b.has_event_args) << where;
  const RawArgs& x = a.numeric_args;
  const RawArgs& y = b.numeric_args;
  EXPECT_EQ(x.bytes, y.bytes) << where;
  EXPECT_EQ(x.blocks_per_sm, y.blocks_per_sm) << where;
  EXPECT_EQ(x.occupancy_percent, y.occupancy_percent) << where;
  EXPECT_EQ(x.warps_per_sm, y.warps_per_sm) << where;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(x.grid[i], y.grid[i]) << where;
    EXPECT_EQ(x.block[i], y.block[i]) << where;
  }
  EXPECT_EQ(x.registers_per_thread, y.registers_per_thread) << where;
  EXPECT_EQ(x.shared_memory, y.shared_memory) << where;
  EXPECT_EQ(x.in_msg_nelems, y.in_msg_nelems) << where;
  EXPECT_EQ(x.out_msg_nelems, y.out_msg_nelems) << where;
  EXPECT_EQ(x.group_size, y.group_size) << where;
  EXPECT_EQ(x.sequence_number, y.sequence_number) << where;
  EXPECT_EQ(x.flops, y.flops) << where;
  EXPECT_EQ(a.memory.address, b.memory.address) << where;
  EXPECT_EQ(a.memory.has_address, b.memory.has_address) << where;
  EXPECT_EQ(a.memory.bytes, b.memory.bytes) << where;
  EXPECT_EQ(a.memory.total_allocated, b.memory.total_allocated) << where;
  EXPECT_EQ(a.memory.total_reserved, b.memory.total_reserved) << where;
  EXPECT_EQ(a.memory.device_type, b.memory.device_type) << where;
  EXPECT_EQ(a.memory.device_id, b.memory.device_id) << where;
  EXPECT_EQ(a.tolerated_count, b.tolerated_count) << where;  // none: the fast path declines
}

// Parses every event of `path` both ways; returns how many the fast path took.
std::size_t compare_file(const std::string& path) {
  auto source = io::open_byte_source(path);
  EXPECT_TRUE(source.ok());
  EventSplitter splitter(**source);
  EventParser fast(true);
  EventParser slow(false);
  EventBatch batch;
  std::size_t accepted = 0;
  std::size_t total = 0;
  while (true) {
    Result<bool> more = splitter.next(batch, 1 << 20);
    if (!more.ok() || !*more) break;
    for (const EventSlice& slice : batch.events) {
      ++total;
      RawEvent a;
      RawEvent b;
      const std::size_t capacity = batch.padded().size() - slice.offset;
      RawEvent probe;
      if (fast_parse_event(batch.padded().data() + slice.offset, slice.length, probe)) ++accepted;
      const bool fast_ok = fast.parse(batch.padded().data(), slice, capacity, a).ok();
      const bool slow_ok = slow.parse(batch.padded().data(), slice, capacity, b).ok();
      EXPECT_EQ(fast_ok, slow_ok) << path << " @" << slice.file_offset;
      if (fast_ok) expect_same(a, b, path + " @" + std::to_string(slice.file_offset));
      if (::testing::Test::HasFailure()) return accepted;
    }
  }
  EXPECT_GT(total, 0U) << path;
  return accepted;
}

TEST(FastEventParser, AgreesWithSimdjsonOnEverySharedTrace) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  std::size_t accepted = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(testing::shared_traces_dir())) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.find("_et.") != std::string::npos ||
        name.find(".json") == std::string::npos) {
      continue;
    }
    accepted += compare_file(entry.path().string());
  }
  EXPECT_GT(accepted, 500000U);  // the fast path takes nearly all real events
}

TEST(FastEventParser, AgreesWithSimdjsonOnTheRecordedH100Traces) {
  for (const char* scenario : {"input_bound", "launch_bound", "memory_leak", "sync_in_loop"}) {
    EXPECT_GT(
        compare_file(std::string(STEPSCOPE_TEST_DATA) + "/h100/" + scenario + ".pt.trace.json.gz"),
        1000U);
  }
}

bool fast_accepts(const std::string& event) {
  std::string padded = event + std::string(64, ' ');
  RawEvent out;
  return fast_parse_event(padded.data(), event.size(), out);
}

// `event` followed by 64 bytes of `fill`, which the parsers must not read as part of it. The
// caller keeps it: what the parsers read points into it.
std::string padded_event(const std::string& event, char fill) {
  return event + std::string(64, fill);
}

// Whether the fast path takes the event of `length` bytes at the start of `padded`, into
// `probe`; where it does, simdjson must take it too and read the same fields.
bool expect_simdjson_agrees_where_fast_accepts(const std::string& padded, std::size_t length,
                                               RawEvent& probe) {
  const std::string event = padded.substr(0, length);
  if (!fast_parse_event(padded.data(), length, probe)) return false;
  const EventSlice slice{0, static_cast<std::uint32_t>(length), 0};
  EventParser fast(true);
  EventParser slow(false);
  RawEvent a;
  RawEvent b;
  EXPECT_TRUE(slow.parse(padded.data(), slice, padded.size(), b).ok())
      << "fast path accepted what simdjson refuses: " << event;
  EXPECT_TRUE(fast.parse(padded.data(), slice, padded.size(), a).ok()) << event;
  expect_same(a, b, event);
  return true;
}

// Times are converted while they are read when they are plain; every other literal is kept for
// the builder's exact conversion, and malformed ones are declined.
TEST(FastEventParser, ConvertsPlainTimesAndLeavesTheRestToTheBuilder) {
  struct Case {
    std::string literal;
    bool accepted;
    bool converted;
  };
  const Case cases[] = {
      {"0", true, true},
      {"7", true, true},
      {"0.5", true, true},
      {"1661203462598738", true, true},
      {"1661203462598738.123", true, true},
      // The largest integer part that leaves room for three decimals in int64 nanoseconds;
      // above it the builder's exact conversion decides (and may report it out of range).
      {"9223372036854774.999", true, true},
      {"9223372036854775", true, false},
      {"9223372036854776", true, false},
      {"12345678901234567", true, false},
      {"1.2345", true, false},
      {"1e3", true, false},
      {"-5", true, false},
      {"-0.5", true, false},
      {"1.", false, false},
      {"01", false, false},
      {".5", false, false},
      {"1.2.3", false, false},
  };
  for (const Case& c : cases) {
    const std::string event = R"({"ph":"X","ts":)" + c.literal + R"(,"dur":)" + c.literal + "}";
    std::string padded = event + std::string(64, '5');  // digits past the end must not count
    RawEvent out;
    ASSERT_EQ(fast_parse_event(padded.data(), event.size(), out), c.accepted) << c.literal;
    if (!c.accepted) continue;
    EXPECT_EQ(out.ts_literal, c.literal);
    EXPECT_EQ(out.ts.converted, c.converted) << c.literal;
    EXPECT_EQ(out.dur.converted, c.converted) << c.literal;
    expect_time_matches_literal(out.ts, c.literal, "ts");
    expect_time_matches_literal(out.dur, c.literal, "dur");
  }
}

// JSON leaves repeated keys to the reader; both parsers keep the last value. A plain time
// followed by one that is not must not keep the first one's conversion (found by the fuzzer).
TEST(FastEventParser, ARepeatedTimeKeyKeepsOnlyTheLastValue) {
  const std::string event = R"({"ph":"X","ts":7,"dur":1,"ts":76666666666666666666,"dur":2})";
  std::string padded = event + std::string(64, ' ');
  RawEvent out;
  ASSERT_TRUE(fast_parse_event(padded.data(), event.size(), out));
  EXPECT_EQ(out.ts_literal, "76666666666666666666");
  EXPECT_FALSE(out.ts.converted);
  EXPECT_TRUE(out.dur.converted);
  EXPECT_EQ(out.dur.ns, 2000);
}

TEST(FastEventParser, DeclinesWhatItCannotBeSureOf) {
  EXPECT_TRUE(fast_accepts(R"({"ph":"X","name":"a","ts":1.5,"dur":2,"pid":1,"tid":"t"})"));
  EXPECT_FALSE(fast_accepts(R"({"ph":"X","name":"a\"b","ts":1})"));        // needs unescaping
  EXPECT_FALSE(fast_accepts(R"({"ph":"X","name":1})"));                    // wrong type
  EXPECT_FALSE(fast_accepts(R"({"ph":"X","ts":01})"));                     // not a JSON number
  EXPECT_FALSE(fast_accepts(R"({"ph":"X","ts":1,})"));                     // trailing comma
  EXPECT_FALSE(fast_accepts(R"({"ph":"X","args":{"correlation":1.0}})"));  // simdjson decides
  EXPECT_FALSE(fast_accepts("{\"ph\":\"X\",\"name\":\"\xff\"}"));          // invalid UTF-8
  EXPECT_FALSE(fast_accepts(R"({"ph":"XY"})"));
  EXPECT_TRUE(
      fast_accepts(R"json({"args":{"grid":"grid(100,)","stream":"0x0","x":[1,{"y":[]}]}})json"));
}

TEST(FastEventParser, AgreesOnRandomMutationsOfARealEvent) {
  const std::string base =
      R"({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1661203463029566.5, "dur": 7, "args": {"External id": 18, "device": 3, "stream": 7, "correlation": 18, "grid": [8, 1, 1], "block": [256, 1, 1], "blocks per SM": 0.5, "Input Dims": [[1, 2]], "bytes": 12}})";
  std::mt19937 random(7);
  const std::string alphabet = "{}[]\",:0123456789.-eE \\abx";
  EventParser fast(true);
  EventParser slow(false);
  for (int round = 0; round < 20000; ++round) {
    std::string event = base;
    const int edits = 1 + static_cast<int>(random() % 3);
    for (int k = 0; k < edits; ++k) {
      event[random() % event.size()] = alphabet[random() % alphabet.size()];
    }
    std::string padded = event + std::string(64, ' ');
    const EventSlice slice{0, static_cast<std::uint32_t>(event.size()), 0};
    RawEvent a;
    RawEvent b;
    RawEvent probe;
    if (!fast_parse_event(padded.data(), event.size(), probe)) continue;
    ASSERT_TRUE(slow.parse(padded.data(), slice, padded.size(), b).ok())
        << "fast path accepted what simdjson refuses: " << event;
    ASSERT_TRUE(fast.parse(padded.data(), slice, padded.size(), a).ok());
    expect_same(a, b, event);
    if (::testing::Test::HasFailure()) return;
  }
}

// Key orders learned from earlier events change how a key is recognised, never the result:
// with them and without, the parser accepts the same events and reads the same fields, while
// the events' kinds interleave, their key orders change and random edits break keys and values.
TEST(FastEventParser, LearnedKeyOrdersNeverChangeWhatIsRead) {
  const std::vector<std::string> kinds = {
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 10, "dur": 5, "args": {"External id": 3, "Input Dims": [[2, 3], [3]], "Input type": ["float", ""], "Call stack": ""}})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 10, "dur": 5, "args": {"External id": 3, "Sequence number": 9, "Input Dims": [[2, 3]], "Call stack": ""}})",
      R"({"ph": "f", "id": 18, "pid": 1, "tid": 2, "ts": 11, "cat": "ac2g", "name": "flow", "bp": "e"})",
      R"({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 12.5, "dur": 7, "args": {"External id": 18, "device": 3, "stream": 7, "correlation": 18, "grid": [8, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %": 50}})",
      R"({"name": "aten::add", "ph": "X", "ts": 13, "dur": 1, "pid": "host", "tid": "main", "cat": "cpu_op"})",
      R"({"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 2, "ts": 14, "s": "t", "args": {"Addr": 94, "Bytes": 512, "Total Allocated": 512, "Total Reserved": 2048, "Device Type": 1, "Device Id": 0}})",
  };
  std::mt19937 random(11);
  const std::string alphabet = "{}[]\",:0123456789.-eE \\abx";
  LearnedKeyOrders orders;
  std::size_t accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string event = kinds[random() % kinds.size()];
    if (round % 2 == 1) {  // every other event edited, so that orders learned stay mostly right
      const int edits = 1 + static_cast<int>(random() % 3);
      for (int k = 0; k < edits; ++k) {
        event[random() % event.size()] = alphabet[random() % alphabet.size()];
      }
    }
    const std::string padded = event + std::string(64, ' ');
    RawEvent learned;
    RawEvent plain;
    const bool learned_ok = fast_parse_event(padded.data(), event.size(), learned, false, &orders);
    const bool plain_ok = fast_parse_event(padded.data(), event.size(), plain);
    ASSERT_EQ(learned_ok, plain_ok) << event;
    if (learned_ok) {
      ++accepted;
      expect_same(learned, plain, event);
    }
    RawEvent learned_at;
    RawEvent plain_at;
    ASSERT_EQ(fast_parse_event_at(padded.data(), padded.data() + event.size(), learned_at, &orders),
              fast_parse_event_at(padded.data(), padded.data() + event.size(), plain_at))
        << event;
    expect_same(learned_at, plain_at, event);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(accepted, 10000U);  // the unedited half at least
}

// The readers teach the orders they are given: after one CPU op, its keys are expected, each at
// its position, in the event's order and in its category's args order.
TEST(FastEventParser, ReadingAnEventTeachesItsKeyOrders) {
  const std::string event =
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 10, "dur": 5, "args": {"External id": 3, "Call stack": ""}})";
  const std::string padded = event + std::string(64, ' ');
  for (const bool at : {false, true}) {
    LearnedKeyOrders orders;
    RawEvent out;
    if (at) {
      ASSERT_EQ(fast_parse_event_at(padded.data(), padded.data() + event.size(), out, &orders),
                event.size());
    } else {
      ASSERT_TRUE(fast_parse_event(padded.data(), event.size(), out, false, &orders));
    }
    const std::string tail(64, ' ');
    EventKey key = EventKey::kOther;
    EXPECT_EQ(orders.for_event('X')->match(1, (R"( "cat": )" + tail).data(), key), 8U) << at;
    EXPECT_EQ(key, EventKey::kCategory);
    EXPECT_EQ(orders.for_event('X')->match(7, (R"( "args": )" + tail).data(), key), 9U) << at;
    EXPECT_EQ(key, EventKey::kArgs);
    ArgKey arg = ArgKey::kOther;
    EXPECT_EQ(orders.for_args("cpu_op")->match(0, (R"("External id": )" + tail).data(), arg), 15U)
        << at;
    EXPECT_EQ(arg, ArgKey::kExternalId);
    EXPECT_EQ(orders.for_args("cpu_op")->match(1, (R"( "Call stack": )" + tail).data(), arg), 15U)
        << at;
  }
}

}  // namespace
}  // namespace stepscope::kineto

namespace stepscope::kineto {
namespace {

TEST(FastEventParser, DeclinesRawControlCharacters) {
  // Found by fuzz_event_parsers: simdjson refuses a raw NUL in a key.
  EXPECT_FALSE(fast_accepts(std::string("{\"trac\0eEvents\": []}", 20)));
  EXPECT_FALSE(fast_accepts("{\"name\":\"a\tb\"}"));
  EXPECT_TRUE(fast_accepts("{\"name\":\"ab\",\n\t\"ph\":\"X\"}"));
}

}  // namespace
}  // namespace stepscope::kineto

namespace stepscope::kineto {
namespace {

TEST(FastEventParser, LeavesOddNumbersAndBrokenSkippedValuesToSimdjson) {
  // Found by fuzz_event_parsers: simdjson refuses these, so the fast path must decline them.
  EXPECT_FALSE(fast_accepts(R"({"args":{"warps per SM":0.0E00999299999999002999}})"));
  EXPECT_FALSE(fast_accepts(R"({"args":{"x":[1 2]}})"));
  EXPECT_FALSE(fast_accepts(R"({"args":{"x":{"a" 1}}})"));
  EXPECT_TRUE(fast_accepts(R"({"args":{"warps per SM":12.5e-1,"x":{"a":[1,{"b":null}]}}})"));
}

}  // namespace
}  // namespace stepscope::kineto

namespace stepscope::kineto {
namespace {

// The fast path reads short plain integers itself and hands the rest to the general reader:
// on either side of that line it must still agree with simdjson or decline.
TEST(FastEventParser, IntegersAtTheEdgesOfItsOwnDigitLoop) {
  for (const char* literal : {"0",
                              "-0",
                              "7",
                              "-7",
                              "007",
                              "-",
                              "1.0",
                              "1e3",
                              "12a",
                              "123456789012345",
                              "1234567890123456",
                              "-9999999999999999",
                              "12345678901234567",
                              "999999999999999999",
                              "1000000000000000000",
                              "9223372036854775807",
                              "9223372036854775808",
                              "-9223372036854775808",
                              "-9223372036854775809",
                              "12345678901234567890123"}) {
    for (const char* key : {"\"pid\"", "\"External id\""}) {
      const std::string field = std::string(key) + ": " + literal;
      const std::string event = std::string(key)[1] == 'p'
                                    ? "{\"ph\":\"X\"," + field + "}"
                                    : "{\"ph\":\"X\",\"args\":{" + field + "}}";
      const std::string padded = padded_event(event, '9');  // digits after the end must not count
      RawEvent probe;
      expect_simdjson_agrees_where_fast_accepts(padded, event.size(), probe);
    }
  }
  EXPECT_FALSE(fast_accepts(R"({"ph":"X","pid":007})"));
  EXPECT_FALSE(fast_accepts(R"({"ph":"X","args":{"External id":1.0}})"));
  EXPECT_FALSE(fast_accepts(R"({"ph":"X","args":{"External id":9223372036854775808}})"));
  EXPECT_TRUE(fast_accepts(R"({"ph":"X","args":{"External id":-9223372036854775808}})"));
}

}  // namespace
}  // namespace stepscope::kineto

namespace stepscope::kineto {
namespace {

TEST(FastEventParser, SkipsNestingUpToItsDepthLimitAndDeclinesBeyond) {
  const auto nested = [](std::size_t depth, bool objects) {
    std::string value;
    for (std::size_t i = 0; i < depth; ++i) value += objects ? "{\"k\":" : "[";
    value += "1";
    for (std::size_t i = 0; i < depth; ++i) value += objects ? "}" : "]";
    return R"({"ph":"X","args":{"skipped":)" + value + "}}";
  };
  for (const bool objects : {false, true}) {
    EXPECT_TRUE(fast_accepts(nested(kMaxContainerDepth, objects)));
    EXPECT_FALSE(fast_accepts(nested(kMaxContainerDepth + 1, objects)));
  }
  // Mixed nesting, empty containers and every separator in their places.
  EXPECT_TRUE(fast_accepts(R"({"args":{"x":[{},[],{"a":[1,{"b":[]}],"c":{}},[[]]]}})"));
  EXPECT_FALSE(fast_accepts(R"({"args":{"x":[{"a":1]]}})"));  // closed by the wrong bracket
  EXPECT_FALSE(fast_accepts(R"({"args":{"x":{"a":1,}}})"));   // trailing comma in an object
  EXPECT_FALSE(fast_accepts(R"({"args":{"x":[1,]}})"));       // trailing comma in an array
  EXPECT_FALSE(fast_accepts(R"({"args":{"x":{1:2}}})"));      // a key that is not a string
}

}  // namespace
}  // namespace stepscope::kineto

namespace stepscope::kineto {
namespace {

// Read where it lies (fast_parse_event_at), an event's end is found by the parser itself: it
// must be where the bracket scan ends it, with the fields read from the measured text, whatever
// follows it; and it must decline whatever fast_parse_event declines.
TEST(FastEventParser, ReadingAtAnEventEndsItWhereTheBracketScanDoes) {
  const std::string base =
      R"({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1661203463029566.5, "dur": 7, "args": {"External id": 18, "stream": 7, "grid": [8, 1, 1], "Input Dims": [[1, 2]], "note": "a\"b"}})";
  const std::string after = R"(, {"ph": "X", "name": "next"}])";
  std::mt19937 random(11);
  const std::string alphabet = "{}[]\",:0123456789.-eE \\abx";
  std::size_t accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string event = base;
    const int edits = static_cast<int>(random() % 3);
    for (int k = 0; k < edits; ++k) {
      event[random() % event.size()] = alphabet[random() % alphabet.size()];
    }
    const std::string text = event + after;
    const std::string padded = text + std::string(64, ' ');
    RawEvent at;
    const std::size_t length = fast_parse_event_at(padded.data(), padded.data() + text.size(), at);
    if (length == 0) continue;
    ++accepted;
    ASSERT_EQ(length, find_container_end(padded.data(), text.size())) << text;
    RawEvent measured;
    ASSERT_TRUE(fast_parse_event(padded.data(), length, measured)) << text;
    expect_same(at, measured, text);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(accepted, 1000U);  // the unmutated event among them
}

std::size_t read_at(const std::string& event) {
  const std::string padded = event + std::string(64, ' ');
  RawEvent out;
  return fast_parse_event_at(padded.data(), padded.data() + event.size(), out);
}

TEST(FastEventParser, ReadingAtAnEventDeclinesBytesAboveAscii) {
  for (const std::string event :
       {R"({"ph": "X", "name": "naïve"})", R"({"ph": "X", "args": {"note": "✓"}})"}) {
    EXPECT_EQ(read_at(event), 0U) << event;
    // Measured and checked as UTF-8, the same event is read.
    EXPECT_TRUE(fast_accepts(event)) << event;
  }
  // Escaped, the byte is still no valid UTF-8 on its own (found by fuzz_event_parsers).
  const std::string escaped = std::string(R"({"ph": "X", "args": {"a\)") + '\xd5' + R"(": 1}})";
  EXPECT_EQ(read_at(escaped), 0U);
  EXPECT_FALSE(fast_accepts(escaped));
  const std::string ascii = R"({"ph": "X", "name": "naive"})";
  EXPECT_EQ(read_at(ascii), ascii.size());
}

}  // namespace
}  // namespace stepscope::kineto

namespace stepscope::kineto {
namespace {

// The shape lists of an op ("Input Dims", "Input type") are kept as raw text after the fast path
// checks their grammar: whatever it takes must be what simdjson reads, the rest is declined.
TEST(FastEventParser, ShapeListsAgreeWithSimdjsonOrAreDeclined) {
  const char* const lists[] = {"[]",
                               "[ ]",
                               "[[]]",
                               "[[], [], [1]]",
                               "[[4096, 1024], [1024]]",
                               "[ [ 1 , 2 ] , [ ] ]",
                               R"(["float", "", "Scalar"])",
                               R"(["a\"b"])",
                               R"(["\u00e9"])",
                               "[-1, 0, 7]",
                               "[[-3]]",
                               "[[1, 2.5]]",
                               "[[1e3]]",
                               "[[01]]",
                               "[[-]]",
                               "[[1,]]",
                               "[1,]",
                               "[,]",
                               "[[1 2]]",
                               "[[[1]]]",
                               R"([{"a": 1}])",
                               "[true, null]",
                               "[[1234567890123456]]",
                               "[[12345678901234567]]",
                               "[",
                               "[[1",
                               R"(["unterminated)",
                               "[\"x\"]",
                               R"(["tab\there"])",
                               "[[1]\n]",
                               "[\t1,\r\n2 ]",
                               R"([["a"], [1, ["b", []]]])",
                               "[-0]",
                               "[--1]",
                               "[1-]",
                               R"(["a" "b"])",
                               "[[]]]",
                               "[[1],[2]],"};
  std::size_t taken = 0;
  for (const char* list : lists) {
    const std::string event = std::string(R"({"ph":"X","args":{"Input Dims":)") + list +
                              R"(,"Input type":)" + list + "}}";
    const std::string padded = padded_event(event, ' ');
    RawEvent probe;
    if (!expect_simdjson_agrees_where_fast_accepts(padded, event.size(), probe)) continue;
    ++taken;
    EXPECT_EQ(probe.input_dims, list);
    EXPECT_EQ(probe.input_types, list);
  }
  EXPECT_GE(taken, 12U);  // the valid lists above
  EXPECT_FALSE(fast_accepts(R"({"args":{"Input Dims":[[1,]]}})"));
  EXPECT_FALSE(fast_accepts(R"({"args":{"Input Dims":[[01]]}})"));
  EXPECT_TRUE(fast_accepts(R"({"args":{"Input Dims":[[1, 2.5], [[3]], {"a": [4]}]}})"));
}

// A list cut short by the event's end is declined, whatever bytes follow that end: brackets,
// quotes, digits and commas there must not close it. For lists that are kept and lists that are
// skipped alike. The decline is the whole parser's: a list loop that read past the end would
// still leave nothing to close the event, so this guards the outcome, not the loop's bounds.
TEST(FastEventParser, ListsCutShortAtTheEventsEndAreDeclined) {
  for (const char* key : {"Input Dims", "Input Strides"}) {
    for (const char* cut : {"[", "[[", "[[1", "[[1,", "[[1, ", "[\"a", "[\"a\"", "[[], "}) {
      for (const char fill : {' ', '[', ']', '"', '1', ','}) {
        const std::string event = std::string(R"({"ph":"X","args":{")") + key + "\":" + cut;
        RawEvent probe;
        EXPECT_FALSE(fast_parse_event(padded_event(event, fill).data(), event.size(), probe))
            << event << " followed by " << fill;
      }
    }
  }
}

// Every key of the table (arg_keys.h) with a value of each JSON type: where the fast path takes
// the event, simdjson reads the same; and it takes at least the plain values of each kind.
TEST(FastEventParser, ReadsEveryKeyAsSimdjsonDoes) {
  const std::vector<std::string> values = {"7",           "-3",
                                           "0",           "1.5",
                                           "1e2",         R"("s")",
                                           R"("12")",     R"("")",
                                           "[1, 2, 3]",   "[[1, 2], [3]]",
                                           R"({"a": 1})", "null",
                                           "true",        "18446744073709551615",
                                           "[]"};
  std::size_t accepted = 0;
  for (const auto& spelling : arg_key_spellings()) {
    for (const std::string& value : values) {
      const std::string event = R"({"ph": "X", "name": "k", "ts": 1, "dur": 2, "args": {")" +
                                std::string(spelling.text) + "\": " + value + "}}";
      const std::string padded = padded_event(event, ' ');
      RawEvent probe;
      if (expect_simdjson_agrees_where_fast_accepts(padded, event.size(), probe)) ++accepted;
    }
  }
  for (const auto& spelling : event_key_spellings()) {
    for (const std::string& value : values) {
      const std::string event = R"({")" + std::string(spelling.text) + "\": " + value + "}";
      const std::string padded = padded_event(event, ' ');
      RawEvent probe;
      if (expect_simdjson_agrees_where_fast_accepts(padded, event.size(), probe)) ++accepted;
    }
  }
  EXPECT_GT(accepted, 2 * (arg_key_spellings().size() + event_key_spellings().size()));
}

}  // namespace
}  // namespace stepscope::kineto
