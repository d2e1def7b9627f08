// The Kineto reader reads `Input Dims`, `Input type` and `Concrete Inputs` once into typed
// Trace::op_inputs rows, one per distinct combination of texts, shared by the ops that have it.
#include "importers/kineto/op_inputs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "stepscope/load.h"

namespace stepscope::kineto {
namespace {

using Strings = std::vector<std::string>;

TEST(InputDims, ParsesShapesScalarsAndTensorLists) {
  const auto shapes = parse_input_dims("[[64, 1000], [1000, 4096], [], [[2, 3], [4]]]");
  ASSERT_TRUE(shapes.has_value());
  ASSERT_EQ(shapes->size(), 4U);
  EXPECT_EQ((*shapes)[1], (Shape{1000, 4096}));
  EXPECT_TRUE((*shapes)[2].empty());
  EXPECT_EQ((*shapes)[3], (Shape{2, 3}));
  EXPECT_FALSE(parse_input_dims("not dims").has_value());
  EXPECT_FALSE(parse_input_dims("[[1, x]]").has_value());
}

TEST(InputDims, EmptyListsAreNoInputsOrScalars) {
  const auto none = parse_input_dims("[]");
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
  const auto scalars = parse_input_dims(" [ [] , [] ] ");
  ASSERT_TRUE(scalars.has_value());
  EXPECT_EQ(*scalars, (std::vector<Shape>{Shape{}, Shape{}}));
  EXPECT_FALSE(parse_input_dims("").has_value());  // no `Input Dims` at all
  EXPECT_FALSE(parse_input_dims("[[1, 2]").has_value());
  EXPECT_FALSE(parse_input_dims(R"([["a"]])").has_value());
  EXPECT_FALSE(parse_input_dims("[[-1]]").has_value());
}

TEST(StringList, ReadsDtypesAndConcreteValues) {
  EXPECT_EQ(parse_string_list(R"(["float", "c10::BFloat16", "Scalar", ""])"),
            (Strings{"float", "c10::BFloat16", "Scalar", ""}));
  EXPECT_EQ(parse_string_list(R"(["", "", "[1, 1]", "False", "1e-05"])"),
            (Strings{"", "", "[1, 1]", "False", "1e-05"}));
  EXPECT_EQ(parse_string_list(" [ ] "), Strings{});
}

TEST(StringList, UnescapesStrings) {
  EXPECT_EQ(parse_string_list(R"(["say \"hi\"", "a\\b", "\u00e9", "\ud83d\ude00", "tab\t"])"),
            (Strings{"say \"hi\"", "a\\b", "\xc3\xa9", "\xf0\x9f\x98\x80", "tab\t"}));
}

TEST(StringList, AnythingButAListOfStringsIsUnreadable) {
  EXPECT_FALSE(parse_string_list("").has_value());
  EXPECT_FALSE(parse_string_list("float").has_value());
  EXPECT_FALSE(parse_string_list(R"(["float", 1])").has_value());
  EXPECT_FALSE(parse_string_list(R"([["float"]])").has_value());
  EXPECT_FALSE(parse_string_list(R"(["float")").has_value());
  EXPECT_FALSE(parse_string_list(R"(["float" "float"])").has_value());
  EXPECT_FALSE(parse_string_list(R"(["\x"])").has_value());
  EXPECT_FALSE(parse_string_list(R"(["\u12"])").has_value());
}

// One op event on thread 1 with the given `args` body.
std::string op(const std::string& name, int ts, const std::string& args) {
  return R"({"ph":"X","cat":"cpu_op","name":")" + name + R"(","pid":1,"tid":1,"ts":)" +
         std::to_string(ts) + R"(,"dur":1,"args":{)" + args + "}}";
}

const std::string kMm =
    R"("Input Dims":[[8, 16], [16, 4]],"Input type":["c10::BFloat16", "c10::BFloat16"])";
const std::string kAdd =
    R"("Input Dims":[[8, 16], [8, 16], []],"Input type":["float", "float", "Scalar"],)"
    R"("Concrete Inputs":["", "", "1"])";

std::string trace_json(const std::vector<std::string>& events) {
  std::string json = R"({"traceEvents":[)";
  for (std::size_t i = 0; i < events.size(); ++i) json += (i > 0 ? "," : "") + events[i];
  return json + "]}";
}

Trace load_text(const std::string& json) {
  Result<Trace> trace = load_trace_text(json, "test.json");
  EXPECT_TRUE(trace.ok()) << (trace.ok() ? "" : trace.error().describe());
  return trace.ok() ? std::move(trace).value() : Trace{};
}

std::vector<std::string> views(const Trace& trace, const std::vector<StringId>& ids) {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (const StringId id : ids) out.emplace_back(trace.strings.view(id));
  return out;
}

TEST(OpInputsRows, EqualTextsShareOneRow) {
  const Trace trace = load_text(
      trace_json({op("aten::mm", 1, kMm), op("aten::add", 3, kAdd), op("aten::mm", 5, kMm),
                  op("aten::add", 7, kAdd), op("plain", 9, R"("Sequence number":3)")}));
  ASSERT_EQ(trace.events.size(), 5U);
  ASSERT_EQ(trace.op_inputs.size(), 2U);
  std::vector<std::int32_t> rows;
  rows.reserve(5);
  for (EventIndex i = 0; i < 5; ++i) {
    rows.push_back(trace.args_of(i) == nullptr ? -2 : trace.args_of(i)->inputs_row);
  }
  EXPECT_EQ(rows, (std::vector<std::int32_t>{0, 1, 0, 1, -1}));
  EXPECT_EQ(trace.op_inputs_of(4), nullptr);  // an op without input texts

  const OpInputs& mm = *trace.op_inputs_of(0);
  EXPECT_EQ(mm.shapes, (std::vector<Shape>{{8, 16}, {16, 4}}));
  EXPECT_EQ(views(trace, mm.dtypes), (Strings{"c10::BFloat16", "c10::BFloat16"}));
  EXPECT_TRUE(mm.concrete.empty());
  EXPECT_EQ(trace.strings.view(mm.shapes_text), "[[8, 16], [16, 4]]");
  EXPECT_EQ(trace.strings.view(mm.types_text), R"(["c10::BFloat16", "c10::BFloat16"])");

  const OpInputs& add = *trace.op_inputs_of(1);
  EXPECT_EQ(add.shapes, (std::vector<Shape>{{8, 16}, {8, 16}, {}}));
  EXPECT_EQ(views(trace, add.dtypes), (Strings{"float", "float", "Scalar"}));
  EXPECT_EQ(views(trace, add.concrete), (Strings{"", "", "1"}));
}

TEST(OpInputsRows, TextsThatDifferAnywhereGetTheirOwnRows) {
  const std::string other_concrete =
      R"("Input Dims":[[8, 16], [8, 16], []],"Input type":["float", "float", "Scalar"],)"
      R"("Concrete Inputs":["", "", "2"])";
  const Trace trace =
      load_text(trace_json({op("aten::add", 1, kAdd), op("aten::add", 3, other_concrete),
                            op("aten::add", 5, R"("Input Dims":[[8, 16]])")}));
  ASSERT_EQ(trace.op_inputs.size(), 3U);
  EXPECT_EQ(views(trace, trace.op_inputs[1].concrete), (Strings{"", "", "2"}));
  EXPECT_TRUE(trace.op_inputs[2].dtypes.empty());
  EXPECT_EQ(trace.op_inputs[2].types_text, 0U);
}

TEST(OpInputsRows, TensorListsReadAsTheirFirstShapeAndKeepTheirText) {
  const Trace trace = load_text(trace_json(
      {op("aten::cat", 1,
          R"("Input Dims":[[[2, 3], [2, 5]], []],"Input type":["TensorList", "Int"])")}));
  const OpInputs* inputs = trace.op_inputs_of(0);
  ASSERT_NE(inputs, nullptr);
  EXPECT_EQ(inputs->shapes, (std::vector<Shape>{{2, 3}, {}}));
  EXPECT_EQ(trace.strings.view(inputs->shapes_text), "[[[2, 3], [2, 5]], []]");
  EXPECT_EQ(views(trace, inputs->dtypes), (Strings{"TensorList", "Int"}));
}

class UnreadableTexts : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("stepscope_op_inputs_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // The notes of loading `json` as a file.
  TraceSet load(const std::string& json) {
    const std::string path = (dir_ / "trace.json").string();
    std::ofstream(path, std::ios::binary | std::ios::trunc) << json;
    Result<TraceSet> set = load_traces(path);
    EXPECT_TRUE(set.ok()) << (set.ok() ? "" : set.error().describe());
    return set.ok() ? std::move(set).value() : TraceSet{};
  }
  std::filesystem::path dir_;
};

std::size_t notes_holding(const TraceSet& set, const std::string& what) {
  return static_cast<std::size_t>(std::count_if(
      set.notes.begin(), set.notes.end(),
      [&what](const std::string& note) { return note.find(what) != std::string::npos; }));
}

TEST_F(UnreadableTexts, AreAbsentFactsWithANoteCountingTheirOps) {
  const std::string bad = R"("Input Dims":[[1, 2.5]],"Input type":[1],"Concrete Inputs":["1"])";
  const TraceSet set =
      load(trace_json({op("aten::mm", 1, kMm), op("aten::odd", 3, bad), op("aten::odd", 5, bad)}));
  ASSERT_EQ(set.ranks.size(), 1U);
  const Trace& trace = set.ranks.front();
  const OpInputs* odd = trace.op_inputs_of(1);
  ASSERT_NE(odd, nullptr);
  EXPECT_FALSE(odd->shapes.has_value());
  EXPECT_TRUE(odd->dtypes.empty());
  EXPECT_EQ(views(trace, odd->concrete), (Strings{"1"}));
  EXPECT_EQ(trace.strings.view(odd->shapes_text), "[[1, 2.5]]");  // still shown as written
  EXPECT_EQ(notes_holding(set, "`Input Dims` that is not a list of integer lists"), 1U);
  EXPECT_EQ(notes_holding(set,
                          "`Input type` that is not a list of strings (the op's input "
                          "dtypes are absent) (2 events"),
            1U);
  EXPECT_EQ(notes_holding(set, "`Concrete Inputs`"), 0U);
}

TEST_F(UnreadableTexts, ReadableTextsLeaveNoNote) {
  const TraceSet set = load(trace_json({op("aten::mm", 1, kMm), op("aten::add", 3, kAdd)}));
  EXPECT_EQ(notes_holding(set, "Input"), 0U);
}

}  // namespace
}  // namespace stepscope::kineto
