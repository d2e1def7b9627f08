// Rule: a generation loop that syncs with the host once per generated token. `next_token.item()`
// or an EOS check (`if next_token == eos`) after each forward pass makes the host wait for the
// GPU to drain, and the GPU then waits while the host launches the next token's forward pass:
// decoding is already launch-heavy, and the sync stops the host from queueing ahead.
//
// A specialisation of host-device-sync: in a forward-only trace whose blocking calls each end a
// repeated forward pass that embeds token ids and picks a token (the same number of matrix
// multiplies, aten::embedding, an argmax / topk / multinomial over at most 8 rows of logits;
// diagnosis/generation.h), this rule reports
// the syncs and host-device-sync stays silent. Both read the same owned idle (IdleOwner::
// kHostDeviceSync, second owner of idle), so the cost is counted once, and the finding carries
// the advice for generation instead of the advice for a training loop.
//
// Evidence: blocking calls per generated token and tokens per kept step, with the calls and the
// ops that issued them; the GPU idle after them. Threshold: that idle >= 3 % of the mean step,
// the same as host-device-sync's so that exactly one of the two reports a generation loop's syncs.
#include <fmt/format.h>

#include "diagnosis/gain.h"
#include "diagnosis/generation.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

constexpr double kThresholdShare = 0.03;
// One EOS check every N tokens stays: assume removing 80 % of the idle, as host-device-sync.
constexpr double kLikelyRemovedShare = 0.8;

}  // namespace

std::vector<Finding> check_per_token_sync(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  if (step_ns <= 0 || kept.empty() || !rank.idle_attribution.applicable) return {};
  const GenerationSyncs loop = generation_syncs(rank);
  if (!loop.per_token || loop.syncs == 0) return {};
  const std::int64_t idle_per_step = rank.idle_attribution.per_step_ns(IdleOwner::kHostDeviceSync);
  const double share = static_cast<double>(idle_per_step) / step_ns;
  if (share < kThresholdShare) return {};

  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  EventRefList calls;
  EventRefList ops;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (!is_launch_call(e.event_class[i]) || !is_blocking_call(trace.name_of(i))) continue;
    const Step* step = step_at(rank.steps, e.start_ns[i]);
    if (step == nullptr) continue;
    calls.add(trace.name_of(i), e.start_ns[i], e.end_ns(i), step);
    if (const EventIndex op = issuing_op(trace, i); op != kNoEvent) {
      ops.add(trace.name_of(op), e.start_ns[op], e.end_ns(op), step);
    }
  }
  const auto steps = static_cast<double>(kept.size());
  const auto tokens = static_cast<double>(loop.iterations);
  Finding finding;
  finding.id = "per-token-sync";
  finding.bottleneck = Bottleneck::kHostDeviceSync;
  finding.part = StepPart::kForward;
  finding.rank = trace.rank;
  finding.title = fmt::format(
      "The generation loop syncs with the GPU at every token: GPU idle {:.1f} % of each step",
      share * 100);
  finding.evidence.push_back(
      Evidence{"tokens generated per kept step (forward passes of "
               "the same model, each picking a token and ending in a sync)",
               tokens / steps, "tokens/step", ops.all()});
  finding.evidence.push_back(Evidence{"blocking calls per generated token",
                                      static_cast<double>(loop.syncs) / tokens, "calls/token",
                                      calls.all()});
  finding.evidence.push_back(
      Evidence{"GPU idle after those calls (idle during data loading is input-bound's), per step",
               static_cast<double>(idle_per_step) / 1e6,
               "ms/step",
               {}});
  finding.fix =
      "Keep the generated tokens on the GPU: append next_token to a GPU tensor with torch.cat "
      "instead of calling next_token.item() or .tolist() per token, and check for EOS every N "
      "tokens (e.g. (tokens == eos_id).any().item() every 16 steps, or a GPU-side `finished` "
      "mask). Then make each token cheap to launch: a static KV cache (transformers StaticCache, "
      "model.generate(..., cache_implementation=\"static\")) with the forward under "
      "torch.compile(mode=\"reduce-overhead\") replays each token as one CUDA graph, so the "
      "host has the next token queued before the GPU runs dry.";
  finding.gain = make_gain(
      idle_per_step,
      static_cast<std::int64_t>(static_cast<double>(idle_per_step) * kLikelyRemovedShare), step_ns,
      "bound: the GPU idle between each per-token sync's return and the next GPU work (the "
      "host-device-sync owner of idle, not reported again); likely: 80 % of it, keeping an EOS "
      "check every N tokens");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
