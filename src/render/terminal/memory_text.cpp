#include "render/terminal/memory_text.h"

#include <fmt/format.h>

#include "render/text_format.h"
#include "trace/saturating.h"

namespace stepscope::render {

namespace {

std::string bytes_or_dash(std::int64_t bytes) { return bytes < 0 ? "-" : format_bytes(bytes); }

std::string peak_context(const Trace& trace, const MemoryCurveResult& memory,
                         const DeviceMemory& device) {
  std::string where =
      fmt::format("at {} into the trace",
                  format_duration(saturating_sub(device.peak_allocated_time_ns, memory.origin_ns)));
  if (device.peak_step) where += fmt::format(", step {}", *device.peak_step);
  if (device.peak_phase) where += fmt::format(", {}", to_string(*device.peak_phase));
  if (device.peak_op != kNoEvent) where += ", in " + printable(trace.name_of(device.peak_op), 50);
  return where;
}

// Allocated at the first and last kept step start: the growth a leak shows.
std::string step_growth(const DeviceMemory& device) {
  const StepMemory* first = nullptr;
  const StepMemory* last = nullptr;
  std::size_t kept = 0;
  for (const StepMemory& step : device.steps) {
    if (!step.kept || step.allocated_at_start < 0) continue;
    if (first == nullptr) first = &step;
    last = &step;
    ++kept;
  }
  if (first == nullptr || kept < 2) return {};
  const double per_step = (static_cast<double>(last->allocated_at_start) -
                           static_cast<double>(first->allocated_at_start)) /
                          static_cast<double>(kept - 1);
  return fmt::format(
      "    allocated at kept step starts: {} (step {}) -> {} (step {}), {:+.2f} MiB/step\n",
      format_bytes(first->allocated_at_start), first->step, format_bytes(last->allocated_at_start),
      last->step, per_step / (1 << 20));
}

std::string live_table(const std::vector<LiveAllocations>& rows, std::string_view title,
                       std::size_t width) {
  if (rows.empty()) return {};
  TextTable table;
  table.add_column("op", true);
  table.add_column(std::string(title));
  table.add_column("allocations");
  for (const LiveAllocations& row : rows) {
    table.add_row({printable(row.op, 50), format_bytes(row.bytes),
                   format_count(static_cast<std::uint64_t>(row.count))});
  }
  return table.render("    ", width);
}

std::string render_device(const Trace& trace, const MemoryCurveResult& memory,
                          const DeviceMemory& device, std::size_t width) {
  std::string out = fmt::format(
      "  {}: {} records ({} allocations, {} frees); never freed in the trace: {} in {} "
      "allocations\n",
      device.label, format_count(static_cast<std::uint64_t>(device.records)),
      format_count(static_cast<std::uint64_t>(device.allocations)),
      format_count(static_cast<std::uint64_t>(device.frees)),
      format_bytes(device.never_freed_bytes),
      format_count(static_cast<std::uint64_t>(device.never_freed)));
  if (device.curve.empty()) return out + "    no record carries Total Allocated\n";
  out += fmt::format("    peak allocated {} {}; reserved then {}\n",
                     format_bytes(device.peak_allocated), peak_context(trace, memory, device),
                     bytes_or_dash(device.reserved_at_peak));
  out += fmt::format("    peak reserved {}", bytes_or_dash(device.peak_reserved));
  if (device.fragmentation_at_peak) {
    out += fmt::format("; reserved but unused at the allocation peak {}",
                       format_percent(*device.fragmentation_at_peak));
  }
  out += fmt::format("; reserved grew {} times, shrank {} times\n", device.reserved_increases,
                     device.reserved_decreases);
  out += step_growth(device);
  if (device.allocated_before_first_record > 0) {
    out += fmt::format(
        "    {} was allocated before the first record; of the rest, live at the peak:\n",
        format_bytes(device.allocated_before_first_record));
  }
  out += live_table(device.live_at_peak_by_op, "live at the peak", width);
  return out;
}

}  // namespace

std::string render_text(const Trace& trace, const MemoryCurveResult& memory, int /*top*/,
                        std::size_t width) {
  if (!memory.applicable) return {};
  std::string out =
      heading("Memory ([memory] events; allocations attributed to the op around them)");
  for (const DeviceMemory& device : memory.devices)
    out += render_device(trace, memory, device, width);
  return out;
}

}  // namespace stepscope::render
