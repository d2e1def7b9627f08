#include "render/terminal/critical_path_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "render/text_format.h"
#include "render/text_table.h"

namespace stepscope::render {

namespace {

std::string class_table(const CriticalPathResult& path, std::size_t width) {
  TextTable table;
  table.add_column("on the path", true);
  table.add_column("per step");
  table.add_column("share");
  for (const PathClassTime& time : path.classes) {
    table.add_row({std::string(to_string(time.path_class)),
                   format_duration(std::llround(time.ns_per_step)), format_percent(time.share)});
  }
  return table.render("  ", width);
}

std::string event_table(const CriticalPathResult& path, int top, std::size_t width) {
  TextTable table;
  table.add_column("longest on the path", true);
  table.add_column("class", true, Importance::kMedium);
  table.add_column("per step");
  table.add_column("times", false, Importance::kLow);
  const auto limit = static_cast<std::size_t>(std::max(top, 1));
  for (std::size_t i = 0; i < path.events.size() && i < limit; ++i) {
    const PathEvent& event = path.events[i];
    table.add_row({printable(event.name, 200), std::string(to_string(event.path_class)),
                   format_duration(std::llround(event.ns_per_step)),
                   format_count(static_cast<std::uint64_t>(event.count))});
  }
  return table.empty() ? std::string() : table.render("  ", width);
}

}  // namespace

std::string render_text(const CriticalPathResult& path, std::string_view title, int top,
                        std::size_t width, bool replayed_as_recorded) {
  std::string out = heading(title);
  if (!path.applicable) {
    return out + "  not applicable: " + printable(path.not_applicable_reason) + "\n";
  }
  const std::string steps =
      fmt::format("{} kept {}", path.steps, path.steps == 1 ? "step" : "steps");
  if (replayed_as_recorded) {
    out += fmt::format(
        "  {} replayed as a graph: modelled step {} against {} measured ({:+.1f} %)\n", steps,
        format_duration(std::llround(path.modelled_step_ns)),
        format_duration(std::llround(path.measured_step_ns)),
        path.measured_step_ns > 0 ? (path.modelled_step_ns / path.measured_step_ns - 1) * 100
                                  : 0.0);
  } else {
    out += fmt::format("  {} replayed with the change: modelled step {}\n", steps,
                       format_duration(std::llround(path.modelled_step_ns)));
  }
  out += class_table(path, width);
  out += event_table(path, top, width);
  for (const std::string& bound : path.bounds) {
    out += wrap_hanging("  note: ", printable(bound, 400), width, 8);
  }
  return out;
}

}  // namespace stepscope::render
