// The terminal form of a what-if: the step before and after, then each critical path's classes
// and longest events.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "render/json/json_sink.h"
#include "render/text_format.h"
#include "stepscope/figures/critical_path_fields.h"
#include "stepscope/report.h"

namespace stepscope {

namespace {

using render::format_ms;
using render::format_percent;
using render::heading;
using render::printable;

std::string ms(double ns) { return format_ms(std::llround(ns)); }

void append_path(std::string& out, std::string_view title, const CriticalPathResult& path,
                 const TextOptions& options) {
  out += fmt::format("\n{} (modelled step {}):\n", title, ms(path.modelled_step_ns));
  for (const PathClassTime& time : path.classes) {
    out += fmt::format("  {:<16} {:>12} per step  {:>7}\n", to_string(time.path_class),
                       ms(time.ns_per_step), format_percent(time.share));
  }
  const std::size_t name_width = options.width > 48 ? options.width - 48 : 12;
  const std::size_t shown = std::min(path.events.size(), static_cast<std::size_t>(options.top));
  if (shown > 0) out += "  longest on the path:\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const PathEvent& event = path.events[i];
    out += fmt::format("    {:>12}  {:<15} {}\n", ms(event.ns_per_step),
                       to_string(event.path_class), printable(event.name, name_width));
  }
}

}  // namespace

std::string render_what_if_text(const WhatIfResult& result, const TextOptions& options) {
  std::string out = heading("What if: " + printable(result.change, options.width));
  if (!result.before.applicable) {
    return out + "  not applicable: " + result.before.not_applicable_reason + "\n";
  }
  const double measured = result.before.measured_step_ns;
  const double saving = result.saving_ns();
  out += fmt::format("  step as recorded     {:>12} ({} kept steps)\n", ms(measured),
                     result.before.steps);
  out += fmt::format("  step predicted       {:>12}\n", ms(result.predicted_step_ns));
  const std::string direction = saving >= 0 ? "saved" : "lost";
  out += fmt::format("  {:<20} {:>12} per step ({} of the step)\n", direction, ms(std::abs(saving)),
                     format_percent(measured > 0 ? std::abs(saving) / measured : 0));
  out += fmt::format("  the graph replays the recorded step as {} ({:+.1f} % off)\n",
                     ms(result.before.modelled_step_ns),
                     measured > 0 ? (result.before.modelled_step_ns / measured - 1) * 100 : 0.0);
  append_path(out, "Critical path as recorded", result.before, options);
  append_path(out, "Critical path with the change", result.after, options);
  for (const std::string& bound : result.before.bounds) out += "  note: " + bound + "\n";
  return out;
}

std::string render_what_if_json(const WhatIfResult& result) {
  render::JsonWriter json;
  render::write_json(json, result);
  return json.take();
}

}  // namespace stepscope
