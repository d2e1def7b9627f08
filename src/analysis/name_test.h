// A yes/no property of event names, decided once per distinct name. Names are interned and
// repeat millions of times; testing the text (prefixes, substrings, case-folding) on every event
// costs more than the rest of most passes. `Decide` must depend on the name alone.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope {

template <bool (*Decide)(std::string_view)>
class NameTest {
 public:
  explicit NameTest(const Trace& trace) : trace_(trace), by_name_(trace.strings.size(), kUnknown) {}

  [[nodiscard]] bool operator()(EventIndex event) { return of_name(trace_.events.name[event]); }

  [[nodiscard]] bool of_name(StringId name) {
    std::uint8_t& cached = by_name_[name];
    if (cached == kUnknown) cached = Decide(trace_.strings.view(name)) ? kYes : kNo;
    return cached == kYes;
  }

 private:
  static constexpr std::uint8_t kUnknown = 0;
  static constexpr std::uint8_t kNo = 1;
  static constexpr std::uint8_t kYes = 2;
  const Trace& trace_;
  std::vector<std::uint8_t> by_name_;
};

}  // namespace stepscope
