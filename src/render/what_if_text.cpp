// The terminal form of a what-if: the step before and after, then both critical paths.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "render/json/json_sink.h"
#include "render/terminal/critical_path_text.h"
#include "render/text_format.h"
#include "render/text_layout.h"
#include "stepscope/figures/critical_path_fields.h"
#include "stepscope/report.h"

namespace stepscope {

namespace {

std::string ms(double ns) { return render::format_ms(std::llround(ns)); }

}  // namespace

std::string render_what_if_text(const WhatIfResult& result, const TextOptions& options) {
  const std::size_t width = std::max(options.width, render::kMinimumTextWidth);
  std::string out = render::heading("What if: " + render::printable(result.change, width));
  if (!result.before.applicable) {
    return out + "  not applicable: " + result.before.not_applicable_reason + "\n";
  }
  const double measured = result.before.measured_step_ns;
  const double saving = result.saving_ns();
  out += fmt::format("  step as recorded     {:>12} ({} kept steps)\n", ms(measured),
                     result.before.steps);
  out += fmt::format("  step predicted       {:>12}\n", ms(result.predicted_step_ns));
  out += fmt::format("  {:<20} {:>12} per step ({} of the step)\n", saving >= 0 ? "saved" : "lost",
                     ms(std::abs(saving)),
                     render::format_percent(measured > 0 ? std::abs(saving) / measured : 0));
  out += render::render_text(result.before, "Critical path as recorded", options.top, width);
  CriticalPathResult after = result.after;
  after.bounds.clear();  // the same graph: said once, above
  out += render::render_text(after, "Critical path with the change", options.top, width, false);
  return render::fit_lines(out, width);
}

std::string render_what_if_json(const WhatIfResult& result) {
  render::JsonWriter json;
  render::write_json(json, result);
  return json.take();
}

}  // namespace stepscope
