// The terminal report of `stepscope diff`: the verdict first, then what changed.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "render/text_format.h"
#include "stepscope/diff.h"

namespace stepscope {

namespace {

using render::heading;
using render::printable;
using render::TextTable;

std::string ms(double ns) { return fmt::format("{:.3f} ms", ns / 1e6); }
std::string signed_ms(double ns) { return fmt::format("{:+.3f} ms", ns / 1e6); }
std::string count(double per_step) { return fmt::format("{:.2f}", per_step); }
std::string signed_percent(double share) {
  if (!std::isfinite(share)) return "n/a";
  return fmt::format("{:+.1f} %", share * 100);
}
std::string change_of(double before, double after) {
  if (before == 0) return "new";
  return signed_percent((after - before) / before);
}

template <typename Row>
std::vector<Row> first(const std::vector<Row>& rows, int top) {
  const std::size_t n = std::min(rows.size(), static_cast<std::size_t>(std::max(top, 0)));
  return {rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n)};
}

std::string side_line(std::string_view label, const RunSide& side) {
  std::string bottlenecks;
  for (std::size_t i = 0; i < side.bottlenecks.size(); ++i) {
    if (i != 0) bottlenecks += ", ";
    bottlenecks += side.bottlenecks[i];
  }
  return fmt::format(
      "  {:<7} {} · {} {} · {} kept {} · bottleneck: {}\n", label, printable(side.path, 80),
      side.ranks.size(), side.ranks.size() == 1 ? "rank" : "ranks", side.kept_steps,
      side.kept_steps == 1 ? "step" : "steps", bottlenecks.empty() ? "none" : bottlenecks);
}

// A run without kept steps has no mean to show: a 0 ms mean over 0 steps would read as a figure.
std::string side_steps(std::string_view label, double mean_ns, double median_ns, std::size_t n) {
  if (n == 0) {
    return fmt::format(
        "  {:<7} no kept steps: no complete ProfilerStep#N in the run (or none in --steps)\n",
        label);
  }
  return fmt::format("  {:<7} {} mean, {} median over {} {}\n", label, ms(mean_ns), ms(median_ns),
                     n, n == 1 ? "step" : "steps");
}

void kernel_table(std::string& out, std::string_view title, const std::vector<KernelChange>& rows,
                  std::size_t total, int top, std::size_t width) {
  if (rows.empty()) return;
  out += heading(fmt::format("{} ({} of {}, per kept step)", title,
                             std::min<std::size_t>(rows.size(), top), total));
  TextTable table;
  table.add_column("name", true);
  table.add_column("kind", true, render::Importance::kMedium);
  table.add_column("before");
  table.add_column("after");
  table.add_column("Δ time");
  table.add_column("count before", false, render::Importance::kLow);
  table.add_column("count after", false, render::Importance::kLow);
  for (const KernelChange& k : first(rows, top)) {
    table.add_row({printable(k.name, 60), k.kind, ms(k.before_ns), ms(k.after_ns),
                   signed_ms(k.after_ns - k.before_ns), count(k.before_count),
                   count(k.after_count)});
  }
  out += table.render("  ", width);
}

// "Not like for like" before anything else: a step-time change between different devices,
// precisions or batch shapes is not the code change's alone, and reads as if it were.
void unlike_conditions(std::string& out, const std::vector<ConditionChange>& conditions,
                       std::size_t width) {
  if (conditions.empty()) return;
  out += heading("Not like for like: the runs differ in conditions that change step time");
  TextTable table;
  table.add_column("condition", true);
  table.add_column("before", true);
  table.add_column("after", true);
  table.add_column("read from", true, render::Importance::kLow);
  for (const ConditionChange& c : conditions) {
    table.add_row({printable(c.condition, 20), printable(c.before, 50), printable(c.after, 50),
                   printable(c.source, 80)});
  }
  out += table.render("  ", width);
  out += render::wrap_hanging(
      "  ",
      "The step-time change below is not the code change's alone; no predicted gain is checked "
      "against it.",
      width, 4);
}

// "time it accounts for 34.300 → 0.149 ms/step (-99.6 %); ": the figures a finding is judged
// resolved, improved or persisting by (kFindingResolvedShare in diff.h).
std::string owned_text(const FindingChange& f) {
  const bool before = !f.severity_before.empty();
  const bool after = !f.severity_after.empty();
  if (f.owned_before_ns <= 0 && f.owned_after_ns <= 0) return {};
  const auto owned_before = static_cast<double>(f.owned_before_ns);
  const auto owned_after = static_cast<double>(f.owned_after_ns);
  if (before && after) {
    return fmt::format("time it accounts for {:.3f} → {:.3f} ms/step ({}); ", owned_before / 1e6,
                       owned_after / 1e6, change_of(owned_before, owned_after));
  }
  if (before)
    return fmt::format("time it accounted for {:.3f} ms/step, gone after; ", owned_before / 1e6);
  return fmt::format("time it accounts for {:.3f} ms/step; ", owned_after / 1e6);
}

// "; exposed communication per step 14.653 → 9.210 ms/step": the finding's figure on the sides
// that have it.
std::string figure_text(const FindingFigure& figure) {
  if (figure.label.empty() || (!figure.before && !figure.after)) return {};
  auto value = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.3f}", *v) : std::string("–");
  };
  std::string values = figure.before && figure.after
                           ? value(figure.before) + " → " + value(figure.after)
                           : value(figure.before ? figure.before : figure.after);
  return fmt::format("; {} {} {}", printable(figure.label, 50), values, printable(figure.unit, 20));
}

