// Rule: generation without a KV cache. Each new token runs the model over the whole sequence so
// far: the attention's query length equals its key length and grows by one from one forward
// pass to the next (1, 2, 3, ... in the `Input Dims` of scaled_dot_product_attention, or of the
// bmm / matmul of Q·Kᵀ and P·V). With a KV cache the query length is 1 and only the key length
// grows, so every position but the newest is recomputed for nothing.
//
// Evidence: forward passes per kept step that recompute the sequence, the query lengths of the
// longest run (attention ops as references), the share of their FLOPs that is wasted.
// Threshold: >= 4 successive forward passes, in a trace with no backward pass and no optimizer,
// whose attention has query length = key length >= 2 growing by exactly one each pass, a token
// being picked between passes (argmax / topk / multinomial...). A prompt is encoded once at full
// length; only a loop that re-encodes it with one more token each time grows by one, four in a
// row rule out a coincidence of shapes, and the token pick rules out an evaluation loop over
// batches sorted by length.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

#include "diagnosis/gain.h"
#include "diagnosis/generation.h"
#include "diagnosis/inference.h"
#include "diagnosis/rules/rules.h"
#include "stepscope/intervals.h"

namespace stepscope::rules {

namespace {

constexpr std::size_t kMinGrowingPasses = 4;
// Short sequences are launch- and memory-bound: their time shrinks less than their FLOPs.
constexpr double kLikelyOfBound = 0.5;

// One forward pass's attention: its query length and the span of its attention ops.
struct Pass {
  std::int64_t length = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  bool after_token = false;  // a token was picked since the previous pass
};

// The query length of an attention op that sees the whole sequence (query length = key length
// >= 2), else nullopt: a cached decode step (query length 1) or an unrelated matmul.
std::optional<std::int64_t> full_sequence_length(std::string_view name,
                                                 const std::vector<Shape>& shapes) {
  if (shapes.size() < 2 || shapes[0].size() < 3 || shapes[1].size() < 2) return std::nullopt;
  const Shape& a = shapes[0];
  const Shape& b = shapes[1];
  const std::int64_t query = a[a.size() - 2];
  if (query < 2) return std::nullopt;
  if (name.find("scaled_dot_product") != std::string_view::npos) {
    if (b[b.size() - 2] == query) return query;  // q [.., L, E], k [.., S, E]
    return std::nullopt;
  }
  if (b.size() < 3) return std::nullopt;  // a linear layer's weight is 2-D
  // Q·Kᵀ: [.., L, E] x [.., E, S]; P·V: [.., L, S] x [.., S, E].
  if (b.back() == query || a.back() == query) return query;
  return std::nullopt;
}

bool is_attention_candidate(std::string_view name) {
  return name == "aten::bmm" || name == "aten::matmul" ||
         name.find("scaled_dot_product") != std::string_view::npos;
}

// Forward passes in time order: consecutive attention ops with the same length are one pass.
std::vector<Pass> passes(const RankAnalyses& rank, EventRefList& refs) {
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  std::vector<EventIndex> order;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const std::string_view name = trace.name_of(i);
    if (e.event_class[i] == EventClass::kOp &&
        (is_attention_candidate(name) || chooses_token(name))) {
      order.push_back(i);
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](EventIndex a, EventIndex b) { return e.start_ns[a] < e.start_ns[b]; });
  std::vector<Pass> out;
  bool picked = false;
  for (const EventIndex i : order) {
    const Step* step = step_at(rank.steps, e.start_ns[i]);
    if (step == nullptr) continue;
    if (chooses_token(trace.name_of(i))) {
      picked = true;
      continue;
    }
    const OpInputs* inputs = trace.op_inputs_of(i);
    if (inputs == nullptr || !inputs->shapes) continue;
    const auto length = full_sequence_length(trace.name_of(i), *inputs->shapes);
    if (!length) continue;
    refs.add(trace.name_of(i), e.start_ns[i], e.end_ns(i), step);
    if (!out.empty() && out.back().length == *length) {
      out.back().end_ns = std::max(out.back().end_ns, e.end_ns(i));
    } else {
      out.push_back({*length, e.start_ns[i], e.end_ns(i), picked});
      picked = false;
    }
  }
  return out;
}

// Runs of passes whose length grows by exactly one with a token picked in between, of at least
// kMinGrowingPasses.
std::vector<std::vector<Pass>> growing_runs(const std::vector<Pass>& all) {
  std::vector<std::vector<Pass>> runs;
  std::vector<Pass> run;
  for (const Pass& pass : all) {
    if (!run.empty() && (pass.length != run.back().length + 1 || !pass.after_token)) {
      if (run.size() >= kMinGrowingPasses) runs.push_back(run);
      run.clear();
    }
    run.push_back(pass);
  }
  if (run.size() >= kMinGrowingPasses) runs.push_back(run);
  return runs;
}

// The time the growing passes compute: on a GPU trace the device activities that start within
// their spans (not the idle between them, which the idle-based findings own); on a CPU-only
// trace the spans themselves.
std::int64_t compute_ns(const Trace& trace, const std::vector<std::vector<Pass>>& runs) {
  std::vector<Interval> spans;
  std::int64_t host_ns = 0;
  for (const auto& run : runs) {
    spans.push_back({run.front().start_ns, run.back().end_ns});
    host_ns += run.back().end_ns - run.front().start_ns;
  }
  const EventTable& e = trace.events;
  std::int64_t device_ns = 0;
  bool any_device = false;
  for (const EventIndex i : e.device_activities) {
    any_device = true;
    // A kernel runs after its launch: place it by its launch call where it has one.
    const std::int64_t at = e.start_ns[e.launcher[i] != kNoEvent ? e.launcher[i] : i];
    const auto after =
        std::upper_bound(spans.begin(), spans.end(), at,
                         [](std::int64_t t, const Interval& s) { return t < s.start; });
    if (after != spans.begin() && at < std::prev(after)->end) device_ns += e.dur_ns[i];
  }
  return any_device ? device_ns : host_ns;
}

}  // namespace

