// Launch classes looked up once per distinct call name: traces have millions of launch calls
// but a handful of names, and classifying compares strings.
#pragma once

#include <optional>
#include <vector>

#include "stepscope/analysis/launch_class.h"
#include "stepscope/trace.h"

namespace stepscope {

class LaunchClassCache {
 public:
  explicit LaunchClassCache(const Trace& trace)
      : trace_(trace), by_name_(trace.strings.size(), kUnknown) {}

  // The launch class of host call `call`, or nullopt if its name launches nothing.
  std::optional<LaunchClass> of(EventIndex call) {
    const StringId name = trace_.events.name[call];
    std::int8_t& cached = by_name_[name];
    if (cached == kUnknown) {
      const std::optional<LaunchClass> found = classify_launch(trace_.strings.view(name));
      cached = found ? static_cast<std::int8_t>(*found) : kNone;
    }
    if (cached == kNone) return std::nullopt;
    return static_cast<LaunchClass>(cached);
  }

 private:
  static constexpr std::int8_t kUnknown = -2;
  static constexpr std::int8_t kNone = -1;
  const Trace& trace_;
  std::vector<std::int8_t> by_name_;
};

}  // namespace stepscope
