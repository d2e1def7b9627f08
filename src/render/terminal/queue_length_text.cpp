#include "render/terminal/queue_length_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "render/text_format.h"

namespace stepscope::render {

namespace {

std::string count(std::int64_t n) { return fmt::format("{} launches", n); }

std::vector<const StreamQueueLength*> deepest_first(const QueueLengthResult& queues) {
  std::vector<const StreamQueueLength*> order;
  for (const StreamQueueLength& q : queues.streams) order.push_back(&q);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->time_weighted_mean_depth > b->time_weighted_mean_depth;
  });
  return order;
}

}  // namespace

std::string render_text(const QueueLengthResult& queues, int top, std::size_t width) {
  std::string out = heading("Launch queue per stream (submitted, not yet started; step window)");
  if (!queues.applicable) {
    out += fmt::format("  not applicable: {}\n", queues.not_applicable_reason);
    return out;
  }
  TextTable table;
  table.add_column("device");
  table.add_column("stream");
  table.add_column("launched", false, Importance::kMedium);
  table.add_column("mean depth (time-weighted)");
  table.add_column("max depth", false, Importance::kHigh);
  table.add_column("time at the 1024 limit", false, Importance::kHigh);
  const std::vector<const StreamQueueLength*> order = deepest_first(queues);
  const auto limit = static_cast<std::size_t>(std::max(top, 1));
  for (std::size_t r = 0; r < order.size() && r < limit; ++r) {
    const StreamQueueLength& q = *order[r];
    table.add_row({fmt::format("GPU {}", q.device), std::to_string(q.stream), count(q.launches),
                   fmt::format("{:.1f} launches", q.time_weighted_mean_depth), count(q.max_depth),
                   fmt::format("{} ({})", format_duration(q.time_at_limit_ns),
                               format_percent(q.time_at_limit_share))});
  }
  out += table.render("  ", width);
  return out;
}

}  // namespace stepscope::render
