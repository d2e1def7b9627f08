#include "importers/kineto/successor_interner.h"

#include <algorithm>
#include <cstring>

namespace stepscope::kineto {

StringId SuccessorInterner::intern(std::string_view text, StringPool& pool) {
  if (text.empty()) return 0;
  if (previous_ < after_.size()) {
    Successors& candidates = after_[previous_];
    for (std::size_t way = 0; way < kWays; ++way) {
      const Way found = candidates[way];
      if (found.size != text.size() ||
          std::memcmp(pool.view(found.id).data(), text.data(), text.size()) != 0) {
        continue;
      }
      // Moved to the front, so that the ways stay in order of last use.
      for (std::size_t k = way; k > 0; --k) candidates[k] = candidates[k - 1];
      candidates[0] = found;
      previous_ = found.id;
      return found.id;
    }
  }
  const StringId id = pool.intern(text);
  remember(id, text.size());
  return id;
}

// `id` followed the previous value without being among its successors: it becomes the first of
// them, and the least recently used one goes.
void SuccessorInterner::remember(StringId id, std::size_t size) {
  if (previous_ >= after_.size()) after_.resize(static_cast<std::size_t>(previous_) + 1);
  Successors& candidates = after_[previous_];
  std::copy_backward(candidates.begin(), candidates.end() - 1, candidates.end());
  candidates[0] = Way{size, id};
  previous_ = id;
}

}  // namespace stepscope::kineto
