// The Kineto importer on small inputs: what it keeps, how it links, and how it counts.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "stepscope/load.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

Trace load_text(const std::string& json) {
  Result<Trace> trace = load_trace_text(json, "test.json");
  EXPECT_TRUE(trace.ok()) << (trace.ok() ? "" : trace.error().describe());
  return trace.ok() ? std::move(trace).value() : Trace{};
}

TEST(Importer, ObjectFormWithMetadataAndExactTimes) {
  const Trace trace =
      TraceFixture()
          .top_level("distributedInfo", R"({"backend":"nccl","rank":3,"world_size":8})")
          .top_level(
              "deviceProperties",
              R"([{"id":0,"name":"H100","computeMajor":9,"computeMinor":0,"numSms":132,"totalGlobalMem":85000000000}])")
          .top_level("baseTimeNanoseconds", "1700000000000000000")
          // Written as text: a double could not carry this literal exactly.
          .raw_event(
              R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1712173898123456.789,"dur":12.001})")
          .load();
  EXPECT_EQ(trace.distributed.rank, 3);
  EXPECT_EQ(trace.distributed.world_size, 8);
  ASSERT_EQ(trace.devices.size(), 1U);
  EXPECT_EQ(trace.devices[0].compute_major, 9);
  EXPECT_EQ(trace.devices[0].num_sms, 132);
  EXPECT_EQ(trace.base_time_ns, 1700000000000000000LL);
  ASSERT_EQ(trace.events.size(), 1U);
  EXPECT_EQ(trace.events.start_ns[0], 1712173898123456789LL);
  EXPECT_EQ(trace.events.dur_ns[0], 12001);
  EXPECT_TRUE(trace.stats.any_fractional_ts_literal);
}

TEST(Importer, BareArrayFormAndStringIds) {
  const Trace trace = load_text(
      R"([{"ph":"X","cat":"Kernel","name":"k","pid":"GPU 0","tid":"stream 7","ts":10,"dur":5,"args":{"stream":7,"correlation":4}},
          {"ph":"X","cat":"Runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":8,"dur":1,"args":{"correlation":4}}])");
  ASSERT_EQ(trace.events.size(), 2U);
  // Sorted by start: the runtime call first; categories matched case-insensitively.
  EXPECT_EQ(trace.events.event_class[0], EventClass::kRuntime);
  EXPECT_EQ(trace.events.event_class[1], EventClass::kKernel);
  EXPECT_EQ(trace.events.launcher[1], 0);
  EXPECT_EQ(trace.threads[trace.events.thread[1]].key.pid, "GPU 0");
  EXPECT_FALSE(trace.stats.any_fractional_ts_literal);
}

// Events cycle through six threads (more than the builder's recent-thread cache holds), one of
// them named by the string "1" beside the number 1, and through two categories: each event keeps
// its own thread and category.
TEST(Importer, ThreadsAndCategoriesOfInterleavedEvents) {
  const char* kThreads[] = {R"("pid":1,"tid":1)",   R"("pid":1,"tid":"1")", R"("pid":1,"tid":2)",
                            R"("pid":"1","tid":1)", R"("pid":2,"tid":1)",   R"("pid":1,"tid":3)"};
  const char* kCategories[] = {"cpu_op", "user_annotation"};
  std::string json = R"({"traceEvents":[)";
  constexpr int kEvents = 60;
  for (int i = 0; i < kEvents; ++i) {
    if (i > 0) json += ',';
    json += R"({"ph":"X","cat":")" + std::string(kCategories[i % 2]) + R"(","name":"e)" +
            std::to_string(i) + R"(",)" + kThreads[i % 6] + R"(,"ts":)" + std::to_string(i * 10) +
            R"(,"dur":1})";
  }
  const Trace trace = load_text(json + "]}");
  ASSERT_EQ(trace.events.size(), static_cast<std::size_t>(kEvents));
  ASSERT_EQ(trace.threads.size(), 6U);
  for (int i = 0; i < kEvents; ++i) {
    const auto at = static_cast<std::size_t>(i);  // sorted by ts: file order
    EXPECT_EQ(trace.events.thread[at], trace.events.thread[at % 6]) << i;
    EXPECT_EQ(trace.strings.view(trace.events.category[at]), kCategories[i % 2]) << i;
    EXPECT_EQ(trace.events.event_class[at], i % 2 == 0 ? EventClass::kOp : EventClass::kAnnotation);
  }
  const ThreadInfo& number = trace.threads[trace.events.thread[0]];
  const ThreadInfo& text = trace.threads[trace.events.thread[1]];
  EXPECT_EQ(number.key.tid, "1");
  EXPECT_EQ(text.key.tid, "1");
  EXPECT_EQ(number.tid_number, 1);
  EXPECT_EQ(text.tid_number, kAbsent);
}

