#include "render/terminal/steps_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "render/text_format.h"

namespace stepscope::render {

namespace {

std::string ms(double ns) { return format_ms(static_cast<std::int64_t>(std::llround(ns))); }

std::string statistics_line(const Statistics& s) {
  return fmt::format("mean {}  std {}  min {}  p50 {}  p95 {}  p99 {}  max {}", ms(s.mean),
                     ms(s.std), ms(s.min), ms(s.p50), ms(s.p95), ms(s.p99), ms(s.max));
}

}  // namespace

std::string render_text(const StepsResult& steps, const StepTimeStats& stats, int top,
                        std::size_t width) {
  std::string out = heading("Profiler steps");
  const auto kept = steps.kept();
  if (steps.steps.empty()) {
    out += "  no ProfilerStep#N events: step statistics not applicable";
    out += steps.window ? fmt::format("; window = GPU activity span, {}\n",
                                      format_ms(steps.window->length()))
                        : "; no GPU activity either\n";
    return out;
  }
  out +=
      fmt::format("  {} {}, {} kept ({}){}\n", steps.steps.size(),
                  steps.steps.size() == 1 ? "step" : "steps", kept.size(),
                  steps.rebased ? "device-rebased: each step includes its GPU tail"
                                : "host spans: no device activity matched",
                  stats.duration_ns.few_samples ? "; few steps: p95/p99 lean on the maximum" : "");
  if (stats.duration_ns.count > 0) {
    out += "  step time:  " + statistics_line(stats.duration_ns) + "\n";
    out += "  host spans: " + statistics_line(stats.host_duration_ns) + "\n";
  }
  TextTable table;
  table.add_column("step");
  table.add_column("duration");
  table.add_column("host span", false, Importance::kMedium);
  // A CPU trace's steps have no GPU activity: a column of zeros says nothing.
  const bool gpu = std::any_of(steps.steps.begin(), steps.steps.end(),
                               [](const Step& step) { return step.device_activities > 0; });
  if (gpu) table.add_column("GPU activities", false, Importance::kLow);
  table.add_column("status", true);
  const std::size_t limit = static_cast<std::size_t>(std::max(top, 1)) * 2;
  for (std::size_t i = 0; i < steps.steps.size() && i < limit; ++i) {
    const Step& step = steps.steps[i];
    std::string status(to_string(step.status));
    if (step.outlier) status += ", outlier";
    std::vector<std::string> cells = {fmt::format("#{}", step.number),
                                      format_ms(step.duration_ns()),
                                      format_ms(step.host_duration_ns())};
    if (gpu) cells.push_back(format_count(step.device_activities));
    cells.push_back(std::move(status));
    table.add_row(std::move(cells));
  }
  out += table.render("  ", width);
  if (steps.steps.size() > limit) {
    out += fmt::format("  … {} more steps (see --json)\n", steps.steps.size() - limit);
  }
  for (const std::string& note : steps.notes) out += "  note: " + printable(note, 200) + "\n";
  return out;
}

}  // namespace stepscope::render
