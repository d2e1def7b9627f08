// The wording of a zero expected gain (render/gain_wording.h).
#include "render/gain_wording.h"

namespace stepscope::render {

bool saves_no_time(const ExpectedGain& gain) { return gain.bound_ns <= 0 && gain.likely_ns <= 0; }

std::string no_time_saved_wording(const Finding& finding) {
  if (finding.bottleneck == Bottleneck::kMemoryCapacity) {
    return "no time saved; avoids running out of memory";
  }
  return "no time saved";
}

}  // namespace stepscope::render
