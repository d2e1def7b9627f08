#include "diagnosis/generation.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <vector>

#include "diagnosis/gain.h"
#include "diagnosis/inference.h"

namespace stepscope {

namespace {

// Three tokens in a row, each a forward pass (embedding token ids, picking a token) ending in a
// sync, already make a loop; 3 in 4
// iterations alike leaves room for the prompt's pass and the last token's.
constexpr std::int64_t kMinIterations = 3;
constexpr double kMinAlikeShare = 0.75;
// A token is chosen for at most this many sequences at once (logits rows); an evaluation loop
// taking the argmax of a batch of 64 is not decoding.
constexpr std::int64_t kMaxSequences = 8;

bool is_matmul(std::string_view name) {
  return name == "aten::mm" || name == "aten::addmm" || name == "aten::bmm" ||
         name == "aten::matmul" || name == "aten::linear" ||
         name.find("scaled_dot_product") != std::string_view::npos;
}

// Rows of the logits the op chose from (all dims but the last), or 0 when shapes are unknown.
std::int64_t logit_rows(const Trace& trace, EventIndex op) {
  const OpInputs* inputs = trace.op_inputs_of(op);
  if (inputs == nullptr || !inputs->shapes) return 0;
  const std::vector<Shape>& shapes = *inputs->shapes;
  if (shapes.empty() || shapes.front().empty()) return 0;
  std::int64_t rows = 1;
  const Shape& first = shapes.front();
  for (std::size_t d = 0; d + 1 < first.size(); ++d) rows *= first[d];
  return rows;
}

struct Iteration {
  std::int64_t matmuls = 0;
  bool chose_token = false;
  bool embeds = false;  // token ids enter the model: a language model, not an image classifier
};

// One iteration per blocking call; a sync with no matmul since the previous one belongs to the
// previous iteration (`.item()` then an EOS check on the same token, or a check right after
// profiler.step()).
std::vector<Iteration> iterations(const RankAnalyses& rank, std::int64_t& syncs) {
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  std::vector<EventIndex> order;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (e.event_class[i] == EventClass::kOp || is_launch_call(e.event_class[i])) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](EventIndex a, EventIndex b) { return e.start_ns[a] < e.start_ns[b]; });
  std::vector<Iteration> out;
  Iteration current;
  const Step* current_step = nullptr;
  for (const EventIndex i : order) {
    const Step* step = step_at(rank.steps, e.start_ns[i]);
    if (step == nullptr) continue;
    if (step != current_step) current = {};
    current_step = step;
    const std::string_view name = trace.name_of(i);
    if (e.event_class[i] == EventClass::kOp) {
      current.matmuls += is_matmul(name) ? 1 : 0;
      current.embeds = current.embeds || name == "aten::embedding";
      if (chooses_token(name)) {
        const std::int64_t rows = logit_rows(trace, i);
        current.chose_token = current.chose_token || rows <= kMaxSequences;
      }
      continue;
    }
    if (!is_blocking_call(name)) continue;
    ++syncs;
    if (current.matmuls == 0 && !out.empty()) {
      out.back().chose_token = out.back().chose_token || current.chose_token;
      out.back().embeds = out.back().embeds || current.embeds;
    } else {
      out.push_back(current);
    }
    current = {};
  }
  return out;
}

}  // namespace

GenerationSyncs generation_syncs(const RankAnalyses& rank) {
  GenerationSyncs result;
  if (!is_forward_only(rank) || rank.steps.kept().empty()) return result;
  const std::vector<Iteration> loop = iterations(rank, result.syncs);
  result.iterations = static_cast<std::int64_t>(loop.size());
  if (result.iterations < kMinIterations) return result;
  std::map<std::int64_t, std::int64_t> by_matmuls;
  for (const Iteration& it : loop) {
    if (it.matmuls > 0 && it.chose_token && it.embeds) ++by_matmuls[it.matmuls];
  }
  const auto mode =
      std::max_element(by_matmuls.begin(), by_matmuls.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  if (mode == by_matmuls.end()) return result;
  result.matmuls_per_token = mode->first;
  result.per_token =
      static_cast<double>(mode->second) >= kMinAlikeShare * static_cast<double>(result.iterations);
  return result;
}

bool chooses_token(std::string_view name) {
  return name == "aten::argmax" || name == "aten::multinomial" || name == "aten::topk" ||
         name == "aten::sort" || name == "aten::max";
}

EventIndex issuing_op(const Trace& trace, EventIndex call) {
  const EventTable& e = trace.events;
  EventIndex op = kNoEvent;
  for (EventIndex at = e.parent[call]; at != kNoEvent; at = e.parent[at]) {
    const std::string_view name = trace.name_of(at);
    if (name.rfind("ProfilerStep#", 0) == 0) break;
    if (e.event_class[at] == EventClass::kOp) op = at;
  }
  return op;
}

}  // namespace stepscope
