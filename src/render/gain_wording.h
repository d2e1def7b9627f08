// How a finding's expected gain reads in every renderer. A finding that saves no step time (a
// run heading for out-of-memory, an allocator holding unused memory) says so in words instead
// of promising "0.0 µs".
#pragma once

#include <string>

#include "stepscope/diagnosis/finding.h"

namespace stepscope::render {

// True when the finding promises no time at all, likely or at most.
[[nodiscard]] bool saves_no_time(const ExpectedGain& gain);

// "no time saved; avoids running out of memory" for memory-capacity findings, "no time saved"
// otherwise: the words shown in place of a zero gain.
[[nodiscard]] std::string no_time_saved_wording(const Finding& finding);

}  // namespace stepscope::render
