// The HTML report's timeline: which steps and events it embeds, how a finding's events are found,
// the event cap, and trace text made inert inside the page's JSON script element.
#include <gtest/gtest.h>

#include <set>

#include <algorithm>
#include <string>

#include "render/html/timeline_data.h"
#include "render/html/timeline_json.h"
#include "render/html/timeline_section.h"
#include "support/trace_fixture.h"

namespace stepscope::render::html {
namespace {

using stepscope::testing::TraceFixture;

constexpr const char* kHostile = "</script><img src=x onerror=alert(1)>";

std::string timeline_json(const TimelineData& data) {
  std::string out;
  append_timeline_json(out, data);
  return out;
}

template <typename... Inputs>
std::string timeline_section(const Inputs&... inputs) {
  std::string out;
  append_timeline_section(out, inputs...);
  return out;
}

// Six steps whose host spans last these many µs; step 1 is the slowest and step 4 the median of
// the five kept (the last step is trimmed as the incomplete tail or kept: the test reads which).
// Each step: an op launching one 50 µs kernel, and step 0 alone a "rare_kernel" a finding names.
constexpr double kStepUs[] = {1000, 3000, 1100, 1050, 1200, 1150};

TraceFixture six_steps() {
  TraceFixture fixture;
  double t0 = 0;
  for (int s = 0; s < 6; ++s) {
    fixture.step(s, t0, kStepUs[s]);
    fixture.op("aten::mm", t0 + 10, 100);
    fixture.launched_kernel("gemm_kernel", t0 + 20, t0 + 40, 50);
    fixture.op(kHostile, t0 + 200, 30);
    if (s == 0) fixture.launched_kernel("rare_kernel", t0 + 300, t0 + 310, 20);
    t0 += kStepUs[s] + 10;
  }
  return fixture;
}

Finding finding_on(const std::string& name, const Trace& trace, std::int64_t step) {
  Finding f;
  f.id = "test-finding";
  Evidence e;
  e.label = "time";
  EventRefs refs;
  refs.name = name;
  refs.count = 1;
  refs.first_start_ns = trace.events.start_ns.front();
  refs.last_end_ns = trace.events.start_ns.back() + 10'000'000;
  refs.steps = {step};
  e.events.push_back(refs);
  f.evidence.push_back(e);
  return f;
}

std::vector<std::int64_t> chosen_steps(const TimelineData& data) {
  std::vector<std::int64_t> numbers;
  for (const TimelineStep& s : data.steps) numbers.push_back(s.number);
  return numbers;
}

const TimelineStep* step_chosen_for(const TimelineData& data, StepChoice why) {
  for (const TimelineStep& s : data.steps) {
    if (s.why == why) return &s;
  }
  return nullptr;
}

std::string name_of(const TimelineData& data, const TimelineEvent& e) {
  return e.name == kNoString ? "" : data.strings[static_cast<std::size_t>(e.name)];
}

class TimelineData6 : public ::testing::Test {
 protected:
  Trace trace = six_steps().load();
  RankAnalyses analyses = analyze_rank(trace, {});
  Diagnosis none;
};

TEST_F(TimelineData6, ChoosesTheMedianAndTheSlowestKeptStep) {
  const std::vector<const Step*> kept = analyses.steps.kept();
  ASSERT_GE(kept.size(), 5U);
  const TimelineData data = select_timeline(analyses, none);
  ASSERT_EQ(data.steps.size(), 2U);
  const TimelineStep* slowest = step_chosen_for(data, StepChoice::kSlowest);
  ASSERT_NE(slowest, nullptr);
  EXPECT_EQ(slowest->number, 1);
  // The median of the kept steps' durations (the lower one of an even count).
  std::vector<std::int64_t> durations;
  durations.reserve(kept.size());
  for (const Step* s : kept) durations.push_back(s->duration_ns());
  std::sort(durations.begin(), durations.end());
  const std::int64_t median = durations[(durations.size() - 1) / 2];
  const TimelineStep* chosen = step_chosen_for(data, StepChoice::kMedian);
  ASSERT_NE(chosen, nullptr);
  const auto step = std::find_if(kept.begin(), kept.end(),
                                 [&](const Step* s) { return s->number == chosen->number; });
  ASSERT_NE(step, kept.end());
  EXPECT_EQ((*step)->duration_ns(), median);
  EXPECT_NE(chosen->number, 1);
}

TEST_F(TimelineData6, EveryEventShownIsInAChosenStepWhenNoFindingNamesOthers) {
  const TimelineData data = select_timeline(analyses, none);
  ASSERT_FALSE(data.events.empty());
  EXPECT_EQ(data.events.size(), data.candidate_events);
  for (const TimelineEvent& e : data.events) {
    const std::vector<std::int64_t> steps = chosen_steps(data);
    EXPECT_NE(std::find(steps.begin(), steps.end(), e.step), steps.end()) << name_of(data, e);
  }
  // Per chosen step: the step annotation, two ops, a launch call and a kernel.
  EXPECT_EQ(data.events.size(), 5U * data.steps.size());
}

TEST_F(TimelineData6, TheCriticalPathRunsThroughTheHostOfTheseHostBoundSteps) {
  const TimelineData data = select_timeline(analyses, none);
  ASSERT_FALSE(data.critical_path.empty());
  EXPECT_TRUE(std::is_sorted(data.critical_path.begin(), data.critical_path.end()));
  std::set<std::string> names;
  for (const std::uint32_t k : data.critical_path) {
    ASSERT_LT(k, data.events.size());
    names.insert(name_of(data, data.events[k]));
  }
  // Each step's 50 µs kernel ends long before the host does: the host's ops and calls set the
  // steps' length, and no kernel is on the path.
  EXPECT_TRUE(names.count("aten::mm") == 1 && names.count(kHostile) == 1) << names.size();
  EXPECT_EQ(names.count("gemm_kernel"), 0U);
  EXPECT_NE(timeline_json(data).find("\"critical_path\":["), std::string::npos);
  EXPECT_NE(timeline_section(data).find("class=\"timeline-path\""), std::string::npos);
}

TEST_F(TimelineData6, LanesAreThreadsAndStreamsAndRowsAreNestingDepth) {
  const TimelineData data = select_timeline(analyses, none);
  ASSERT_EQ(data.lanes.size(), 2U);
  EXPECT_FALSE(data.lanes[0].device);
  EXPECT_TRUE(data.lanes[1].device);
  EXPECT_EQ(data.lanes[1].label, "GPU 0 stream 7");
  EXPECT_EQ(data.lanes[0].rows, 3);  // step annotation > aten::mm > cudaLaunchKernel
  for (const TimelineEvent& e : data.events) {
    const std::string name = name_of(data, e);
    if (name == "gpu_kernel" || name == "gemm_kernel") {
      EXPECT_EQ(e.lane, 1U);
      EXPECT_EQ(e.row, 0);
      EXPECT_EQ(data.strings.at(static_cast<std::size_t>(e.op)), "aten::mm");
      EXPECT_EQ(data.strings.at(static_cast<std::size_t>(e.launch)), "cudaLaunchKernel");
    } else if (name == "aten::mm") {
      EXPECT_EQ(e.row, 1);
    } else if (name == "cudaLaunchKernel") {
      EXPECT_EQ(e.row, 2);
    }
  }
}

TEST_F(TimelineData6, EventsAreOrderedByLaneThenStart) {
  const TimelineData data = select_timeline(analyses, none);
  ASSERT_GT(data.events.size(), 2U);
  for (std::size_t k = 1; k < data.events.size(); ++k) {
    const TimelineEvent& before = data.events[k - 1];
    const TimelineEvent& after = data.events[k];
    EXPECT_TRUE(before.lane < after.lane ||
                (before.lane == after.lane && before.start_ns <= after.start_ns))
        << k;
  }
}

TEST_F(TimelineData6, AtTheCapEventsOfEqualLengthAreKeptInTraceOrder) {
  // Two chosen steps, each with a 100 µs aten::mm: a cap of three keeps the two step
  // annotations (the longest events) and the earlier of the two equally long aten::mm.
  TimelineLimits three;
  three.max_events = 3;
  const TimelineData data = select_timeline(analyses, none, three);
  ASSERT_EQ(data.steps.size(), 2U);
  ASSERT_EQ(data.events.size(), 3U);
  std::vector<const TimelineEvent*> mms;
  for (const TimelineEvent& e : data.events) {
    if (name_of(data, e) == "aten::mm") mms.push_back(&e);
  }
  ASSERT_EQ(mms.size(), 1U);
  std::int64_t earliest = INT64_MAX;
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    const bool in_a_chosen_step =
        std::any_of(data.steps.begin(), data.steps.end(), [&](const TimelineStep& s) {
          return trace.events.start_ns[i] >= s.start_ns && trace.events.start_ns[i] < s.end_ns;
        });
    if (trace.name_of(i) == "aten::mm" && in_a_chosen_step) {
      earliest = std::min(earliest, trace.events.start_ns[i]);
    }
  }
  EXPECT_EQ(mms[0]->start_ns, earliest);
}

TEST_F(TimelineData6, AFindingAddsItsStepWithinTheStepCap) {
  Diagnosis diagnosis;
  diagnosis.findings.push_back(finding_on("gemm_kernel", trace, 3));
  const TimelineData data = select_timeline(analyses, diagnosis);
  const std::vector<std::int64_t> steps = chosen_steps(data);
  EXPECT_NE(std::find(steps.begin(), steps.end(), 3), steps.end());
  EXPECT_EQ(step_chosen_for(data, StepChoice::kFinding)->number, 3);
  TimelineLimits two;
  two.max_steps = 2;
  EXPECT_EQ(select_timeline(analyses, diagnosis, two).steps.size(), 2U);
}

TEST_F(TimelineData6, AFindingsEventsOutsideTheChosenStepsAreEmbedded) {
  Diagnosis diagnosis;
  diagnosis.findings.push_back(finding_on("rare_kernel", trace, 0));
  TimelineLimits two;
  two.max_steps = 2;  // median and slowest only: step 0 is neither
  const TimelineData data = select_timeline(analyses, diagnosis, two);
  ASSERT_EQ(data.findings.size(), 1U);
  ASSERT_EQ(data.findings[0].events.size(), 1U);
  const TimelineEvent& rare = data.events[data.findings[0].events[0]];
  EXPECT_EQ(name_of(data, rare), "rare_kernel");
  EXPECT_EQ(rare.step, 0);
  EXPECT_EQ(data.findings[0].spans.size(), 1U);
  const std::vector<std::int64_t> steps = chosen_steps(data);
  EXPECT_EQ(std::find(steps.begin(), steps.end(), 0), steps.end());
}

TEST_F(TimelineData6, TheCapKeepsFindingEventsAndTheLongestAndCountsTheRest) {
  Diagnosis diagnosis;
  diagnosis.findings.push_back(finding_on("rare_kernel", trace, 0));
  TimelineLimits small;
  small.max_events = 4;
  const TimelineData data = select_timeline(analyses, diagnosis, small);
  EXPECT_EQ(data.events.size(), 4U);
  EXPECT_GT(data.candidate_events, 4U);
  ASSERT_EQ(data.findings[0].events.size(), 1U);
  // Besides the finding's event, the longest: the chosen steps' annotations and an aten::mm.
  std::int64_t shortest_kept = INT64_MAX;
  for (const TimelineEvent& e : data.events) {
    if (name_of(data, e) != "rare_kernel") shortest_kept = std::min(shortest_kept, e.dur_ns);
  }
  EXPECT_GE(shortest_kept, 100'000);
  EXPECT_NE(timeline_section(data).find("(4 of " + std::to_string(data.candidate_events) +
                                        " events; the longest are kept)"),
            std::string::npos);
}

TEST_F(TimelineData6, HostileNamesCannotLeaveTheJsonScriptElement) {
  const TimelineData data = select_timeline(analyses, none);
  ASSERT_NE(std::find(data.strings.begin(), data.strings.end(), kHostile), data.strings.end());
  const std::string json = timeline_json(data);
  EXPECT_EQ(json.find('<'), std::string::npos);
  EXPECT_EQ(json.find('>'), std::string::npos);
  EXPECT_NE(json.find(R"(\u003c/script\u003e\u003cimg src=x onerror=alert(1)\u003e)"),
            std::string::npos);
  const std::string html = timeline_section(data);
  std::size_t scripts = 0;
  for (std::size_t at = html.find("</script>"); at != std::string::npos;
       at = html.find("</script>", at + 1)) {
    ++scripts;
  }
  EXPECT_EQ(scripts, 2U);  // the data and the drawing script, nothing from the trace
  EXPECT_EQ(html.find("<img"), std::string::npos);
}

TimelineData long_names_timeline(const TimelineLimits& limits, const std::string& suffix) {
  TraceFixture fixture;
  fixture.step(0, 0, 100'000);
  for (int i = 0; i < 400; ++i) {
    fixture.launched_kernel(std::to_string(i) + suffix, 10 + i * 200.0, 20 + i * 200.0, 100);
  }
  const Trace trace = fixture.step(1, 100'010, 100'000).load();
  return select_timeline(analyze_rank(trace, {}), Diagnosis{}, limits);
}

TEST(TimelineStrings, ALongNameIsCutAtACodePointBoundary) {
  TimelineLimits limits;
  limits.max_string_bytes = 301;  // "0" + 299 × k, then "µ" (2 bytes) would be cut in half
  const TimelineData data = long_names_timeline(limits, std::string(299, 'k') + "µ");
  EXPECT_NE(std::find(data.strings.begin(), data.strings.end(), "0" + std::string(299, 'k') + "…"),
            data.strings.end());
}

// Every kernel a different, long name: once the budget is spent, new strings are short.
TEST(TimelineStrings, LongUniqueNamesAreCutToTheBudget) {
  TimelineLimits limits;
  limits.string_budget_bytes = std::size_t{20} * 300;
  limits.short_string_bytes = 10;
  const TimelineData data = long_names_timeline(limits, std::string(300, 'k'));
  ASSERT_GE(data.events.size(), 800U);
  std::size_t bytes = 0;
  std::size_t long_kernels = 0;
  std::size_t short_kernels = 0;
  for (const std::string& s : data.strings) {
    bytes += s.size();
    if (s.find("kkkk") == std::string::npos) continue;
    EXPECT_LE(s.size(), limits.max_string_bytes + 3U) << s;  // plus the "…" that marks a cut
    (s.size() > 10U + 3U ? long_kernels : short_kernels) += 1;
  }
  // Long strings of 256 + 3 bytes until the budget is crossed.
  const std::size_t long_size = limits.max_string_bytes + 3U;
  EXPECT_GE(long_kernels, limits.string_budget_bytes / long_size - 1);
  EXPECT_LE(long_kernels, limits.string_budget_bytes / long_size + 1);
  EXPECT_EQ(short_kernels, 400U - long_kernels);
  EXPECT_LE(bytes, limits.string_budget_bytes + 300U + std::size_t{400} * 13U);
}

// with_stack=True: a user frame and an nn.Module around a forward op that launches a kernel.
TEST(TimelineDetails, AKernelShowsItsPythonFrameModuleAndPhase) {
  const std::string frame =
      R"({"ph":"X","cat":"python_function","name":"train.py(42): forward","pid":100,"tid":1,)"
      R"("ts":5.000,"dur":500.000,"args":{}})";
  const std::string module =
      R"({"ph":"X","cat":"python_function","name":"nn.Module: Linear_0","pid":100,"tid":1,)"
      R"("ts":6.000,"dur":400.000,"args":{}})";
  TraceFixture fixture;
  fixture.step(0, 0, 1000).annotation("## forward ##", 2, 600);
  fixture.raw_event(frame).raw_event(module);
  fixture.op("aten::linear", 10, 100).launched_kernel("sgemm", 20, 30, 50);
  fixture.step(1, 1010, 1000).annotation("## forward ##", 1012, 600);
  fixture.op("aten::linear", 1020, 100).launched_kernel("sgemm", 1030, 1040, 50);
  const Trace trace = fixture.load();
  const RankAnalyses analyses = analyze_rank(trace, {});
  ASSERT_FALSE(analyses.code.empty());
  const TimelineData data = select_timeline(analyses, Diagnosis{});
  const auto kernel = std::find_if(data.events.begin(), data.events.end(), [&](const auto& e) {
    return name_of(data, e) == "sgemm" && e.step == 0;
  });
  ASSERT_NE(kernel, data.events.end());
  EXPECT_EQ(data.strings.at(static_cast<std::size_t>(kernel->frame)), "train.py:42 forward");
  EXPECT_EQ(data.strings.at(static_cast<std::size_t>(kernel->module)), "Linear_0");
  EXPECT_EQ(kernel->phase, static_cast<int>(Phase::kForward));
  ASSERT_FALSE(data.phases.empty());
  EXPECT_EQ(data.phases.front().phase, static_cast<int>(Phase::kForward));
}

TEST(TimelineSection, ATraceWithoutStepsOrFindingEventsSaysSo) {
  const Trace trace = TraceFixture().op("aten::add", 0, 10).load();
  const RankAnalyses analyses = analyze_rank(trace, {});
  TimelineData data;
  EXPECT_NE(timeline_section(data).find("No timeline"), std::string::npos);
  EXPECT_NE(timeline_section(analyses, Diagnosis{}, false).find("Open in Perfetto"),
            std::string::npos);
}

}  // namespace
}  // namespace stepscope::render::html
