// JSON strings from trace text: valid JSON for any bytes, and safe where the HTML report embeds
// them in a <script> element.
#include <gtest/gtest.h>

#include <string>

#include "render/json_writer.h"

namespace stepscope::render {
namespace {

TEST(JsonString, EscapesMarkupLineSeparatorsControlsAndBadUtf8) {
  std::string out;
  append_json_string(out, "a<b>&\"\\\n\r\t\x01\xe2\x80\xa8\xe2\x80\xa9\xff µs");
  EXPECT_EQ(out, R"("a\u003cb\u003e\u0026\"\\\n\r\t\u0001\u2028\u2029)"
                 "\xef\xbf\xbd"
                 R"( µs")");
}

TEST(JsonString, NoScriptEndTagSurvives) {
  std::string out;
  append_json_string(out, "</script><script>alert(1)</script><!--");
  EXPECT_EQ(out.find('<'), std::string::npos) << out;
  EXPECT_EQ(out.find('>'), std::string::npos) << out;
}

TEST(JsonString, AppendsAfterWhatIsThere) {
  std::string out = "[";
  append_json_string(out, "");
  EXPECT_EQ(out, R"(["")");
}

}  // namespace
}  // namespace stepscope::render
