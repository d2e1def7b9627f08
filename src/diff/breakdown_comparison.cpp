// What changed per phase, per op and per kernel. Every figure is per kept step of its own run
// (the runs may keep different numbers of steps), averaged over the run's ranks.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

#include "diff/diff_parts.h"

namespace stepscope::diff {

namespace {

double kept_steps(const RankReport& rank) {
  return static_cast<double>(std::max<std::size_t>(rank.analyses.steps.kept().size(), 1));
}

double rank_count(const Report& report) {
  return static_cast<double>(std::max<std::size_t>(report.ranks.size(), 1));
}

struct OpFigures {
  double self_cpu_ns = 0;
  double self_device_ns = 0;
  double calls = 0;
};

std::map<std::string, OpFigures> op_figures(const Report& report) {
  std::map<std::string, OpFigures> figures;
  const double ranks = rank_count(report);
  for (const RankReport& rank : report.ranks) {
    const double per = kept_steps(rank) * ranks;
    // Rows grouped by input shape share a name: they add up. The ProfilerStep#N annotations
    // are the steps themselves, one name per step number: not ops to compare.
    for (const OperatorRow& row : rank.analyses.operators.rows) {
      if (row.name.starts_with("ProfilerStep#")) continue;
      OpFigures& f = figures[row.name];
      f.self_cpu_ns += static_cast<double>(row.self_cpu_ns) / per;
      f.self_device_ns += static_cast<double>(row.self_device_ns) / per;
      f.calls += static_cast<double>(row.calls) / per;
    }
  }
  return figures;
}

struct KernelFigures {
  std::string kind;
  double ns = 0;
  double count = 0;
};

std::map<std::string, KernelFigures> kernel_figures(const Report& report) {
  std::map<std::string, KernelFigures> figures;
  const double ranks = rank_count(report);
  for (const RankReport& rank : report.ranks) {
    const Trace& trace = *rank.analyses.trace;
    const std::optional<Interval>& window = rank.analyses.steps.window;
    if (!window) continue;
    const double per = kept_steps(rank) * ranks;
    // By interned name first: one string per name, not one per activity (traces hold millions).
    struct Sums {
      double ns = 0;
      double count = 0;
      EventClass event_class = EventClass::kKernel;
    };
    std::unordered_map<StringId, Sums> by_name;
    const EventTable& e = trace.events;
    for (std::size_t i = 0; i < e.size(); ++i) {
      if (!is_device_activity(e.event_class[i])) continue;
      if (e.start_ns[i] < window->start || e.start_ns[i] >= window->end) continue;
      auto [it, inserted] = by_name.try_emplace(e.name[i]);
      if (inserted) it->second.event_class = e.event_class[i];
      it->second.ns += static_cast<double>(e.dur_ns[i]);
      it->second.count += 1.0;
    }
    for (const auto& [name, sums] : by_name) {
      KernelFigures& f = figures[std::string(trace.strings.view(name))];
      if (f.kind.empty()) f.kind = std::string(to_string(sums.event_class));
      f.ns += sums.ns / per;
      f.count += sums.count / per;
    }
  }
  return figures;
}

template <typename Row, typename Key>
void sort_and_cut(std::vector<Row>& rows, Key size, int top, std::size_t& total) {
  total = rows.size();
  std::sort(rows.begin(), rows.end(), [&size](const Row& a, const Row& b) {
    const double sa = size(a);
    const double sb = size(b);
    if (sa != sb) return sa > sb;
    return a.name < b.name;
  });
  if (top >= 0 && rows.size() > static_cast<std::size_t>(top)) {
    rows.resize(static_cast<std::size_t>(top));
  }
}

}  // namespace

void compare_phases(const Report& before, const Report& after, DiffResult& result) {
  auto means = [](const Report& report, bool& applicable) {
    std::array<double, kPhaseCount> sum{};
    std::size_t ranks = 0;
    for (const RankReport& rank : report.ranks) {
      const PhasesResult& phases = rank.analyses.phases;
      if (!phases.applicable) continue;
      ++ranks;
      for (std::size_t p = 0; p < kPhaseCount; ++p) {
        sum[p] += static_cast<double>(phases.mean.host_ns[p]);
      }
    }
    applicable = ranks > 0;
    for (double& v : sum) v /= static_cast<double>(std::max<std::size_t>(ranks, 1));
    return sum;
  };
  bool before_applicable = false;
  bool after_applicable = false;
  const auto b = means(before, before_applicable);
  const auto a = means(after, after_applicable);
  result.phases_applicable = before_applicable && after_applicable;
  if (!result.phases_applicable) {
    result.notes.push_back(
        "phases not compared: " + std::string(before_applicable ? "the after" : "the before") +
        " run has no phase markers on any rank");
    return;
  }
  for (std::size_t p = 0; p < kPhaseCount; ++p) {
    result.phases.push_back({std::string(to_string(static_cast<Phase>(p))), b[p], a[p]});
  }
}

void compare_ops(const Report& before, const Report& after, const DiffOptions& options,
                 DiffResult& result) {
  const auto b = op_figures(before);
  const auto a = op_figures(after);
  for (const auto& [name, fb] : b) {
    const auto found = a.find(name);
    if (found == a.end()) {
      // A renamed op (the DataLoader iterator after adding workers) is often the largest change.
      result.ops_vanished.push_back(
          {name, true, false, fb.self_cpu_ns, 0, fb.self_device_ns, 0, fb.calls, 0});
      continue;
    }
    const OpFigures& fa = found->second;
    result.ops.push_back({name, true, true, fb.self_cpu_ns, fa.self_cpu_ns, fb.self_device_ns,
                          fa.self_device_ns, fb.calls, fa.calls});
  }
  for (const auto& [name, fa] : a) {
    if (b.count(name) == 0) {
      result.ops_appeared.push_back(
          {name, false, true, 0, fa.self_cpu_ns, 0, fa.self_device_ns, 0, fa.calls});
    }
  }
  sort_and_cut(
      result.ops_appeared,
      [](const OpChange& c) { return c.after_self_cpu_ns + c.after_self_device_ns; }, options.top,
      result.ops_appeared_total);
  sort_and_cut(
      result.ops_vanished,
      [](const OpChange& c) { return c.before_self_cpu_ns + c.before_self_device_ns; }, options.top,
      result.ops_vanished_total);
  sort_and_cut(
      result.ops,
      [](const OpChange& c) {
        return std::max(std::abs(c.after_self_cpu_ns - c.before_self_cpu_ns),
                        std::abs(c.after_self_device_ns - c.before_self_device_ns));
      },
      options.top, result.ops_total);
}

void compare_kernels(const Report& before, const Report& after, const DiffOptions& options,
                     DiffResult& result) {
  const auto b = kernel_figures(before);
  const auto a = kernel_figures(after);
  for (const auto& [name, fb] : b) {
    const auto found = a.find(name);
    if (found == a.end()) {
      result.kernels_vanished.push_back({name, fb.kind, true, false, fb.ns, 0, fb.count, 0});
      continue;
    }
    const KernelFigures& fa = found->second;
    result.kernels.push_back({name, fb.kind, true, true, fb.ns, fa.ns, fb.count, fa.count});
  }
  for (const auto& [name, fa] : a) {
    if (b.count(name) == 0) {
      result.kernels_appeared.push_back({name, fa.kind, false, true, 0, fa.ns, 0, fa.count});
    }
  }
  sort_and_cut(
      result.kernels, [](const KernelChange& c) { return std::abs(c.after_ns - c.before_ns); },
      options.top, result.kernels_total);
  sort_and_cut(
      result.kernels_appeared, [](const KernelChange& c) { return c.after_ns; }, options.top,
      result.kernels_appeared_total);
  sort_and_cut(
      result.kernels_vanished, [](const KernelChange& c) { return c.before_ns; }, options.top,
      result.kernels_vanished_total);
}

}  // namespace stepscope::diff