// A thread is its pid and tid as written: numbers equal in value but written otherwise ("-0",
// "1e3") are threads of their own, whichever reader (the fast one, or simdjson for an event with
// a non-ASCII name) read them, and however the events interleave.
TEST(Importer, ThreadsAreTheirIdsAsWritten) {
  const std::vector<std::pair<std::string, std::string>> kPidsAndNames = {
      {"0", "a"},    {"-0", "a"},           {"1000", "a"},        {"1e3", "a"},
      {"10e2", "a"}, {"1000", R"(\u00e9)"}, {"1000", "\xc3\xa9"}, {"0", "\xc3\xa9"}};
  std::string json = R"({"traceEvents":[)";
  constexpr int kRounds = 5;
  for (int i = 0; i < kRounds * static_cast<int>(kPidsAndNames.size()); ++i) {
    const auto& pid_and_name = kPidsAndNames[static_cast<std::size_t>(i) % kPidsAndNames.size()];
    const std::string& pid = pid_and_name.first;
    const std::string& name = pid_and_name.second;
    if (i > 0) json += ',';
    const auto event = [&json, &pid](std::string_view event_name, int ts) {
      json.append(R"({"ph":"X","cat":"cpu_op","name":")")
          .append(event_name)
          .append(R"(","pid":)")
          .append(pid)
          .append(R"(,"tid":1,"ts":)")
          .append(std::to_string(ts))
          .append(R"(,"dur":1})");
    };
    event(name, i * 10);
    if (i % 3 == 0) {  // and the same thread twice in a row now and then
      json += ',';
      event("again", i * 10 + 1);
    }
  }
  const Trace trace = load_text(json + "]}");
  std::map<std::string, std::set<std::uint32_t>> threads_of_pid;
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const ThreadInfo& thread = trace.threads[trace.events.thread[i]];
    threads_of_pid[thread.key.pid].insert(trace.events.thread[i]);
  }
  ASSERT_EQ(trace.threads.size(), 5U);  // "0", "-0", "1000", "1e3", "10e2"
  for (const char* pid : {"0", "-0", "1000", "1e3", "10e2"}) {
    EXPECT_EQ(threads_of_pid[pid].size(), 1U) << pid;
  }
}

TEST(Importer, BeginEndPairsBecomeCompleteEvents) {
  const Trace trace = load_text(
      R"({"traceEvents":[{"ph":"B","cat":"cpu_op","name":"outer","pid":1,"tid":1,"ts":10},
      {"ph":"B","cat":"cpu_op","name":"inner","pid":1,"tid":1,"ts":12},
      {"ph":"E","pid":1,"tid":1,"ts":15},{"ph":"E","pid":1,"tid":1,"ts":20},
      {"ph":"E","pid":1,"tid":1,"ts":30},{"ph":"B","cat":"cpu_op","name":"open","pid":1,"tid":1,"ts":40}]})");
  ASSERT_EQ(trace.events.size(), 2U);
  EXPECT_EQ(trace.name_of(0), "outer");
  EXPECT_EQ(trace.events.dur_ns[0], 10000);
  EXPECT_EQ(trace.events.dur_ns[1], 3000);
  EXPECT_EQ(trace.events.parent[1], 0);
  EXPECT_EQ(trace.stats.unmatched_begin_end, 2U);  // one E too many, one B never closed
}

TEST(Importer, InvalidCompleteEventsAreSkippedAndCounted) {
  const Trace trace = load_text(
      R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1},
      {"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":1,"dur":-2},
      {"ph":"X","cat":"cpu_op","name":"c","pid":1,"tid":1,"dur":2},
      {"ph":"X","cat":"cpu_op","name":"d","pid":1,"tid":1,"ts":1,"dur":0}]})");
  EXPECT_EQ(trace.events.size(), 1U);
  EXPECT_EQ(trace.stats.invalid_complete_events, 3U);
  EXPECT_TRUE(trace.stats.any_event_without_ts);
}

