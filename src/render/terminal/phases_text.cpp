#include "render/terminal/phases_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "render/text_format.h"

namespace stepscope::render {

namespace {

std::string step_table(const PhasesResult& phases, int top, std::size_t width) {
  TextTable table;
  table.add_column("step");
  for (std::size_t p = 0; p < kPhaseCount; ++p) {
    const auto phase = static_cast<Phase>(p);
    table.add_column(std::string(to_string(phase)), false,
                     phase == Phase::kOther ? Importance::kMedium : Importance::kHigh);
  }
  // Whether the step's forward phase came from a marker or was inferred.
  table.add_column("forward phase", true, Importance::kLow);
  const std::size_t limit = static_cast<std::size_t>(std::max(top, 1));
  for (std::size_t i = 0; i < phases.steps.size() && i < limit; ++i) {
    const StepPhases& step = phases.steps[i];
    std::vector<std::string> cells = {fmt::format("#{}", step.step_number)};
    for (std::int64_t ns : step.times.host_ns) cells.push_back(format_ms(ns));
    cells.emplace_back(step.forward_inferred ? "inferred" : "marked");
    table.add_row(std::move(cells));
  }
  return "  host time per step:\n" + table.render("  ", width);
}

}  // namespace

std::string render_text(const PhasesResult& phases, int top, std::size_t width) {
  std::string out = heading("Training phases");
  if (!phases.applicable) {
    return out + "  not applicable: " + printable(phases.not_applicable_reason) + "\n";
  }
  const PhaseTimes& mean = phases.mean;
  // A CPU trace launches nothing: its column of device time would be all zeros.
  const bool device = std::any_of(mean.device_ns.begin(), mean.device_ns.end(),
                                  [](std::int64_t ns) { return ns != 0; });
  out += fmt::format(
      "  mean over {} kept {}; host time by priority data loading > optimizer > backward > "
      "forward{}\n",
      phases.steps.size(), phases.steps.size() == 1 ? "step" : "steps",
      device ? "; device time launched from each phase" : "");
  TextTable table;
  table.add_column("phase", true);
  table.add_column("host time");
  table.add_column("share");
  if (device) table.add_column("device time");
  for (std::size_t p = 0; p < kPhaseCount; ++p) {
    const double share =
        mean.step_ns > 0 ? static_cast<double>(mean.host_ns[p]) / static_cast<double>(mean.step_ns)
                         : 0.0;
    std::vector<std::string> cells = {std::string(to_string(static_cast<Phase>(p))),
                                      format_duration(mean.host_ns[p]), format_percent(share)};
    if (device) cells.push_back(format_duration(mean.device_ns[p]));
    table.add_row(std::move(cells));
  }
  out += table.render("  ", width);
  out += step_table(phases, top, width);
  for (const LabelledTime& label : phases.labels) {
    out += fmt::format("  label \"{}\": {} host time per kept step ({} markers)\n",
                       printable(label.name, 60), format_duration(label.mean_host_ns),
                       format_count(static_cast<std::uint64_t>(label.markers)));
  }
  for (const std::string& note : phases.notes) out += "  note: " + printable(note, 200) + "\n";
  return out;
}

}  // namespace stepscope::render
