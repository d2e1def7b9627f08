// Names cut in the middle keep the tail that tells two kernels apart, on character boundaries.
#include <gtest/gtest.h>

#include <string>

#include "render/html/html_escape.h"
#include "render/name_cut.h"

namespace stepscope::render {
namespace {

std::size_t code_points(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xc0) != 0x80;
  return n;
}

TEST(NameCut, ShortNamesAreUnchanged) {
  EXPECT_EQ(cut_name_middle("aten::mm", 40), "aten::mm");
  EXPECT_EQ(cut_name_middle("", 40), "");
  EXPECT_EQ(cut_name_middle("exactly10!", 10), "exactly10!");
}

TEST(NameCut, TwoKernelsWithOneHeadStayApart) {
  const std::string add =
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>";
  const std::string mul =
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_mul<float>>";
  const std::string a = cut_name_middle(add, 48);
  const std::string m = cut_name_middle(mul, 48);
  EXPECT_NE(a, m);
  EXPECT_EQ(code_points(a), 48u);
  EXPECT_EQ(a.rfind("void at::native::", 0), 0u) << a;
  EXPECT_NE(a.find("…"), std::string::npos);
  EXPECT_EQ(a.substr(a.size() - 23), "CUDAFunctor_add<float>>") << a;
}

TEST(NameCut, CutsOnUtf8CharacterBoundaries) {
  // 30 three-byte characters: any cut by bytes would split one.
  std::string name;
  for (int i = 0; i < 30; ++i) name += "名";
  const std::string cut = cut_name_middle(name, 11);
  EXPECT_EQ(code_points(cut), 11u);
  EXPECT_EQ(cut, "名名名名…名名名名名名");
  // An invalid byte counts as one character and becomes U+FFFD (each byte of a truncated
  // sequence too), never half a sequence.
  const std::string bad = "ab\xff" + std::string(40, 'x') + "\xe5\x90";
  const std::string cut_bad = cut_name_middle(bad, 12);
  EXPECT_EQ(code_points(cut_bad), 12u);
  EXPECT_EQ(cut_bad, "ab\xef\xbf\xbdx…xxxxx\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(NameCut, HostileNamesStayMarkupFreeOnceEscaped) {
  const std::string hostile =
      "<script>alert(1)</script>" + std::string(50, 'x') + "\"><img src=x onerror=alert(2)>";
  const std::string shown = html::escape(cut_name_middle(hostile, 40));
  EXPECT_EQ(shown.find('<'), std::string::npos) << shown;
  EXPECT_EQ(shown.find('>'), std::string::npos) << shown;
  EXPECT_EQ(shown.find('"'), std::string::npos) << shown;
  EXPECT_NE(shown.find("onerror=alert(2)&gt;"), std::string::npos) << shown;
}

TEST(NameCut, ShortenNameDropsAParameterListBeforeCutting) {
  const std::string copy =
      "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 4, 64, "
      "64>(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned "
      "int, 64, 64>, int, int, int)";
  const std::string shown = shorten_name(copy, 46);
  const std::string template_tail = ", unsigned int, 4, 64, 64>";
  EXPECT_EQ(shown.substr(shown.size() - template_tail.size()), template_tail) << shown;
  EXPECT_EQ(code_points(shown), 46u);
  EXPECT_EQ(shorten_name("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", 46),
            "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t");
  // Short names keep their parameters; a name that is only a list is cut, not emptied.
  EXPECT_EQ(shorten_name("f(int)", 46), "f(int)");
  EXPECT_EQ(code_points(shorten_name("(" + std::string(60, 'x') + ")", 20)), 20u);
  // Unbalanced parentheses: cut as it is.
  EXPECT_EQ(code_points(shorten_name(std::string(60, 'y') + "))", 20)), 20u);
}

TEST(NameCut, ZeroWidthIsEmpty) { EXPECT_EQ(cut_name_middle("abcdef", 0), ""); }

}  // namespace
}  // namespace stepscope::render