TEST(Importer, NestingAttributionAndOldStyleExternalIds) {
  // New style: the kernel's External id names the op.
  const Trace modern = TraceFixture()
                           .op("aten::linear", 0, 100, 1, 7)
                           .op("aten::addmm", 10, 50, 1, 8)
                           .runtime("cudaLaunchKernel", 20, 5, 99, 1, 8)
                           .kernel("gemm", 30, 40, 99, 7, 0, 8)
                           .load();
  EXPECT_EQ(modern.events.parent[1], 0);
  EXPECT_EQ(modern.events.parent[2], 1);
  EXPECT_EQ(modern.events.launcher[3], 2);
  EXPECT_EQ(modern.events.owner_op[3], 1);
  EXPECT_FALSE(modern.stats.external_id_is_correlation);
  // Old style: External id repeats the correlation id; attribution goes through the call.
  const Trace old = TraceFixture()
                        .op("aten::linear", 0, 100, 1, 99)  // collides with the correlation
                        .op("aten::addmm", 10, 50, 1, 5)
                        .runtime("cudaLaunchKernel", 20, 5, 99, 1, 99)
                        .kernel("gemm", 30, 40, 99, 7, 0, 99)
                        .load();
  EXPECT_TRUE(old.stats.external_id_is_correlation);
  EXPECT_EQ(old.events.owner_op[3], 1);
}

// The list analyses read instead of scanning every event: each device activity once, in event
// (start time) order, whatever order the file had them in.
TEST(Importer, ListsTheDeviceActivitiesInEventOrder) {
  const Trace trace = TraceFixture()
                          .kernel("late", 300, 10, 3, 7, 0, 3)
                          .op("aten::mm", 0, 500, 1, 1)
                          .runtime("cudaLaunchKernel", 10, 5, 1, 1, 1)
                          .kernel("early", 100, 10, 1, 7, 0, 1)
                          .runtime("cudaLaunchKernel", 20, 5, 2, 1, 1)
                          .kernel("middle", 200, 10, 2, 8, 0, 1)
                          .load();
  std::vector<EventIndex> expected;
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    if (is_device_activity(trace.events.event_class[i])) expected.push_back(i);
  }
  ASSERT_EQ(expected.size(), 3U);
  EXPECT_EQ(trace.events.device_activities, expected);
  EXPECT_EQ(trace.name_of(trace.events.device_activities.front()), "early");
  EXPECT_EQ(trace.name_of(trace.events.device_activities.back()), "late");
}

TEST(Importer, MemoryEventsAreSortedAndCpuCounted) {
  const Trace trace = TraceFixture()
                          .memory(30, 0x10, -512, 0, 2048)
                          .memory(10, 0x10, 512, 512, 2048)
                          .memory(20, 0x20, 64, 576, 4096)
                          .op("x", 0, 1)
                          .load();
  ASSERT_EQ(trace.memory.size(), 3U);
  EXPECT_EQ(trace.memory.time_ns[0], 10000);
  EXPECT_EQ(trace.memory.bytes[0], 512);
  EXPECT_EQ(trace.memory.total_allocated[0], 512);
  // Every column moves with the time: the event at 20 us is the one at 0x20.
  EXPECT_EQ(trace.memory.time_ns[1], 20000);
  EXPECT_EQ(trace.memory.address[1], 0x20U);
  EXPECT_EQ(trace.memory.bytes[1], 64);
  EXPECT_EQ(trace.memory.total_allocated[1], 576);
  EXPECT_EQ(trace.memory.total_reserved[1], 4096);
  EXPECT_EQ(trace.memory.total_reserved[2], 2048);
}

