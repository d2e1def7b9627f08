#include "diagnosis/gain.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace stepscope {

double mean_step_ns(const RankAnalyses& rank) {
  return rank.step_time.duration_ns.count > 0 ? rank.step_time.duration_ns.mean : 0.0;
}

ExpectedGain make_gain(std::int64_t bound_ns, std::int64_t likely_ns, double step_ns,
                       std::string method) {
  ExpectedGain gain;
  gain.bound_ns = std::max<std::int64_t>(bound_ns, 0);
  gain.likely_ns = std::clamp<std::int64_t>(likely_ns, 0, gain.bound_ns);
  if (step_ns > 0) {
    gain.bound_share = static_cast<double>(gain.bound_ns) / step_ns;
    gain.likely_share = static_cast<double>(gain.likely_ns) / step_ns;
  }
  gain.method = std::move(method);
  return gain;
}

ExpectedGain make_predicted_gain(const RankAnalyses& rank, const WhatIfChange& fix,
                                 std::int64_t bound_ns, std::int64_t fallback_likely_ns,
                                 std::string_view bound_method) {
  const double step_ns = mean_step_ns(rank);
  if (rank.step_models.runs.empty()) {
    return make_gain(
        bound_ns, fallback_likely_ns, step_ns,
        fmt::format("bound: {}; likely: {} (no steps to replay)", bound_method, fix.describe()));
  }
  const CriticalPathResult& unchanged = rank.critical_path;
  const double after = modelled_step_ns(*rank.trace, rank.step_models, fix);
  const auto saving = std::max<std::int64_t>(0, std::llround(unchanged.modelled_step_ns - after));
  return make_gain(std::max(bound_ns, saving), saving, step_ns,
                   fmt::format("bound: {}; likely: the kept steps replayed with {} ({:.3f} ms "
                               "→ {:.3f} ms per step, `stepscope whatif`)",
                               bound_method, fix.describe(), unchanged.measured_step_ns / 1e6,
                               (unchanged.measured_step_ns - static_cast<double>(saving)) / 1e6));
}

void keep_most_frequent(std::vector<EventRefs>& refs, std::size_t limit) {
  std::stable_sort(refs.begin(), refs.end(),
                   [](const EventRefs& a, const EventRefs& b) { return a.count > b.count; });
  if (refs.size() > limit) refs.resize(limit);
}

const Step* step_at(const StepsResult& steps, std::int64_t t) {
  // Rebased steps never overlap and start in order: the candidate is the last that starts <= t.
  auto after =
      std::upper_bound(steps.steps.begin(), steps.steps.end(), t,
                       [](std::int64_t time, const Step& step) { return time < step.start_ns; });
  if (after == steps.steps.begin()) return nullptr;
  const Step& step = *(after - 1);
  return step.kept() && t < step.end_ns ? &step : nullptr;
}

const Step* StepCursor::at(std::int64_t t) {
  if (t < last_) return step_at(steps_, t);
  last_ = t;
  const std::vector<Step>& steps = steps_.steps;
  while (after_ < steps.size() && steps[after_].start_ns <= t) ++after_;
  if (after_ == 0) return nullptr;
  const Step& step = steps[after_ - 1];
  return step.kept() && t < step.end_ns ? &step : nullptr;
}

std::size_t EventRefList::add(std::string_view name, std::int64_t start_ns, std::int64_t end_ns,
                              const Step* step) {
  // Find before inserting: most events repeat a name, and only a new one pays for a string.
  auto entry = index_.find(name);
  if (entry == index_.end()) {
    entry = index_.emplace(std::string(name), refs_.size()).first;
    EventRefs ref;
    ref.name = std::string(name);
    ref.first_start_ns = start_ns;
    ref.last_end_ns = end_ns;
    refs_.push_back(std::move(ref));
  }
  const std::size_t index = entry->second;
  EventRefs& found = refs_[index];
  ++found.count;
  found.first_start_ns = std::min(found.first_start_ns, start_ns);
  found.last_end_ns = std::max(found.last_end_ns, end_ns);
  // Passes in start order add a name's events step after step: the last step listed is the
  // usual match, and saves a hash probe.
  if (step != nullptr && (found.steps.empty() || found.steps.back() != step->number) &&
      listed_steps_.emplace(index, step->number).second) {
    found.steps.push_back(step->number);
  }
  return index;
}

std::vector<EventRefs> EventRefList::most_frequent(std::size_t limit) const {
  std::vector<std::size_t> order(refs_.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  const auto more_events = [this](std::size_t a, std::size_t b) {
    return refs_[a].count > refs_[b].count;
  };
  if (order.size() > limit) {
    // Ties keep first-seen order: the index breaks them, as a stable sort would.
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(limit),
                      order.end(), [&more_events](std::size_t a, std::size_t b) {
                        return more_events(a, b) || (!more_events(b, a) && a < b);
                      });
    order.resize(limit);
  } else {
    std::stable_sort(order.begin(), order.end(), more_events);
  }
  std::vector<EventRefs> out;
  out.reserve(order.size());
  for (std::size_t k : order) out.push_back(refs_[k]);
  return out;
}

void WeightedRefs::add(std::string_view name, std::int64_t start_ns, std::int64_t end_ns,
                       const Step* step, std::int64_t weight) {
  const std::size_t index = refs_.add(name, start_ns, end_ns, step);
  if (index == weights_.size()) weights_.push_back(0);
  weights_[index] += weight;
}

std::vector<EventRefs> WeightedRefs::heaviest(std::size_t limit) const {
  std::vector<std::size_t> order(refs_.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [this](std::size_t a, std::size_t b) { return weights_[a] > weights_[b]; });
  std::vector<EventRefs> out;
  for (std::size_t k = 0; k < order.size() && k < limit; ++k) out.push_back(refs_.all()[order[k]]);
  return out;
}

}  // namespace stepscope
