// Options shared by every analysis (docs/metrics/00-conventions-for-every-figure.md §0.1).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace stepscope {

// native: stepscope's definitions. compat-hta / compat-tb: reproduce a peer's figures, quirks
// included, for conformance checks and side-by-side comparisons.
enum class Mode : std::uint8_t { kNative, kCompatHta, kCompatTb };
[[nodiscard]] std::string_view to_string(Mode mode);
[[nodiscard]] std::optional<Mode> parse_mode(std::string_view text);

struct StepRange {
  std::int64_t first = 0;  // inclusive step numbers
  std::int64_t last = 0;
};

struct AnalysisOptions {
  Mode mode = Mode::kNative;
  std::optional<StepRange> steps;  // analyse only these kept steps
  int top = 10;                    // rows in top-N tables
  bool group_by_input_shape = false;
  // native: a trace without ProfilerStep#N gets steps from a repeated region, else one step over
  // the whole trace (steps.h). Off by default, so the figures keep the peers' definition (no
  // steps, the GPU activity span as the window); the diagnosis turns it on for such traces.
  bool infer_iterations = false;
  bool hta_rounding = true;  // compat-hta: emulate HTA's µs rounding
                             // (docs/metrics/00-conventions-for-every-figure.md §0.6)
  // Threads for the analyses and rules of one rank; 0: pick by the trace's size. The results do
  // not depend on it (each analysis and rule writes only its own result).
  unsigned threads = 0;
};

}  // namespace stepscope