// Events written latest first: each column of an event must follow it into time order.
TEST(Importer, EveryColumnFollowsItsEventIntoTimeOrder) {
  constexpr int kEvents = 40;
  std::string json = R"({"traceEvents":[)";
  for (int i = 0; i < kEvents; ++i) {
    const int n = kEvents - 1 - i;  // the event starting at n * 10 us
    if (i > 0) json += ',';
    json += R"({"ph":"X","cat":")" + std::string(n % 2 == 0 ? "kernel" : "cpu_op") +
            R"(","name":"e)" + std::to_string(n) + R"(","pid":1,"tid":)" + std::to_string(n % 3) +
            R"(,"ts":)" + std::to_string(n * 10) + R"(,"dur":)" + std::to_string(n + 1) +
            R"(,"args":{"correlation":)" + std::to_string(100 + n) + R"(,"External id":)" +
            std::to_string(200 + n) + R"(,"stream":)" + std::to_string(n % 4) + R"(,"device":)" +
            std::to_string(n % 2) + R"(,"Input Dims":[[)" + std::to_string(n) + "]]}}";
  }
  const Trace trace = load_text(json + "]}");
  ASSERT_EQ(trace.events.size(), static_cast<std::size_t>(kEvents));
  const EventTable& e = trace.events;
  for (int n = 0; n < kEvents; ++n) {
    const auto at = static_cast<std::size_t>(n);
    const std::string name = std::string("e").append(std::to_string(n));
    EXPECT_EQ(trace.name_of(static_cast<EventIndex>(n)), name);
    EXPECT_EQ(e.start_ns[at], n * 10'000);
    EXPECT_EQ(e.dur_ns[at], (n + 1) * 1'000);
    EXPECT_EQ(trace.strings.view(e.category[at]), n % 2 == 0 ? "kernel" : "cpu_op") << n;
    EXPECT_EQ(e.event_class[at], n % 2 == 0 ? EventClass::kKernel : EventClass::kOp) << n;
    EXPECT_EQ(trace.threads[e.thread[at]].key.tid, std::to_string(n % 3)) << n;
    EXPECT_EQ(e.correlation[at], 100 + n);
    EXPECT_EQ(e.external_id[at], 200 + n);
    EXPECT_EQ(e.stream[at], n % 4);
    EXPECT_EQ(e.device[at], n % 2);
    ASSERT_GE(e.args_row[at], 0) << n;
    const EventArgs& args = trace.args[static_cast<std::size_t>(e.args_row[at])];
    std::string dims = "[[";
    dims += std::to_string(n);
    dims += "]]";
    ASSERT_GE(args.inputs_row, 0) << n;
    const OpInputs& inputs = trace.op_inputs[static_cast<std::size_t>(args.inputs_row)];
    EXPECT_EQ(trace.strings.view(inputs.shapes_text), dims) << n;
    EXPECT_EQ(inputs.shapes, std::vector<Shape>{Shape{n}}) << n;
    const std::string_view text =
        std::string_view(json).substr(e.source_offset[at], e.source_length[at]);
    std::string name_field = R"("name":")";
    name_field += name;
    name_field += '"';
    EXPECT_NE(text.find(name_field), std::string_view::npos) << n;
  }
}

TEST(Importer, KeepsUnknownCategoriesAndCountsThem) {
  const Trace trace = load_text(
      R"({"traceEvents":[{"ph":"X","cat":"my_custom","name":"x","pid":1,"tid":1,"ts":1,"dur":1},
      {"ph":"X","name":"no category","pid":1,"tid":1,"ts":1,"dur":1},
      {"ph":"X","cat":"mtia_runtime","name":"r","pid":1,"tid":1,"ts":1,"dur":1}]})");
  EXPECT_EQ(trace.events.size(), 3U);
  EXPECT_EQ(trace.stats.unknown_category_events, 2U);
}

TEST(Importer, EscapedNulAndHostileNamesAreKeptAsData) {
  const Trace trace = load_text(
      R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"<script>alert(1)</script>\u0000x","pid":0,"tid":7,"ts":1,"dur":1}]})");
  ASSERT_EQ(trace.events.size(), 1U);
  EXPECT_EQ(trace.name_of(0), std::string_view("<script>alert(1)</script>\0x", 27));
}

}  // namespace
}  // namespace stepscope

namespace stepscope {
namespace {

TEST(EventJson, OtherArgsStayReachableThroughTheSourceFile) {
  const std::string path = ::testing::TempDir() + "/reachable.json";
  {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    const std::string text =
        R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2,"args":{"correlation":3,"warps per SM":12.5,"my arg":"kept"}}]})";
    std::fwrite(text.data(), 1, text.size(), file);
    std::fclose(file);
  }
  Result<Trace> trace = load_trace_file(path);
  ASSERT_TRUE(trace.ok());
  Result<std::string> json = event_json(*trace, 0);
  ASSERT_TRUE(json.ok()) << json.error().describe();
  EXPECT_NE(json->find("\"my arg\":\"kept\""), std::string::npos) << *json;
  EXPECT_FALSE(event_json(*trace, 5).ok());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace stepscope
