// The generic figure writer (stepscope/figures/fields.h) and the documents derived from the
// descriptions: docs/json-schema.md and python/stepscope/_figures.py must be regenerated when a
// description changes.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "render/json/json_sink.h"
#include "stepscope/analysis/catalogue.h"
#include "stepscope/figures/documents.h"
#include "stepscope/figures/fields.h"
#include "stepscope/figures/schema.h"

namespace stepscope {

namespace {

struct Inner {
  std::int64_t a_ns = 0;
};

struct Outer {
  bool ok = false;
  std::int64_t span_ns = 0;
  double mean_ns = 0;
  std::optional<double> share;
  std::vector<Inner> rows;
  Inner flat;
  std::string reason;
};

}  // namespace

template <>
struct figures::Fields<Inner> {
  static constexpr std::string_view kName = "Inner";
  static std::span<const Field> list() {
    using D = Describe<Inner>;
    static const Field k[] = {D::field<&Inner::a_ns>("a_us", Unit::kMicrosecondsFromNs, "a")};
    return k;
  }
};

template <>
struct figures::Fields<Outer> {
  static constexpr std::string_view kName = "Outer";
  static std::span<const Field> list() {
    using D = Describe<Outer>;
    static const Field k[] = {
        D::field<&Outer::ok>("ok", Unit::kNone, "flag"),
        D::field<&Outer::reason>("reason", Unit::kNone, "why not")
            .when<[](const Outer& o) { return !o.ok; }>(),
        D::field<&Outer::span_ns>("span_us", Unit::kMicrosecondsFromNs, "span"),
        D::field<&Outer::mean_ns>("mean_us", Unit::kMicrosecondsFromNsRounded, "mean"),
        D::field<&Outer::share>("share", Unit::kShare, "share"),
        D::field<&Outer::rows>("rows", Unit::kNone, "rows"),
        D::flatten<&Outer::flat>(),
        D::field<[](const Outer& o, const figures::Context& c) {
          return c.mode == Mode::kCompatTb ? o.span_ns * 2 : o.span_ns;
        }>("twice_in_tb", Unit::kCount, "context-dependent"),
    };
    return k;
  }
};

namespace {

std::string write(const Outer& outer, Mode mode = Mode::kNative) {
  render::JsonWriter json;
  render::JsonSink sink(json);
  figures::Context context;
  context.mode = mode;
  figures::write_value(sink, outer, figures::Unit::kNone, context);
  return json.take();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string kSourceRoot = std::string(STEPSCOPE_TEST_DATA) + "/../..";

TEST(Figures, WritesMembersUnitsOptionalsRowsAndConditions) {
  Outer outer;
  outer.ok = true;
  outer.span_ns = 1'234'500;
  outer.mean_ns = 2'000.4;
  outer.rows = {{1'000}, {1}};
  outer.flat.a_ns = 10;
  EXPECT_EQ(write(outer),
            R"({"ok":true,"span_us":1234.5,"mean_us":2,"share":null,"rows":[{"a_us":1},)"
            R"({"a_us":0.001}],"a_us":0.01,"twice_in_tb":1234500})");
  outer.ok = false;
  outer.reason = "no <steps>";
  outer.share = 0.25;
  outer.rows.clear();
  EXPECT_EQ(write(outer, Mode::kCompatTb),
            R"({"ok":false,"reason":"no \u003csteps\u003e","span_us":1234.5,"mean_us":2,)"
            R"("share":0.25,"rows":[],"a_us":0.01,"twice_in_tb":2469000})");
}

struct PerStep {
  std::int64_t total_ns = 0;
  double mean_ns = 0;
};

}  // namespace

template <>
struct figures::Fields<PerStep> {
  static constexpr std::string_view kName = "PerStep";
  static std::span<const Field> list() {
    using D = Describe<PerStep>;
    static const Field k[] = {
        D::field<&PerStep::total_ns>("total_ms", Unit::kMillisecondsFromNs, "total"),
        D::field<&PerStep::mean_ns>("mean_ms", Unit::kMillisecondsFromNs, "mean"),
    };
    return k;
  }
};

namespace {

TEST(Figures, MillisecondsDivideIntegerAndFractionalNanoseconds) {
  render::JsonWriter json;
  render::write_json(json, PerStep{1'500'000, 2'250.0});
  EXPECT_EQ(json.text(), R"({"total_ms":1.5,"mean_ms":0.00225})");
  const auto fields = figures::type_of<PerStep>().fields();
  EXPECT_EQ(fields[0].type->kind, figures::Kind::kInteger);
  EXPECT_EQ(figures::unit_label(fields[0].unit), "ms");
}

struct Point {
  std::int64_t time_ns = 0;
  std::optional<std::int64_t> bytes;
};

}  // namespace

template <>
struct figures::Fields<Point> {
  static constexpr std::string_view kName = "Point";
  static constexpr bool kPositional = true;
  static std::span<const Field> list() {
    using D = Describe<Point>;
    static const Field k[] = {
        D::field<&Point::time_ns>("time_us", Unit::kMicrosecondsFromNs, "time"),
        D::field<&Point::bytes>("bytes", Unit::kBytes, "bytes"),
    };
    return k;
  }
};

namespace {

TEST(Figures, PositionalStructsAreWrittenAsArrays) {
  render::JsonWriter json;
  render::JsonSink sink(json);
  const std::vector<Point> points = {{1'500, 7}, {2'000, std::nullopt}};
  figures::write_value(sink, points, figures::Unit::kNone, figures::Context{});
  EXPECT_EQ(json.text(), R"([[1.5,7],[2,null]])");
  EXPECT_TRUE(figures::type_of<Point>().positional);
  EXPECT_FALSE(figures::type_of<PerStep>().positional);
}

TEST(Figures, TypesFollowTheMembers) {
  const figures::TypeInfo& outer = figures::type_of<Outer>();
  ASSERT_EQ(outer.kind, figures::Kind::kObject);
  const auto fields = outer.fields();
  EXPECT_EQ(fields[0].type->kind, figures::Kind::kBoolean);
  EXPECT_NE(fields[1].present, nullptr);
  EXPECT_TRUE(fields[4].type->nullable);
  EXPECT_EQ(fields[5].type->kind, figures::Kind::kArray);
  EXPECT_EQ(fields[5].type->element->struct_name, "Inner");
  EXPECT_TRUE(fields[6].flatten);
}

TEST(Figures, EveryDescribedStructHasOneName) {
  // Two different structs under one name would merge their tables and Python types.
  std::map<std::string_view, std::span<const figures::Field> (*)()> names;
  std::vector<const figures::TypeInfo*> pending;
  for (const AnalysisDescription& analysis : analysis_catalogue()) {
    if (analysis.type != nullptr) pending.push_back(analysis.type());
  }
  for (const figures::DocumentPart& part : figures::document_parts()) {
    pending.push_back(&part.type());
  }
  while (!pending.empty()) {
    const figures::TypeInfo* type = pending.back();
    pending.pop_back();
    while (type->kind == figures::Kind::kArray) type = type->element;
    if (type->kind != figures::Kind::kObject) continue;
    auto [at, inserted] = names.emplace(type->struct_name, type->fields);
    EXPECT_EQ(at->second, type->fields) << type->struct_name << " names two structs";
    if (!inserted) continue;
    for (const figures::Field& field : type->fields()) pending.push_back(field.type);
  }
  EXPECT_GT(names.size(), 3U);
}

TEST(Figures, JsonSchemaDocIsUpToDate) {
  const std::string doc = read_file(kSourceRoot + "/docs/json-schema.md");
  ASSERT_FALSE(doc.empty());
  EXPECT_EQ(doc, figures::replace_generated_section(doc, figures::render_schema_markdown()))
      << "docs/json-schema.md is stale: run `build/dev/tests/stepscope_figures_gen --write .`";
}

TEST(Figures, PythonTypesAreUpToDate) {
  EXPECT_EQ(read_file(kSourceRoot + "/python/stepscope/_figures.py"),
            figures::render_python_types())
      << "python/stepscope/_figures.py is stale: run "
         "`build/dev/tests/stepscope_figures_gen --write .`";
}

}  // namespace
}  // namespace stepscope
