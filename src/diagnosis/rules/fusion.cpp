// Rule: many small ops, a fusion opportunity. Chains of short elementwise kernels run one after
// another on a stream; each reads and writes its tensors from memory and pays a launch. A fused
// kernel (torch.compile) does the chain in one pass, in about the time of its longest member.
//
// Evidence: chains of >= 4 consecutive short (< 20 µs) elementwise / reduction kernels less than
// 10 µs apart on a stream, their count and time per step, and the kernels in them.
// Threshold: what fusion saves (each chain's span minus its longest kernel) >= 5 % of the step.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/name_test.h"
#include "diagnosis/gain.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

constexpr std::int64_t kShortNs = 20'000;
constexpr std::int64_t kMaxGapNs = 10'000;
constexpr std::size_t kMinChain = 4;
constexpr double kThresholdShare = 0.05;
constexpr double kLikelyShare = 0.7;  // compilers leave some chains unfused (graph breaks)

bool is_fusible(std::string_view name) {
  for (std::string_view marker : {"elementwise", "reduce_kernel", "unrolled", "vectorized",
                                  "pointwise", "triton_poi", "CatArray", "fill"}) {
    if (name.find(marker) != std::string_view::npos) return true;
  }
  return false;
}

struct Chain {
  std::vector<EventIndex> kernels;
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int64_t longest = 0;
};

}  // namespace

std::vector<Finding> check_fusion(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  if (step_ns <= 0 || kept.empty()) return {};
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  std::map<std::pair<std::int32_t, std::int64_t>, Chain> open;
  std::vector<Chain> chains;
  auto close = [&chains](Chain& chain) {
    if (chain.kernels.size() >= kMinChain) chains.push_back(chain);
    chain = Chain{};
  };
  NameTest<is_fusible> fusible(trace);  // eight substring searches, once per kernel name
  StepCursor in_step(rank.steps);
  for (const EventIndex i : e.device_activities) {
    if (e.event_class[i] != EventClass::kKernel) continue;
    Chain& chain = open[{trace.activity_device(i), trace.activity_stream(i)}];
    const bool fits = e.dur_ns[i] < kShortNs && fusible(i) && in_step.at(e.start_ns[i]) != nullptr;
    if (!fits || (!chain.kernels.empty() && e.start_ns[i] - chain.end > kMaxGapNs)) close(chain);
    if (!fits) continue;
    if (chain.kernels.empty()) chain.start = e.start_ns[i];
    chain.kernels.push_back(i);
    chain.end = std::max(chain.end, e.end_ns(i));
    chain.longest = std::max(chain.longest, e.dur_ns[i]);
  }
  for (auto& [stream, chain] : open) close(chain);
  std::int64_t saving = 0;
  std::int64_t kernels_in_chains = 0;
  EventRefList refs;
  for (const Chain& chain : chains) {
    saving += (chain.end - chain.start) - chain.longest;
    kernels_in_chains += static_cast<std::int64_t>(chain.kernels.size());
    for (EventIndex k : chain.kernels) {
      refs.add(trace.name_of(k), e.start_ns[k], e.end_ns(k), step_at(rank.steps, e.start_ns[k]));
    }
  }
  const auto steps = static_cast<double>(kept.size());
  const auto saving_per_step = static_cast<std::int64_t>(static_cast<double>(saving) / steps);
  if (static_cast<double>(saving_per_step) / step_ns < kThresholdShare) return {};
  Finding finding;
  finding.id = "fusion";
  finding.bottleneck = Bottleneck::kMemoryTraffic;
  finding.part = StepPart::kWholeStep;
  finding.rank = trace.rank;
  finding.title = fmt::format("{:.0f} chains of small elementwise kernels per step could be fused",
                              static_cast<double>(chains.size()) / steps);
  finding.evidence.push_back(Evidence{"chains of >= 4 short elementwise kernels per step",
                                      static_cast<double>(chains.size()) / steps,
                                      "chains/step",
                                      {}});
  finding.evidence.push_back(Evidence{"kernels in those chains per step",
                                      static_cast<double>(kernels_in_chains) / steps,
                                      "kernels/step", refs.most_frequent(5)});
  finding.fix =
      "Fuse the elementwise chains: model = torch.compile(model) (Inductor generates one kernel "
      "per chain); for optimizer and normalisation code, prefer the fused library versions "
      "(fused=True optimizers, torch.nn.functional.scaled_dot_product_attention, fused "
      "LayerNorm).";
  finding.gain = make_gain(
      saving_per_step,
      static_cast<std::int64_t>(static_cast<double>(saving_per_step) * kLikelyShare), step_ns,
      "bound: each chain's span minus its longest kernel (a fused kernel runs "
      "about as long as its longest member); likely: 70 % of it");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
