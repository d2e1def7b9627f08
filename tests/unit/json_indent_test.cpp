// indent_json: Python's Report.to_json(indent=N) lays the renderer's compact document out without
// changing a byte inside strings.
#include <gtest/gtest.h>

#include <string>

#include "stepscope/report.h"

namespace stepscope {
namespace {

TEST(JsonIndent, LaysOutObjectsAndArraysOneMemberPerLine) {
  EXPECT_EQ(indent_json(R"({"a":1,"b":[true,null],"c":{}})", 2),
            "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ],\n  \"c\": {}\n}");
}

TEST(JsonIndent, LeavesStringsAlone) {
  const std::string json = R"(["a,b:{c}[d]","say \"x,y\"\\",""])";
  EXPECT_EQ(indent_json(json, 1), "[\n \"a,b:{c}[d]\",\n \"say \\\"x,y\\\"\\\\\",\n \"\"\n]");
}

TEST(JsonIndent, ZeroIndentAndEmptyContainersAreUnchanged) {
  EXPECT_EQ(indent_json(R"({"a":[1,2]})", 0), R"({"a":[1,2]})");
  EXPECT_EQ(indent_json("[]", 4), "[]");
  EXPECT_EQ(indent_json("{}\n", 4), "{}\n");
}

}  // namespace
}  // namespace stepscope