std::vector<Finding> check_kv_cache_missing(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  if (step_ns <= 0 || kept.empty() || !is_forward_only(rank)) return {};
  EventRefList refs;
  const auto runs = growing_runs(passes(rank, refs));
  if (runs.empty()) return {};

  // FLOPs of a pass scale with its query length L (linear layers; attention with L·S): a cached
  // pass does the newest position only, so (L - 1) of every L positions are wasted.
  double positions = 0;
  double wasted = 0;
  std::size_t recomputing = 0;
  const std::vector<Pass>* longest = &runs.front();
  for (const auto& run : runs) {
    for (const Pass& pass : run) {
      positions += static_cast<double>(pass.length);
      wasted += static_cast<double>(pass.length - 1);
    }
    recomputing += run.size();
    if (run.size() > longest->size()) longest = &run;
  }
  const double waste_share = wasted / positions;
  const auto steps = static_cast<double>(kept.size());
  const std::int64_t busy_ns = compute_ns(*rank.trace, runs);
  const auto bound = static_cast<std::int64_t>(static_cast<double>(busy_ns) / steps * waste_share);

  Finding finding;
  finding.id = "kv-cache-missing";
  finding.bottleneck = Bottleneck::kGpuCompute;
  finding.part = StepPart::kForward;
  finding.rank = rank.trace->rank;
  finding.title = fmt::format(
      "Generation without a KV cache: each token recomputes the whole sequence ({:.0f} % of the "
      "attention passes' FLOPs wasted)",
      waste_share * 100);
  finding.evidence.push_back(
      Evidence{"forward passes per kept step over the whole sequence, "
               "its length one longer each time",
               static_cast<double>(recomputing) / steps, "passes/step", refs.all()});
  finding.evidence.push_back(
      Evidence{fmt::format("query length of the longest run, {} to {} (cached decoding: 1)",
                           longest->front().length, longest->back().length),
               static_cast<double>(longest->back().length),
               "tokens",
               {}});
  finding.evidence.push_back(
      Evidence{"FLOPs spent on positions already computed in an earlier pass (Σ(L−1)/ΣL)",
               waste_share * 100,
               "%",
               {}});
  finding.fix =
      "Cache the keys and values: call the model with use_cache=True and feed back "
      "past_key_values, passing only the new token (input_ids[:, -1:]) after the prompt; for "
      "your own attention, append each step's k and v to a cache and attend with query length "
      "1. A transformers StaticCache (cache_implementation=\"static\") keeps shapes fixed for "
      "torch.compile; model.generate() does all of this by default.";
  finding.gain = make_gain(
      bound, static_cast<std::int64_t>(static_cast<double>(bound) * kLikelyOfBound), step_ns,
      "bound: the wasted FLOPs share Σ(L−1)/ΣL times the GPU time launched between the growing "
      "passes' first and last attention op (CPU traces: that span); likely: half, as short passes "
      "do not speed up in proportion to FLOPs");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
