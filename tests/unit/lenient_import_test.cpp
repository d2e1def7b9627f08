// Forgiving where the data is optional, strict where it matters: wrongly typed optional fields
// are parsed (numeric strings) or treated as absent and noted, unusable events are skipped and
// noted, the array form may lack its closing ']', and duplicate correlation ids are linked by
// the nearest launch. Both event parsers (fast path and simdjson) give the same result.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "stepscope/load.h"

namespace stepscope {
namespace {

namespace fs = std::filesystem;

class LenientImport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("stepscope_lenient_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Loads `json` as a file with one and with two threads (both must agree) and returns it.
  TraceSet load(const std::string& json) {
    const fs::path path = dir_ / "trace.json";
    std::ofstream(path, std::ios::binary) << json;
    LoadOptions one;
    one.threads = 1;
    Result<TraceSet> a = load_traces(path.string(), one);
    EXPECT_TRUE(a.ok()) << (a.ok() ? "" : a.error().describe());
    LoadOptions two;
    two.threads = 2;
    Result<TraceSet> b = load_traces(path.string(), two);
    EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().describe());
    if (!a.ok() || !b.ok()) return {};
    EXPECT_EQ(a->notes, b->notes);
    EXPECT_EQ(a->ranks.front().events.size(), b->ranks.front().events.size());
    return std::move(a).value();
  }
  static bool has_note(const TraceSet& set, std::string_view text) {
    for (const std::string& note : set.notes) {
      if (note.find(text) != std::string::npos) return true;
    }
    return false;
  }
  static std::string note_with(const TraceSet& set, std::string_view text) {
    for (const std::string& note : set.notes) {
      if (note.find(text) != std::string::npos) return note;
    }
    return {};
  }

  fs::path dir_;
};

TEST_F(LenientImport, NumericStringsInOptionalArgsAreParsedAndNoted) {
  const TraceSet set = load(
      R"({"traceEvents":[)"
      R"({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":10,"dur":5,"args":{"bytes":"4096","correlation":"3","device":0,"stream":7}},)"
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":8,"dur":1,"args":{"correlation":3}},)"
      R"({"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":9,"args":{"Addr":1,"Bytes":"4096","Total Allocated":"4096","Total Reserved":8192,"Device Type":1,"Device Id":0}})"
      R"(]})");
  ASSERT_EQ(set.ranks.size(), 1U);
  const Trace& trace = set.ranks.front();
  EventIndex memcpy_event = kNoEvent;
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    if (trace.name_of(i) == "Memcpy HtoD") memcpy_event = i;
  }
  ASSERT_NE(memcpy_event, kNoEvent);
  ASSERT_NE(trace.device_args_of(memcpy_event), nullptr);
  EXPECT_EQ(trace.device_args_of(memcpy_event)->bytes, 4096);
  EXPECT_EQ(trace.events.correlation[memcpy_event], 3);
  EXPECT_NE(trace.events.launcher[memcpy_event], kNoEvent);  // linked through the parsed id
  ASSERT_EQ(trace.memory.size(), 1U);
  EXPECT_EQ(trace.memory.bytes[0], 4096);
  const std::string bytes = note_with(set, "args.bytes held a numeric string");
  EXPECT_NE(bytes.find("1 event, the first at byte 16"), std::string::npos) << bytes;
  EXPECT_TRUE(has_note(set, "args.Bytes held a numeric string"));
  EXPECT_TRUE(has_note(set, "args.correlation held a numeric string"));
}

