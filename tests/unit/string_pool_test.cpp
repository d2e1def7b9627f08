// StringPool: one id per distinct text, whatever its length, and views that stay valid while the
// pool grows.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope {
namespace {

TEST(StringPool, TheEmptyTextIsIdZero) {
  StringPool pool;
  EXPECT_EQ(pool.intern(""), 0U);
  EXPECT_EQ(pool.find(""), 0U);
  EXPECT_EQ(pool.view(0), "");
}

TEST(StringPool, EqualTextsShareAnIdAndUnknownTextsAreNotFound) {
  StringPool pool;
  const StringId id = pool.intern("aten::mm");
  EXPECT_NE(id, 0U);
  EXPECT_EQ(pool.intern(std::string("aten::") + "mm"), id);
  EXPECT_EQ(pool.find("aten::mm"), id);
  EXPECT_EQ(pool.find("aten::m"), StringPool::kNotInterned);
  EXPECT_EQ(pool.find("aten::mm "), StringPool::kNotInterned);
}

// Texts of every length up to 40 bytes that differ from a base text in one byte only, at every
// position: the hash reads the last bytes of a text in overlapping words, and each byte must
// still tell texts apart (the compare after the hash makes ids right even on a collision; this
// checks the ids).
TEST(StringPool, TextsDifferingInOneByteAtAnyPositionGetTheirOwnIds) {
  StringPool pool;
  std::vector<std::string> texts;
  for (std::size_t length = 1; length <= 40; ++length) {
    const std::string base(length, 'a');
    texts.push_back(base);
    for (std::size_t at = 0; at < length; ++at) {
      std::string changed = base;
      changed[at] = 'b';
      texts.push_back(changed);
    }
  }
  std::vector<StringId> ids;
  ids.reserve(texts.size());
  for (const std::string& text : texts) ids.push_back(pool.intern(text));
  EXPECT_EQ(pool.size(), texts.size() + 1);  // and ""
  for (std::size_t k = 0; k < texts.size(); ++k) {
    EXPECT_EQ(pool.view(ids[k]), texts[k]);
    EXPECT_EQ(pool.intern(texts[k]), ids[k]) << texts[k];
  }
}

TEST(StringPool, ViewsStayValidWhileThePoolGrows) {
  StringPool pool;
  const StringId first = pool.intern("first");
  const std::string_view view = pool.view(first);
  for (int i = 0; i < 100'000; ++i) pool.intern("name " + std::to_string(i));
  EXPECT_EQ(view, "first");
  EXPECT_EQ(pool.find("name 99999"), pool.intern("name 99999"));
  EXPECT_EQ(pool.size(), 100'002U);
}

}  // namespace
}  // namespace stepscope
