#include "render/terminal/collective_bandwidth_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "render/text_format.h"

namespace stepscope::render {

namespace {

std::string gb_per_s(double value) { return fmt::format("{:.3f} GB/s", value); }

std::string size_range(const SizeBucket& bucket) {
  return fmt::format("{} – {}", format_bytes(bucket.min_bytes), format_bytes(bucket.max_bytes));
}

void add_row(TextTable& table, std::string device, std::string collective, std::string sizes,
             const BandwidthTotals& t) {
  table.add_row({std::move(device), std::move(collective), std::move(sizes),
                 format_count(static_cast<std::uint64_t>(t.calls)), format_bytes(t.bytes),
                 format_ms(t.time_ns), gb_per_s(t.algbw_gb_per_s), gb_per_s(t.busbw_gb_per_s)});
}

std::string skipped_line(const CollectiveBandwidthResult& b) {
  const SkippedCollectives& s = b.skipped;
  const std::int64_t total =
      s.without_args + s.unknown_dtype + s.other_collective + s.zero_duration;
  if (total == 0) return {};
  return fmt::format(
      "  {} communication kernels without a bandwidth: {} without collective args, {} unknown "
      "dtype, {} other collectives (barrier, gather, …), {} of zero duration\n",
      total, s.without_args, s.unknown_dtype, s.other_collective, s.zero_duration);
}

}  // namespace

std::string render_text(const CollectiveBandwidthResult& bandwidth, int top, std::size_t width) {
  std::string out = heading("Collective bandwidth, rank-local (GB = 10^9 bytes; lower bounds)");
  if (!bandwidth.applicable) {
    out += fmt::format("  not applicable: {}\n", bandwidth.not_applicable_reason);
    return out;
  }
  if (bandwidth.collectives.empty()) {
    return out + "  no communication kernel could be sized\n" + skipped_line(bandwidth);
  }
  TextTable table;
  table.add_column("device");
  table.add_column("collective", true);
  table.add_column("sizes", true, Importance::kMedium);
  table.add_column("calls", false, Importance::kMedium);
  table.add_column("bytes", false, Importance::kLow);
  table.add_column("time");
  table.add_column("algbw", false, Importance::kHigh);
  table.add_column("busbw");
  const auto limit = static_cast<std::size_t>(std::max(top, 1));
  for (const CollectiveBandwidth& c : bandwidth.collectives) {
    const std::string device = fmt::format("GPU {}", c.device);
    const std::string name(to_string(c.collective));
    add_row(table, device, name, "all", c.totals);
    // The largest buckets carry the link's bandwidth; small ones are latency-bound.
    const std::size_t first = c.buckets.size() > limit ? c.buckets.size() - limit : 0;
    for (std::size_t b = first; b < c.buckets.size(); ++b) {
      add_row(table, "", "", size_range(c.buckets[b]), c.buckets[b].totals);
    }
  }
  out += table.render("  ", width);
  for (const CollectiveBandwidth& c : bandwidth.collectives) {
    out += fmt::format("  fastest {} on GPU {}: {} in {}, {} (busbw {})\n", to_string(c.collective),
                       c.device, format_bytes(c.fastest.bytes), format_duration(c.fastest.time_ns),
                       gb_per_s(c.fastest.algbw_gb_per_s), gb_per_s(c.fastest.busbw_gb_per_s));
  }
  out += skipped_line(bandwidth);
  if (bandwidth.skipped.outside_window > 0) {
    out += fmt::format("  {} communication kernels start outside the window\n",
                       bandwidth.skipped.outside_window);
  }
  return out;
}

}  // namespace stepscope::render
