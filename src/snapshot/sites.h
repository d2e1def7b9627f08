// Allocation sites of a snapshot's stacks, shared by the snapshot's analysis and its advice.
#pragma once

#include <algorithm>
#include <map>
#include <string_view>
#include <vector>

#include "stepscope/snapshot_report.h"
#include "trace/saturating.h"

namespace stepscope::snapshot_sites {

inline bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The site of each stack (see SiteBytes), computed once per stack.
class Sites {
 public:
  explicit Sites(const MemorySnapshot& s) : s_(s), cache_(s.stack_offsets.size(), kUnknown) {}

  std::uint32_t of(StackId stack) {
    if (stack == kNoStack || stack >= cache_.size()) return kNoFrame;
    if (cache_[stack] == kUnknown) cache_[stack] = choose(stack);
    return cache_[stack];
  }

 private:
  static constexpr std::uint32_t kUnknown = 0xfffffffeU;

  std::uint32_t choose(StackId stack) const {
    const auto frames = s_.stack(stack);
    if (frames.empty()) return kNoFrame;
    std::uint32_t first_python = kNoFrame;
    for (std::uint32_t frame : frames) {
      const std::string_view file = s_.strings.view(s_.frames[frame].filename);
      if (!ends_with(file, ".py")) continue;
      if (first_python == kNoFrame) first_python = frame;
      if (file.find("/torch/") == std::string_view::npos &&
          file.find("/site-packages/") == std::string_view::npos &&
          file.find("/lib/python") == std::string_view::npos) {
        return frame;
      }
    }
    return first_python != kNoFrame ? first_python : frames.front();
  }

  const MemorySnapshot& s_;
  std::vector<std::uint32_t> cache_;
};

class SiteTable {
 public:
  void add(std::uint32_t site, StackId stack, std::int64_t bytes) {
    SiteBytes& row = rows_[site];
    if (row.count == 0) {
      row.site = site;
      row.example_stack = stack;
    }
    row.bytes = saturating_add(row.bytes, bytes);
    ++row.count;
  }
  std::vector<SiteBytes> largest(int top) const {
    std::vector<SiteBytes> out;
    for (const auto& [site, row] : rows_) out.push_back(row);
    std::sort(out.begin(), out.end(), [](const SiteBytes& a, const SiteBytes& b) {
      return a.bytes != b.bytes ? a.bytes > b.bytes : a.site < b.site;
    });
    if (out.size() > static_cast<std::size_t>(top)) out.resize(static_cast<std::size_t>(top));
    return out;
  }

 private:
  std::map<std::uint32_t, SiteBytes> rows_;
};

}  // namespace stepscope::snapshot_sites