void finding_list(std::string& out, std::string_view title,
                  const std::vector<FindingChange>& findings) {
  if (findings.empty()) return;
  out += heading(title);
  // A finding that saves no time (a memory finding) says so instead of "0.000 ms".
  auto likely_gain = [](std::int64_t ns) {
    return ns > 0 ? fmt::format("likely gain {}/step", ms(static_cast<double>(ns)))
                  : std::string("no time saved");
  };
  for (const FindingChange& f : findings) {
    std::string gain;
    if (!f.severity_before.empty()) {
      gain +=
          fmt::format("before {} ({})", f.severity_before, likely_gain(f.likely_gain_before_ns));
    }
    if (!f.severity_after.empty()) {
      if (!gain.empty()) gain += " → ";
      gain += fmt::format("after {} ({})", f.severity_after, likely_gain(f.likely_gain_after_ns));
    }
    out += fmt::format("  {} [rank {}] {}: {}{}{}\n", printable(f.id, 40), f.rank,
                       printable(f.title, 70), owned_text(f), gain, figure_text(f.figure));
  }
}

// Ops present in one run only: their time in the run that has them.
void op_list(std::string& out, std::string_view title, const std::vector<OpChange>& rows,
             std::size_t total, int top, bool before, std::size_t width) {
  if (rows.empty()) return;
  out += heading(fmt::format("{} ({} of {}, per kept step of the {} run)", title,
                             std::min<std::size_t>(rows.size(), top), total,
                             before ? "before" : "after"));
  TextTable table;
  table.add_column("op", true);
  table.add_column("self CPU");
  table.add_column("self device");
  table.add_column("calls");
  for (const OpChange& o : first(rows, top)) {
    table.add_row({printable(o.name, 70), ms(before ? o.before_self_cpu_ns : o.after_self_cpu_ns),
                   ms(before ? o.before_self_device_ns : o.after_self_device_ns),
                   count(before ? o.before_calls : o.after_calls)});
  }
  out += table.render("  ", width);
}

// A saving as a person says it: "2.000 ms/step faster", "2.000 ms/step slower", never a
// negative "faster".
std::string saving_words(double saving_ns) {
  if (saving_ns == 0) return "no change (0.000 ms/step)";
  return fmt::format("{:.3f} ms/step {}", std::abs(saving_ns) / 1e6,
                     saving_ns > 0 ? "faster" : "slower");
}

// The interval of a saving, smaller change first when both bounds say the same:
// "1.000 … 3.000 ms/step faster"; "0.500 ms/step slower … 1.000 ms/step faster" when it holds
// no change.
std::string saving_interval(double low_ns, double high_ns) {
  if (low_ns > 0) return fmt::format("{:.3f} … {:.3f} ms/step faster", low_ns / 1e6, high_ns / 1e6);
  if (high_ns < 0) {
    return fmt::format("{:.3f} … {:.3f} ms/step slower", -high_ns / 1e6, -low_ns / 1e6);
  }
  return saving_words(low_ns) + " … " + saving_words(high_ns);
}

// The criterion in the headings, so that a reader sees why a finding still reported after the
// change counts as resolved.
std::string resolved_heading() {
  return fmt::format(
      "Findings resolved (gone, or the time they account for fell by more than {:.0f} %)",
      (1 - kFindingResolvedShare) * 100);
}
std::string improved_heading() {
  return fmt::format("Findings improved (the time they account for fell by {:.0f} % to {:.0f} %)",
                     (1 - kFindingImprovedShare) * 100, (1 - kFindingResolvedShare) * 100);
}

