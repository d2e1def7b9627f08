#include "importers/kineto/successor_interner.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace stepscope::kineto {
namespace {

// Interning through the successors gives each text the id plain interning gives it, in the
// same order, whatever the sequence: repeated loops, texts of equal length that differ, more
// successors than are remembered, and empty texts between the others.
void expect_plain_ids(const std::vector<std::string>& texts) {
  StringPool plain;
  StringPool pool;
  SuccessorInterner interner;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const StringId expected = plain.intern(texts[i]);
    ASSERT_EQ(interner.intern(texts[i], pool), expected) << "text " << i << ": " << texts[i];
    ASSERT_EQ(pool.view(expected), texts[i]);
  }
  EXPECT_EQ(pool.size(), plain.size());
}

TEST(SuccessorInterner, GivesThePoolsIds) {
  // A step's ops, repeated: every value after the first loop is a remembered successor.
  std::vector<std::string> loop;
  for (int step = 0; step < 5; ++step) {
    for (const char* op : {"aten::linear", "aten::addmm", "cudaLaunchKernel", "aten::relu",
                           "cudaLaunchKernel", "aten::linear", "aten::addmm"}) {
      loop.emplace_back(op);
    }
  }
  expect_plain_ids(loop);
  // Equal lengths, different bytes, all following one value: the ways hold texts that a
  // length check alone would confuse.
  std::vector<std::string> same_length;
  for (int round = 0; round < 4; ++round) {
    for (const char* next : {"[[8, 16]]", "[[8, 32]]", "[[4, 16]]", "[[8, 17]]", "[[9, 16]]",
                             "[[8, 16]]", "[[1, 16]]"}) {
      same_length.emplace_back("aten::mm");
      same_length.emplace_back(next);
    }
  }
  expect_plain_ids(same_length);
  // Random texts from a small alphabet, with empty ones: more successors per value than are
  // remembered, so ways are replaced and found again.
  std::mt19937 random(3);
  std::vector<std::string> mixed;
  for (int i = 0; i < 5000; ++i) {
    const auto length = static_cast<std::size_t>(random() % 4);
    std::string text;
    for (std::size_t k = 0; k < length; ++k) text.push_back(static_cast<char>('a' + random() % 3));
    mixed.push_back(text);
  }
  expect_plain_ids(mixed);
}

TEST(SuccessorInterner, EmptyTextIsIdZero) {
  StringPool pool;
  SuccessorInterner interner;
  EXPECT_EQ(interner.intern("", pool), 0U);
  const StringId kernel = interner.intern("gemm", pool);
  EXPECT_NE(kernel, 0U);
  EXPECT_EQ(interner.intern("", pool), 0U);
  EXPECT_EQ(interner.intern("gemm", pool), kernel);
}

}  // namespace
}  // namespace stepscope::kineto
