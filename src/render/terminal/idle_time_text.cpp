#include "render/terminal/idle_time_text.h"

#include <fmt/format.h>

#include "render/text_format.h"

namespace stepscope::render {

std::string render_text(const IdleTimeResult& idle, int top, std::size_t width) {
  std::string out = heading("GPU idle time per stream (window = kept steps)");
  if (!idle.applicable) {
    out += fmt::format("  not applicable: {}\n", idle.not_applicable_reason);
    return out;
  }
  TextTable table;
  table.add_column("device");
  table.add_column("stream");
  table.add_column("activities", false, Importance::kLow);
  table.add_column("host wait");
  table.add_column("kernel wait (<30 µs)", false, Importance::kHigh);
  table.add_column("other", false, Importance::kMedium);
  for (const char* column : {"unlinked", "leading", "trailing"}) {
    table.add_column(column, false, Importance::kLow);
  }
  const auto limit = static_cast<std::size_t>(std::max(top, 1));
  for (std::size_t s = 0; s < idle.streams.size() && s < limit; ++s) {
    const StreamIdle& stream = idle.streams[s];
    table.add_row(
        {fmt::format("GPU {}", stream.device), std::to_string(stream.stream),
         format_count(static_cast<std::uint64_t>(stream.activities)),
         format_ms(stream[IdleCause::kHostWait].ns), format_ms(stream[IdleCause::kKernelWait].ns),
         format_ms(stream[IdleCause::kOther].ns), format_ms(stream[IdleCause::kUnlinked].ns),
         format_ms(stream.leading_idle_ns), format_ms(stream.trailing_idle_ns)});
  }
  out += table.render("  ", width);
  if (idle.streams.size() > limit) {
    out += fmt::format("  … {} more streams (see --json)\n", idle.streams.size() - limit);
  }
  return out;
}

}  // namespace stepscope::render
