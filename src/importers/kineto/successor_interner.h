// Interning a field's values in the order a trace writes them. A training or serving loop
// writes the same sequence of ops step after step, so the value after a given one is most often
// one of the few that followed it before: those are compared first (their lengths, then their
// bytes), and only a value none of them is pays for hashing into the pool. In a recorded
// training trace (HTA's `trace_diff/control`) nine values in ten are found among four such
// successors.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope::kineto {

class SuccessorInterner {
 public:
  // The same id as pool.intern(text); the empty text is id 0 and does not count as a value in
  // the sequence.
  StringId intern(std::string_view text, StringPool& pool);

 private:
  static constexpr std::size_t kWays = 4;
  // A successor's length is kept beside its id, so that most candidates are ruled out without
  // reading the pool. An unused way has length 0, which no non-empty text has.
  struct Way {
    std::size_t size = 0;
    StringId id = 0;
  };
  using Successors = std::array<Way, kWays>;  // most recently used first
  void remember(StringId id, std::size_t size);

  std::vector<Successors> after_;  // indexed by the previous value's id
  StringId previous_ = 0;
};

}  // namespace stepscope::kineto
