#include "render/terminal/diagnosis_text.h"

#include <fmt/format.h>

#include "render/gain_wording.h"
#include "render/headroom_line.h"
#include "render/text_format.h"

namespace stepscope::render {

namespace {

// The name cut to what the events line leaves beside its label, count and step range, so that a
// long C++ name is cut in the middle rather than wrapped across lines.
std::string describe_refs(const EventRefs& refs, std::size_t width) {
  std::string steps;
  if (!refs.steps.empty()) {
    steps = fmt::format(", steps #{}", refs.steps.front());
    if (refs.steps.size() > 1) steps += fmt::format("…#{}", refs.steps.back());
  }
  return fmt::format("{} × {}{}", format_count(static_cast<std::uint64_t>(refs.count)),
                     printable(refs.name, width > 65 ? width - 45 : 20), steps);
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

std::string render_finding(const Finding& finding, std::size_t index, std::size_t width) {
  // Each part is wrapped under its own label, so that a long fix reads as one paragraph.
  std::string out = wrap_hanging(
      fmt::format("  {}. ", index),
      fmt::format("[{}] {} ({}, {})", to_string(finding.severity), printable(finding.title, 120),
                  to_string(finding.bottleneck), to_string(finding.part)),
      width, 5);
  for (const Evidence& evidence : finding.evidence) {
    out += wrap_hanging("     evidence: ",
                        fmt::format("{} = {} {}", printable(evidence.label, 400),
                                    format_evidence_value(evidence.value), evidence.unit),
                        width, 15);
    for (std::size_t i = 0; i < evidence.events.size() && i < 3; ++i) {
      out += wrap_hanging("       events: ", describe_refs(evidence.events[i], width), width, 15);
    }
  }
  out += wrap_hanging("     fix: ", printable(finding.fix, kFixColumns), width, 10);
  if (finding.code) out += wrap_hanging("     code: ", describe_code(*finding.code), width, 11);
  const std::string gain = saves_no_time(finding.gain)
                               ? no_time_saved_wording(finding)
                               : fmt::format("{} per step likely ({}), up to {} ({})",
                                             format_duration(finding.gain.likely_ns),
                                             format_percent(finding.gain.likely_share),
                                             format_duration(finding.gain.bound_ns),
                                             format_percent(finding.gain.bound_share));
  out += wrap_hanging("     expected gain: ", gain, width, 20);
  out += wrap_hanging("       method: ", printable(finding.gain.method, 300), width, 15);
  return out;
}

}  // namespace

std::string render_text(const Diagnosis& diagnosis, int top, std::size_t width) {
  std::string out = heading("Diagnosis");
  out += wrap_hanging("  ", printable(diagnosis.summary, 300), width, 4);
  if (!diagnosis.window.empty()) {
    out += wrap_hanging("  steps: ", printable(diagnosis.window, 300), width, 9);
  }
  if (!diagnosis.dominant_operations.empty()) {
    std::string names;
    for (const std::string& name : diagnosis.dominant_operations) {
      names += fmt::format("{}{}", names.empty() ? "" : "; ", printable(name, 60));
    }
    out += wrap_hanging("  dominated by: ", names, width, 4);
  }
  for (const DeviceHeadroom& device : diagnosis.memory_headroom) {
    out += wrap_hanging(
        "  ", headroom_line(device, [](std::string_view text) { return printable(text, 70); }),
        width, 4);
  }
  const auto limit = static_cast<std::size_t>(std::max(top, 1));
  for (std::size_t i = 0; i < diagnosis.findings.size() && i < limit; ++i) {
    out += render_finding(diagnosis.findings[i], i + 1, width);
  }
  return out;
}

}  // namespace stepscope::render
