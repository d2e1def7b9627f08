#include "render/text_layout.h"

#include <gtest/gtest.h>

#include <string>

#include "render/display_width.h"
#include "render/text_table.h"

namespace stepscope::render {
namespace {

constexpr const char* kTemplateKernel =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3>)";
constexpr const char* kPythonPath =
    "/home/someone/projects/very/deep/package/layout/models/transformer/attention.py(142): "
    "forward";

std::size_t max_line_width(const std::string& text) {
  std::size_t widest = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    widest = std::max(widest, display_width(std::string_view(text).substr(start, end - start)));
    start = end + 1;
  }
  return widest;
}

TEST(DisplayWidth, CountsColumnsNotBytes) {
  EXPECT_EQ(display_width("µs"), 2U);
  EXPECT_EQ(display_width("━━"), 2U);
  EXPECT_EQ(display_width("数据"), 4U);       // wide CJK
  EXPECT_EQ(display_width("e\xcc\x81"), 1U);  // e + combining acute
}

TEST(CutMiddle, KeepsHeadAndDistinguishingTail) {
  const std::string cut = cut_middle(kTemplateKernel, 48);
  EXPECT_EQ(display_width(cut), 48U);
  EXPECT_EQ(cut.rfind("void at::native::", 0), 0U) << cut;
  EXPECT_TRUE(cut.ends_with("at::detail::Array<char*, 3>)")) << cut;
  EXPECT_NE(cut.find("…"), std::string::npos);
}

TEST(CutMiddle, PythonPathKeepsFileAndLine) {
  const std::string cut = cut_middle(kPythonPath, 50);
  EXPECT_LE(display_width(cut), 50U);
  EXPECT_TRUE(cut.ends_with("attention.py(142): forward")) << cut;
}

TEST(CutMiddle, ShortTextUnchangedAndControlsReplaced) {
  EXPECT_EQ(cut_middle("aten::mm", 40), "aten::mm");
  EXPECT_EQ(cut_middle("a\x1b[31mb", 40), "a?[31mb");
  // U+202E (right-to-left override) and U+2066 (left-to-right isolate) reorder the line.
  EXPECT_EQ(cut_middle("rtl\u202eevil", 40), "rtl?evil");
  EXPECT_EQ(cut_middle("a\u2066b\u200fc", 40), "a?b?c");
  EXPECT_EQ(cut_middle("caf\u00e9 \u2014", 40), "caf\u00e9 \u2014");  // letters and dashes stay
}

TEST(CutMiddle, CutsOnCharacterBoundariesByColumns) {
  // 20 wide characters (40 columns) cut to 11 columns: never half a character, never over.
  std::string wide;
  for (int i = 0; i < 20; ++i) wide += "数";
  const std::string cut = cut_middle(wide, 11);
  EXPECT_LE(display_width(cut), 11U);
  EXPECT_EQ(cut.size() % 3, 0U) << "a multi-byte character was split";
  std::size_t ellipses = 0;
  for (std::size_t at = cut.find("…"); at != std::string::npos; at = cut.find("…", at + 1)) {
    ++ellipses;
  }
  EXPECT_EQ(ellipses, 1U);
}

TEST(WrapHanging, ContinuationLinesAreIndentedUnderTheText) {
  const std::string text =
      "Copy from pinned memory without blocking: DataLoader(..., pin_memory=True) and "
      "tensor.to(device, non_blocking=True); keep results on the GPU instead of .cpu()";
  const std::string wrapped = wrap_hanging("     fix: ", text, 50, 10);
  EXPECT_LE(max_line_width(wrapped), 50U) << wrapped;
  EXPECT_EQ(wrapped.rfind("     fix: Copy", 0), 0U);
  EXPECT_NE(wrapped.find("\n          "), std::string::npos) << wrapped;
  EXPECT_EQ(wrapped.back(), '\n');
}

TEST(WrapHanging, SplitsAWordLongerThanTheLine) {
  const std::string wrapped = wrap_hanging("  events: ", kTemplateKernel, 40, 10);
  EXPECT_LE(max_line_width(wrapped), 40U) << wrapped;
}

TEST(FitLines, WrapsOnlyLinesThatOverflow) {
  const std::string short_line = "  short line\n";
  const std::string long_line = "  " + std::string(30, 'x') + " " + std::string(30, 'y') + "\n";
  const std::string fitted = fit_lines(short_line + long_line, 40);
  EXPECT_EQ(fitted.rfind(short_line, 0), 0U);
  EXPECT_LE(max_line_width(fitted), 40U) << fitted;
  EXPECT_NE(fitted.find("\n    yyy"), std::string::npos) << fitted;
}

TextTable kernel_table() {
  TextTable table;
  table.add_column("kernel", true);
  table.add_column("count", false, Importance::kHigh);
  table.add_column("total");
  table.add_column("min", false, Importance::kLow);
  table.add_column("max", false, Importance::kLow);
  table.add_column("share", false, Importance::kMedium);
  table.add_row({kTemplateKernel, "64", "0.624 ms", "9.0 µs", "11.0 µs", "0.5 %"});
  table.add_row({kPythonPath, "8", "0.096 ms", "12.0 µs", "12.0 µs", "0.1 %"});
  return table;
}

TEST(TextTable, WideEnoughKeepsEveryColumnAndWholeNames) {
  const std::string text = kernel_table().render("  ", 300);
  EXPECT_NE(text.find(kTemplateKernel), std::string::npos);
  EXPECT_NE(text.find("max"), std::string::npos);
  EXPECT_EQ(text.find("left out"), std::string::npos);
}

TEST(TextTable, NarrowCutsNamesThenDropsLeastImportantColumnsFirst) {
  const std::string text = kernel_table().render("  ", 50);
  EXPECT_LE(max_line_width(text), 50U) << text;
  // min and max (low) go before share (medium) and count (high); total is essential.
  EXPECT_NE(text.find("left out to fit 50 columns: min, max"), std::string::npos) << text;
  EXPECT_NE(text.find("total"), std::string::npos);
  EXPECT_NE(text.find("3>)"), std::string::npos) << "the name's tail is kept: " << text;
}

TEST(TextTable, EveryWidthFromFortyFits) {
  const TextTable table = kernel_table();
  for (std::size_t width = kMinimumTextWidth; width <= 200; ++width) {
    const std::string text = table.render("  ", width);
    ASSERT_LE(max_line_width(text), width) << text;
  }
}

}  // namespace
}  // namespace stepscope::render