TEST_F(LenientImport, WrongTypesInOptionalFieldsAreAbsentAndNoted) {
  const TraceSet set = load(
      R"({"traceEvents":[)"
      R"({"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":10,"dur":5,"args":{"est. achieved occupancy %":null,"correlation":{"a":1},"grid":["x",1,1]}},)"
      R"({"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":null,"ts":1,"dur":2,"args":null},)"
      R"({"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":3,"dur":2,"args":[1,2]},)"
      R"({"ph":"X","cat":"cpu_op","name":"c","pid":1,"tid":1,"ts":"5","dur":"1.5"},)"
      R"({"ph":"X","cat":"cpu_op","name":"d","pid":1,"tid":1,"ts":"soon","dur":1},)"
      R"({"ph":5,"cat":"cpu_op","name":"e","pid":1,"tid":1,"ts":1,"dur":1},)"
      R"({"cat":"cpu_op","name":"f","pid":1,"tid":1,"ts":1,"dur":1})"
      R"(]})");
  ASSERT_EQ(set.ranks.size(), 1U);
  const Trace& trace = set.ranks.front();
  // k1, a, b and c are kept; d has no usable ts; e and f have no usable phase.
  EXPECT_EQ(trace.events.size(), 4U);
  EXPECT_EQ(trace.stats.invalid_complete_events, 1U);
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    if (trace.name_of(i) == "c") {
      EXPECT_EQ(trace.events.start_ns[i], 5000);
      EXPECT_EQ(trace.events.dur_ns[i], 1500);
    }
    if (trace.name_of(i) == "k1") {
      EXPECT_LT(trace.events.correlation[i], 0);
      ASSERT_NE(trace.args_of(i), nullptr);
      // The unusable triple is left out whole, and with it every device field: no row.
      EXPECT_EQ(trace.device_args_of(i), nullptr);
    }
  }
  for (const char* field :
       {"args.est. achieved occupancy % had the wrong type", "args.correlation had the wrong type",
        "args had the wrong type", "ts held a numeric string", "dur held a numeric string",
        "ts had the wrong type", "ph had the wrong type", "without a usable \"ph\"",
        "tid had the wrong type"}) {
    EXPECT_TRUE(has_note(set, field)) << field;
  }
  EXPECT_NE(note_with(set, "args had the wrong type").find("2 events"), std::string::npos);
}

TEST_F(LenientImport, ALoneSurrogateInANameIsReplacedAndNoted) {
  // \ud800 without its low half, \udc00 alone, and a proper pair for contrast.
  const TraceSet set =
      load(R"({"traceEvents":[)"
           R"({"ph":"X","cat":"cpu_op","name":"aten::mm\ud800x","pid":1,"tid":1,"ts":1,"dur":2},)"
           R"({"ph":"X","cat":"cpu_op","name":"\udc00lone","pid":1,"tid":1,"ts":4,"dur":2},)"
           R"({"ph":"X","cat":"cpu_op","name":"pair\ud83d\ude00","pid":1,"tid":1,"ts":7,"dur":2})"
           R"(]})");
  ASSERT_EQ(set.ranks.size(), 1U);
  const Trace& trace = set.ranks.front();
  ASSERT_EQ(trace.events.size(), 3U);
  std::vector<std::string> names = {std::string(trace.name_of(0)), std::string(trace.name_of(1)),
                                    std::string(trace.name_of(2))};
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"aten::mm\xef\xbf\xbdx", "pair\xf0\x9f\x98\x80",
                                             "\xef\xbf\xbdlone"}));
  const std::string note = note_with(set, "name held a lone UTF-16 surrogate, replaced by U+FFFD");
  EXPECT_NE(note.find("2 events"), std::string::npos) << note;
}

TEST_F(LenientImport, ArrayFormWithoutClosingBracketIsAccepted) {
  const std::string events =
      R"([{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":2},)"
      R"({"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":4,"dur":2})";
  for (const std::string& text : {events, events + ",", events + ",\n  "}) {
    const TraceSet set = load(text);
    ASSERT_EQ(set.ranks.size(), 1U) << text;
    EXPECT_EQ(set.ranks.front().events.size(), 2U);
    EXPECT_TRUE(has_note(set, "no closing ']'")) << text;
  }
  // Cut inside an event, the trace cannot be trusted: still refused.
  const fs::path path = dir_ / "cut.json";
  std::ofstream(path) << events.substr(0, events.size() - 10);
  EXPECT_FALSE(load_traces(path.string()).ok());
  // The object form needs its brackets.
  std::ofstream(path) << R"({"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1})";
  EXPECT_FALSE(load_traces(path.string()).ok());
}

