#include "job/summary_checks.h"

#include <fmt/format.h>

#include <cmath>

namespace stepscope::job {

namespace {

// Ranks and world sizes are C ints in every launcher and communicator.
constexpr std::int64_t kMaxRanks = std::int64_t{1} << 31;
// About 146 years of nanoseconds either side of the clock's zero: wider than any clock a
// profiler uses, narrow enough that differences of two times cannot overflow.
constexpr std::int64_t kMaxTimeNs = std::int64_t{1} << 62;

std::optional<std::string> time_range(std::string_view where, std::int64_t start,
                                      std::int64_t end) {
  // Compared, not negated: the absolute value of the smallest int64 does not exist.
  const auto beyond = [](std::int64_t t) { return t <= -kMaxTimeNs || t >= kMaxTimeNs; };
  if (beyond(start) || beyond(end)) {
    return fmt::format("{}: time {} ns is beyond any profiler's clock", where,
                       beyond(start) ? start : end);
  }
  if (end < start)
    return fmt::format("{} ends ({} ns) before it starts ({} ns)", where, end, start);
  return std::nullopt;
}

std::optional<std::string> not_negative(std::string_view field, std::int64_t value) {
  if (value < 0) return fmt::format("{} is negative ({})", field, value);
  return std::nullopt;
}

std::optional<std::string> identity(const RankSummary& s) {
  if (s.world_size != kAbsent && (s.world_size <= 0 || s.world_size >= kMaxRanks)) {
    return fmt::format("world_size {} is not a number of ranks", s.world_size);
  }
  if (s.rank < kAbsent || s.rank >= kMaxRanks) {
    return fmt::format("rank {} is not a rank", s.rank);
  }
  if (s.world_size > 0 && s.rank >= s.world_size) {
    return fmt::format("rank {} is outside a world of {} ranks (0..{})", s.rank, s.world_size,
                       s.world_size - 1);
  }
  return time_range("the trace", s.trace_start_ns, s.trace_end_ns);
}

std::optional<std::string> step_values(const SummaryStep& step) {
  const std::string where = fmt::format("step {}", step.number);
  if (auto bad = time_range(where, step.start_ns, step.end_ns)) return bad;
  for (const auto& [field, value] :
       {std::pair{"compute_ns", step.compute_ns},
        std::pair{"communication_ns", step.communication_ns}, std::pair{"idle_ns", step.idle_ns}}) {
    if (auto bad = not_negative(fmt::format("{} {}", where, field), value)) return bad;
  }
  for (std::size_t p = 0; p < kPhaseCount; ++p) {
    const auto field = fmt::format("{} phase_ns.{}", where, to_string(static_cast<Phase>(p)));
    if (auto bad = not_negative(field, step.phase_ns[p])) return bad;
  }
  return std::nullopt;
}

std::optional<std::string> collective_values(const SummaryCollective& c) {
  const std::string where = fmt::format("collective {} #{} of group {}", c.kind, c.order, c.group);
  if (auto bad = time_range(where, c.start_ns, c.end_ns)) return bad;
  if (c.bytes < kAbsent) return fmt::format("{}: bytes is negative ({})", where, c.bytes);
  if (c.group_size != kAbsent && (c.group_size <= 0 || c.group_size >= kMaxRanks)) {
    return fmt::format("{}: group_size {} is not a number of ranks", where, c.group_size);
  }
  if (c.order < 0) return fmt::format("{}: order is negative", where);
  if (c.overlapped_ns < 0 || c.overlapped_ns > c.end_ns - c.start_ns) {
    return fmt::format("{}: overlapped_ns {} is not within its {} ns", where, c.overlapped_ns,
                       c.end_ns - c.start_ns);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> impossible_value(const RankSummary& s) {
  if (auto bad = identity(s)) return bad;
  for (const SummaryStep& step : s.steps) {
    if (auto bad = step_values(step)) return bad;
  }
  for (const SummaryCollective& c : s.collectives) {
    if (auto bad = collective_values(c)) return bad;
  }
  for (const SummaryFinding& f : s.findings) {
    if (f.likely_gain_ns < 0 || !std::isfinite(f.likely_share) || f.likely_share < 0) {
      return fmt::format("finding {}: its likely gain is negative or not a number", f.id);
    }
  }
  for (const SummaryOp& op : s.ops) {
    if (op.ns_per_step < 0) return fmt::format("op {}: ns_per_step is negative", op.name);
  }
  return std::nullopt;
}

}  // namespace stepscope::job
