// Whether a forward-only trace is a token-by-token generation loop that syncs with the host once
// per token: per-token-sync reports those syncs, and host-device-sync then stays silent on them.
#pragma once

#include <cstdint>
#include <string_view>

#include "stepscope/analysis/rank_analyses.h"

namespace stepscope {

// Decode iterations seen between the blocking calls of the kept steps.
struct GenerationSyncs {
  bool per_token = false;              // a generation loop that syncs once per token
  std::int64_t iterations = 0;         // repeated forward passes that end in a sync (tokens)
  std::int64_t syncs = 0;              // blocking calls in the kept steps
  std::int64_t matmuls_per_token = 0;  // matrix multiplies per repeated forward (the mode)
};

[[nodiscard]] GenerationSyncs generation_syncs(const RankAnalyses& rank);

// An op that picks the next token from the logits: greedy (argmax, max), top-k / top-p (topk,
// sort) or sampling (multinomial).
[[nodiscard]] bool chooses_token(std::string_view name);

// The outermost op under the step that led to a host call: the user's line of code is there.
[[nodiscard]] EventIndex issuing_op(const Trace& trace, EventIndex call);

}  // namespace stepscope