TEST_F(LenientImport, DuplicateCorrelationIdsLinkTheNearestEarlierLaunch) {
  const TraceSet set = load(
      R"({"traceEvents":[)"
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":1,"args":{"correlation":5}},)"
      R"({"ph":"X","cat":"kernel","name":"first","pid":0,"tid":7,"ts":12,"dur":3,"args":{"correlation":5,"stream":7,"device":0}},)"
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":100,"dur":1,"args":{"correlation":5}},)"
      R"({"ph":"X","cat":"kernel","name":"second","pid":0,"tid":7,"ts":103,"dur":3,"args":{"correlation":5,"stream":7,"device":0}})"
      R"(]})");
  ASSERT_EQ(set.ranks.size(), 1U);
  const Trace& trace = set.ranks.front();
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    if (trace.name_of(i) != "first" && trace.name_of(i) != "second") continue;
    const EventIndex launch = trace.events.launcher[i];
    ASSERT_NE(launch, kNoEvent);
    EXPECT_EQ(trace.events.start_ns[launch], trace.name_of(i) == "first" ? 10000 : 100000)
        << trace.name_of(i);
  }
  EXPECT_TRUE(has_note(set, "correlation ids shared by several launch calls"));
}

// The linker splits correlation ids into a lower and an upper half (one per thread): shared
// ids in both halves are linked alike, and the note counts every repeated call in one line, at
// the first repeat's offset.
TEST_F(LenientImport, SharedCorrelationIdsInBothHalvesOfTheIdRangeAreLinkedAndCounted) {
  auto launch = [](int ts, int id) {
    return R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
           std::to_string(ts) + R"(,"dur":1,"args":{"correlation":)" + std::to_string(id) + "}}";
  };
  auto kernel = [](const std::string& name, int ts, int id) {
    return R"({"ph":"X","cat":"kernel","name":")" + name + R"(","pid":0,"tid":7,"ts":)" +
           std::to_string(ts) + R"(,"dur":2,"args":{"correlation":)" + std::to_string(id) +
           R"(,"stream":7,"device":0}})";
  };
  const std::string events[] = {
      launch(10, 5),   kernel("low_first", 12, 5),
      launch(20, 6),   kernel("alone", 22, 6),
      launch(30, 5),   kernel("low_second", 32, 5),
      launch(40, 900), kernel("high_first", 42, 900),
      launch(50, 900), kernel("high_second", 52, 900),
      launch(60, 901), kernel("high_third", 62, 900),
      launch(70, 901),
  };
  std::string json = R"({"traceEvents":[)";
  for (const std::string& event : events) json += event + ",";
  json.back() = ']';
  json += "}";
  const std::size_t first_repeat = json.find(launch(30, 5));
  const TraceSet set = load(json);
  ASSERT_EQ(set.ranks.size(), 1U);
  const Trace& trace = set.ranks.front();
  const std::map<std::string_view, std::int64_t> expected_launch_us = {
      {"low_first", 10},  {"alone", 20},       {"low_second", 30},
      {"high_first", 40}, {"high_second", 50}, {"high_third", 50}};
  std::size_t checked = 0;
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    const auto expected = expected_launch_us.find(trace.name_of(i));
    if (expected == expected_launch_us.end()) continue;
    const EventIndex by = trace.events.launcher[i];
    ASSERT_NE(by, kNoEvent) << trace.name_of(i);
    EXPECT_EQ(trace.events.start_ns[by], expected->second * 1000) << trace.name_of(i);
    ++checked;
  }
  EXPECT_EQ(checked, expected_launch_us.size());
  // Calls at 30 (id 5), 50 (id 900) and 70 (id 901) repeat an earlier call's id.
  const std::string note = note_with(set, "correlation ids shared by several launch calls");
  EXPECT_NE(note.find("(3 events, the first at byte " + std::to_string(first_repeat) + ")"),
            std::string::npos)
      << note;
}

TEST_F(LenientImport, WellTypedTraceHasNoNotes) {
  const TraceSet set = load(
      R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":2,"args":{"External id":1}}]})");
  EXPECT_TRUE(set.notes.empty());
}

}  // namespace
}  // namespace stepscope
