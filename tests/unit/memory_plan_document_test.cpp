// The saved plan measurement: written and read back unchanged, and every malformed document
// refused with the file and the byte offset of the culprit.
#include "stepscope/memory/plan_document.h"

#include <gtest/gtest.h>

#include <string>

namespace stepscope::memory {
namespace {

PlanMeasurement sample() {
  PlanMeasurement m;
  m.device = "cpu";
  m.optimizer = "AdamW";
  m.parameter_count = 3'630'090;
  m.parameter_bytes = 14'520'360;
  m.gradient_bytes = 14'520'360;
  m.optimizer_state_bytes = 29'040'728;
  m.batch_a = 8;
  m.peak_a = 61'437'952;
  m.batch_b = 16;
  m.peak_b = 78'245'888;
  m.optimizer_peak = 74'469'376;
  m.capacity_bytes = 24'696'061'952;
  m.repeated_blocks = 2;
  m.timing_a = {.forward_ms = 3.5, .backward_ms = 7.25, .optimizer_ms = 2.0};
  m.timing_b = {
      .forward_ms = 6.5, .backward_ms = 13.0, .optimizer_ms = 2.125, .blocks_forward_ms = 5.0};
  m.notes = {"measured on the CPU: \"tensor\" memory"};
  return m;
}

TEST(PlanDocument, RoundTripsEveryMeasuredField) {
  const PlanMeasurement m = sample();
  const std::string text = render_plan_measurement_json(m);
  const Result<PlanMeasurement> back = parse_plan_measurement(text, "m.json");
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->optimizer, m.optimizer);
  EXPECT_EQ(back->device, m.device);
  EXPECT_EQ(back->parameter_count, m.parameter_count);
  EXPECT_EQ(back->optimizer_state_bytes, m.optimizer_state_bytes);
  EXPECT_EQ(back->peak_a, m.peak_a);
  EXPECT_EQ(back->peak_b, m.peak_b);
  EXPECT_EQ(back->batch_b, m.batch_b);
  EXPECT_EQ(back->optimizer_peak, m.optimizer_peak);
  EXPECT_EQ(back->capacity_bytes, m.capacity_bytes);
  EXPECT_EQ(back->repeated_blocks, m.repeated_blocks);
  EXPECT_DOUBLE_EQ(back->timing_a.backward_ms, 7.25);
  EXPECT_DOUBLE_EQ(back->timing_b.optimizer_ms, 2.125);
  EXPECT_DOUBLE_EQ(back->timing_b.blocks_forward_ms, 5.0);
  EXPECT_EQ(back->notes, m.notes);
  // The same plan from the original and from the document.
  EXPECT_EQ(render_plan_text(*plan_memory(m)), render_plan_text(*plan_memory(*back)));
}

// `text` with the first `from` replaced by `to`.
std::string with(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

struct Broken {
  std::string from;
  std::string to;
  std::string message;  // part of the error
};

TEST(PlanDocument, MalformedDocumentsNameTheFileAndTheOffset) {
  const std::string good = render_plan_measurement_json(sample());
  const Broken cases[] = {
      {"\"peak_b_bytes\":78245888", "\"peak_b_bytes\":-1", "peak_b_bytes must be an integer"},
      {"\"peak_b_bytes\":78245888", "\"peak_b_bytes\":1.5", "peak_b_bytes must be an integer"},
      {"\"batch_a\":8", "\"batch_a\":\"8\"", "batch_a must be an integer"},
      {"\"forward_ms\":3.5", "\"forward_ms\":null", "forward_ms must be a number"},
      {"\"device\":\"cpu\"", "\"device\":\"tpu\"", "device must be"},
      {"\"repeated_blocks\":2", "\"repeated_blocks\":2,\"extra\":1", "unknown field \"extra\""},
      {"\"repeated_blocks\":2,", "", "has no \"repeated_blocks\""},
      {"\"schema_version\":1", "\"schema_version\":2", "schema_version 2"},
      {"stepscope.plan_measurement", "stepscope.monitor", "schema is not"},
      {"\"batch_a\":8", "\"batch_a\":8,\"batch_a\":8", "twice"},
  };
  for (const Broken& c : cases) {
    const Result<PlanMeasurement> r = parse_plan_measurement(with(good, c.from, c.to), "m.json");
    ASSERT_FALSE(r.ok()) << c.to;
    EXPECT_EQ(r.error().file, "m.json");
    EXPECT_NE(r.error().message.find(c.message), std::string::npos)
        << c.to << ": " << r.error().message;
    EXPECT_TRUE(r.error().byte_offset.has_value()) << c.to;
  }
  // The offset points at the culprit.
  const std::string negative = with(good, "\"peak_b_bytes\":78245888", "\"peak_b_bytes\":-1");
  const Result<PlanMeasurement> r = parse_plan_measurement(negative, "m.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(*r.error().byte_offset, negative.find("-1"));
}

TEST(PlanDocument, NotJsonTruncatedOrTrailingContentIsRefused) {
  const std::string good = render_plan_measurement_json(sample());
  for (const std::string& bad :
       {std::string(""), std::string("[]"), good.substr(0, good.size() / 2), good + "{}",
        std::string("{\"schema\":")}) {
    const Result<PlanMeasurement> r = parse_plan_measurement(bad, "m.json");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().file, "m.json");
  }
  const Result<PlanMeasurement> missing = read_plan_measurement("/nonexistent/m.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kIo);
}

}  // namespace
}  // namespace stepscope::memory
