// The terminal report of `stepscope memory`.
#include <fmt/format.h>

#include <algorithm>

#include "render/text_format.h"
#include "stepscope/snapshot_report.h"
#include "trace/saturating.h"

namespace stepscope {

namespace {

using render::format_bytes;
using render::format_count;
using render::format_percent;
using render::printable;

// Nanoseconds from one microsecond timestamp to another, clamped (the file may hold anything).
std::int64_t microseconds_between(std::int64_t from_us, std::int64_t to_us) {
  return saturating_mul(saturating_sub(to_us, from_us), 1000);
}

std::string count(std::int64_t n) { return format_count(static_cast<std::uint64_t>(n)); }

std::string site_table(const MemorySnapshot& s, const std::vector<SiteBytes>& rows,
                       std::string_view title) {
  if (rows.empty()) return {};
  render::TextTable table;
  table.add_column(std::string(title), true);
  table.add_column("bytes");
  table.add_column("allocations");
  for (const SiteBytes& row : rows) {
    table.add_row(
        {printable(describe_frame(s, row.site), 90), format_bytes(row.bytes), count(row.count)});
  }
  return table.render("    ");
}

// The allocation that failed: its size, the stack that asked for it, what was live.
std::string oom_section(const MemorySnapshot& s, const SnapshotDevice& d) {
  if (!d.last_oom) return {};
  const OomReport& oom = *d.last_oom;
  std::string out =
      fmt::format("  out of memory: an allocation of {} failed", format_bytes(oom.requested_bytes));
  if (oom.device_free != kAbsent) {
    out += fmt::format(" with {} free on the device", format_bytes(oom.device_free));
  }
  out += fmt::format("; {} was allocated by tensors then\n", format_bytes(oom.live_bytes));
  const auto frames = s.stack(oom.stack);
  if (frames.empty()) out += "    asked for by: (no stack recorded)\n";
  constexpr std::size_t kDepth = 8;
  for (std::size_t k = 0; k < frames.size() && k < kDepth; ++k) {
    out += fmt::format("    {} {}\n", k == 0 ? "asked for by:" : "             ",
                       printable(describe_frame(s, frames[k]), 100));
  }
  out += site_table(s, oom.live_by_site, "live at the out-of-memory, by allocation site");
  return out;
}

// Reserved bytes no large request can use, and the allocator setting that returns them.
std::string fragmentation_section(const SnapshotDevice& d) {
  if (!d.fragmentation_cost) return {};
  const FragmentationCost& f = *d.fragmentation_cost;
  return fmt::format(
      "  fragmentation costs capacity: {} reserved but unused in {} segments, the largest free "
      "block {}\n    fix: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (set before the first "
      "CUDA allocation); up to {} ({} of the reservation) becomes usable by any allocation "
      "(estimated: the free bytes outside the largest free block)\n",
      format_bytes(f.unused_bytes), count(f.segments_with_unused),
      format_bytes(f.largest_free_block), format_bytes(f.returnable_bytes),
      format_percent(f.returnable_share));
}

std::string state_section(const MemorySnapshot& s, const SnapshotDevice& d) {
  if (d.segments == 0) return {};
  std::string out = render::heading(fmt::format("GPU {} when the snapshot was taken", d.device));
  out += fmt::format("  reserved {} in {} segments ({} large, {} expandable); allocated {}",
                     format_bytes(d.reserved_bytes), count(d.segments), count(d.large_segments),
                     count(d.expandable_segments), format_bytes(d.allocated_bytes));
  if (d.fragmentation) {
    out += fmt::format("; reserved but not allocated {}", format_percent(*d.fragmentation));
  }
  out += "\n";
  out += fmt::format("  blocks: {} ({} allocated, {} awaiting free, {} free)\n", count(d.blocks),
                     count(d.blocks_by_state[0]), count(d.blocks_by_state[1]),
                     count(d.blocks_by_state[2]));
  if (d.inactive_fragmentation) {
    out += fmt::format(
        "  free inside segments: {}, the largest free block {} ({} of free memory is in smaller "
        "pieces)\n",
        format_bytes(d.inactive_bytes), format_bytes(d.largest_inactive_block),
        format_percent(*d.inactive_fragmentation));
  }
  if (!d.largest_live_blocks.empty()) {
    render::TextTable table;
    table.add_column("largest live blocks");
    table.add_column("allocated at", true);
    for (const LiveBlockRow& row : d.largest_live_blocks) {
      table.add_row({format_bytes(row.size), printable(describe_frame(s, row.site), 90)});
    }
    out += table.render("    ");
  }
  out += site_table(s, d.live_by_site, "live memory by allocation site");
  out += fragmentation_section(d);
  return out;
}

std::string actions(const SnapshotDevice& d) {
  std::string out;
  for (std::size_t a = 0; a < d.entries_by_action.size(); ++a) {
    if (d.entries_by_action[a] == 0) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}", to_string(static_cast<SnapshotAction>(a)),
                       count(d.entries_by_action[a]));
  }
  return out;
}

std::string trace_section(const MemorySnapshot& s, const SnapshotDevice& d) {
  if (d.entries == 0) return {};
  std::string out = render::heading(fmt::format("GPU {} allocation trace", d.device));
  out += fmt::format("  {} entries ({})", count(d.entries), actions(d));
  if (d.first_time_us != kAbsent && d.last_time_us != kAbsent) {
    out += fmt::format(
        " over {}", render::format_duration(microseconds_between(d.first_time_us, d.last_time_us)));
  }
  out += "\n";
  out += fmt::format("  peak allocated {} at entry {}", format_bytes(d.peak_bytes),
                     count(d.peak_entry));
  if (d.peak_time_us != kAbsent && d.first_time_us != kAbsent) {
    out +=
        fmt::format(" ({} into the trace)",
                    render::format_duration(microseconds_between(d.first_time_us, d.peak_time_us)));
  }
  out += fmt::format("; {} was allocated before the trace began\n",
                     format_bytes(d.allocated_before_trace));
  out += site_table(s, d.peak_by_site, "live at the peak, by allocation site");
  out += fmt::format("  never freed within the trace: {} in {} allocations\n",
                     format_bytes(d.never_freed_bytes), count(d.never_freed));
  out += site_table(s, d.never_freed_by_site, "never freed, by allocation site");
  if (d.ooms > 0) {
    out += fmt::format("  out of memory {} times", count(d.ooms));
    if (d.last_oom_device_free != kAbsent) {
      out +=
          fmt::format("; the device had {} free at the last", format_bytes(d.last_oom_device_free));
    }
    out += "\n";
  }
  out += oom_section(s, d);
  return out;
}

}  // namespace

std::string render_snapshot_text(const SnapshotReport& report, const TextOptions& options) {
  const MemorySnapshot& s = *report.snapshot;
  std::string out =
      fmt::format("stepscope {} · memory snapshot {} ({}; {} unique frames, {} unique stacks)\n",
                  STEPSCOPE_VERSION, printable(s.source_path, 100),
                  format_bytes(static_cast<std::int64_t>(s.input_bytes)),
                  format_count(s.frames.size()), format_count(s.stack_offsets.size() - 1));
  if (report.devices.empty()) out += "  the snapshot holds no segments and no trace entries\n";
  for (const SnapshotDevice& d : report.devices) {
    out += state_section(s, d);
    out += trace_section(s, d);
  }
  return render::fit_lines(out, std::max(options.width, render::kMinimumTextWidth));
}

std::string render_snapshot_text(const SnapshotReport& report, int top) {
  return render_snapshot_text(report, TextOptions{top, render::kDefaultTextWidth});
}

}  // namespace stepscope
