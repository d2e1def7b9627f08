#include "render/terminal/diagnosis_text.h"

#include <fmt/format.h>

#include "render/gain_wording.h"
#include "render/headroom_line.h"
#include "render/text_format.h"

namespace stepscope::render {

namespace {

std::string describe_refs(const EventRefs& refs) {
  std::string steps;
  if (!refs.steps.empty()) {
    steps = fmt::format(", steps #{}", refs.steps.front());
    if (refs.steps.size() > 1) steps += fmt::format("…#{}", refs.steps.back());
  }
  return fmt::format("{} × {}{}", format_count(static_cast<std::uint64_t>(refs.count)),
                     printable(refs.name, 70), steps);
}

// `train.py:42 in forward · module Net_0/Block_1`.
std::string describe_code(const CodeLocation& code) {
  std::string out;
  if (!code.file.empty()) {
    out = fmt::format("{}:{} in {}", printable(code.file, 100), code.line,
                      printable(code.function, 60));
  }
  if (!code.module_path.empty()) {
    if (!out.empty()) out += " · ";
    out += "module " + printable(code.module_path, 120);
  }
  return out;
}

std::string render_finding(const Finding& finding, std::size_t index) {
  std::string out = fmt::format("  {}. [{}] {} ({}, {})\n", index, to_string(finding.severity),
                                printable(finding.title, 120), to_string(finding.bottleneck),
                                to_string(finding.part));
  for (const Evidence& evidence : finding.evidence) {
    out += fmt::format("     evidence: {} = {:.3f} {}\n", printable(evidence.label, 100),
                       evidence.value, evidence.unit);
    for (std::size_t i = 0; i < evidence.events.size() && i < 3; ++i) {
      out += fmt::format("       events: {}\n", describe_refs(evidence.events[i]));
    }
  }
  out += fmt::format("     fix: {}\n", printable(finding.fix, 400));
  if (finding.code) out += fmt::format("     code: {}\n", describe_code(*finding.code));
  if (saves_no_time(finding.gain)) {
    out += fmt::format("     expected gain: {}\n", no_time_saved_wording(finding));
  } else {
    out += fmt::format(
        "     expected gain: {} per step likely ({}), up to {} ({})\n",
        format_duration(finding.gain.likely_ns), format_percent(finding.gain.likely_share),
        format_duration(finding.gain.bound_ns), format_percent(finding.gain.bound_share));
  }
  out += fmt::format("       method: {}\n", printable(finding.gain.method, 300));
  return out;
}

}  // namespace

std::string render_text(const Diagnosis& diagnosis, int top) {
  std::string out = heading("Diagnosis");
  out += fmt::format("  {}\n", printable(diagnosis.summary, 300));
  if (!diagnosis.window.empty())
    out += fmt::format("  steps: {}\n", printable(diagnosis.window, 300));
  if (!diagnosis.dominant_operations.empty()) {
    out += "  dominated by:";
    for (const std::string& name : diagnosis.dominant_operations) {
      out += fmt::format(" {};", printable(name, 60));
    }
    out.back() = '\n';
  }
  for (const DeviceHeadroom& device : diagnosis.memory_headroom) {
    out += "  " + headroom_line(device, [](std::string_view text) { return printable(text, 70); }) +
           "\n";
  }
  const auto limit = static_cast<std::size_t>(std::max(top, 1));
  for (std::size_t i = 0; i < diagnosis.findings.size() && i < limit; ++i) {
    out += render_finding(diagnosis.findings[i], i + 1);
  }
  return out;
}

}  // namespace stepscope::render