// One line: what the diagnosis predicted for a resolved finding against what was measured. The
// multiple of the prediction only for a saving: a loss is no multiple of a saving.
std::string calibration_line(const Calibration& c) {
  std::string shared;
  if (c.resolved_together > 1) {
    shared = fmt::format("; {} findings were resolved together, so the change is theirs jointly",
                         c.resolved_together);
  }
  std::string ratio;
  if (c.measured_over_predicted) {
    ratio = fmt::format(" ({:.2f}× the prediction)", *c.measured_over_predicted);
  }
  return fmt::format(
      "  calibration: {} [rank {}] predicted {}/step likely (up to {}/step); measured {}{}, "
      "95 % interval {}{}\n",
      printable(c.id, 40), c.rank, ms(static_cast<double>(c.predicted_likely_ns)),
      ms(static_cast<double>(c.predicted_bound_ns)), saving_words(c.measured_ns), ratio,
      saving_interval(c.measured_low_ns, c.measured_high_ns), shared);
}

}  // namespace

std::string render_diff_text(const DiffResult& r, int top) {
  return render_diff_text(r, TextOptions{top, render::kDefaultTextWidth});
}

std::string render_diff_text(const DiffResult& r, const TextOptions& options) {
  const std::size_t width = std::max(options.width, render::kMinimumTextWidth);
  const int top = options.top;
  const StepComparison& s = r.steps;
  std::string out;
  out += side_line("before", r.before);
  out += side_line("after", r.after);
  unlike_conditions(out, r.unlike_conditions, width);
  out += heading("Step time (per step: the slowest rank)");
  out += side_steps("before", s.before_mean_ns, s.before_median_ns, s.before.durations_ns.size());
  out += side_steps("after", s.after_mean_ns, s.after_median_ns, s.after.durations_ns.size());
  if (s.verdict == Verdict::kUndetermined) {
    out += fmt::format("  verdict: undetermined ({})\n", s.reason);
  } else {
    out += fmt::format("  change  {} ({}), {:.0f} % interval {} … {}\n", signed_ms(s.change_ns),
                       signed_percent(s.change_share), s.confidence * 100,
                       signed_percent(s.ratio_low - 1), signed_percent(s.ratio_high - 1));
    out += fmt::format("  verdict: {} (bootstrap of the mean ratio, {} resamples, seed {})\n",
                       to_string(s.verdict), s.resamples, s.seed);
  }
  if (r.phases_applicable) {
    out += heading("Phases (host time per kept step)");
    TextTable table;
    table.add_column("phase", true);
    table.add_column("before");
    table.add_column("after");
    table.add_column("Δ");
    table.add_column("Δ %");
    for (const PhaseChange& p : r.phases) {
      table.add_row({p.phase, ms(p.before_ns), ms(p.after_ns), signed_ms(p.after_ns - p.before_ns),
                     change_of(p.before_ns, p.after_ns)});
    }
    out += table.render("  ", width);
  }
  if (!r.ops.empty()) {
    out += heading(fmt::format("Ops with the largest change ({} of {}, per kept step)",
                               std::min<std::size_t>(r.ops.size(), top), r.ops_total));
    TextTable table;
    table.add_column("op", true);
    table.add_column("self CPU before");
    table.add_column("self CPU after");
    table.add_column("self device before", false, render::Importance::kMedium);
    table.add_column("self device after", false, render::Importance::kMedium);
    table.add_column("calls before", false, render::Importance::kLow);
    table.add_column("calls after", false, render::Importance::kLow);
    for (const OpChange& o : first(r.ops, top)) {
      table.add_row({printable(o.name, 50), ms(o.before_self_cpu_ns), ms(o.after_self_cpu_ns),
                     ms(o.before_self_device_ns), ms(o.after_self_device_ns), count(o.before_calls),
                     count(o.after_calls)});
    }
    out += table.render("  ", width);
  }
  op_list(out, "Ops that appeared", r.ops_appeared, r.ops_appeared_total, top, false, width);
  op_list(out, "Ops that vanished", r.ops_vanished, r.ops_vanished_total, top, true, width);
  kernel_table(out, "Device activities with the largest change", r.kernels, r.kernels_total, top,
               width);
  kernel_table(out, "Device activities that appeared", r.kernels_appeared, r.kernels_appeared_total,
               top, width);
  kernel_table(out, "Device activities that vanished", r.kernels_vanished, r.kernels_vanished_total,
               top, width);
  finding_list(out, resolved_heading(), r.findings_resolved);
  finding_list(out, improved_heading(), r.findings_improved);
  finding_list(out, "Findings introduced", r.findings_introduced);
  finding_list(out, "Findings persisting", r.findings_persisting);
  for (const Calibration& c : r.calibration) out += calibration_line(c);
  if (!r.notes.empty()) {
    out += heading("Notes");
    for (const std::string& note : r.notes)
      out += render::wrap_hanging("  ", printable(note, 200), width, 4);
  }
  return render::fit_lines(out, width);
}

}  // namespace stepscope
