#include "finding_dicts.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

namespace nb = nanobind;

namespace stepscope_python {

namespace {

// The double nearest to ns / 1000, as parsing the JSON document's exact decimal gives: trace
// times (~1.7e18 ns) exceed a double's 53 bits, so converting ns first would round twice.
double microseconds(std::int64_t ns) {
  const std::int64_t whole = ns / 1000;
  const std::int64_t fraction = ns % 1000;
  const std::string decimal =
      std::to_string(whole) + "." + std::to_string(std::abs(fraction) + 1000).substr(1);
  const std::string signed_decimal = (ns < 0 && whole == 0) ? "-" + decimal : decimal;
  return std::strtod(signed_decimal.c_str(), nullptr);
}

// The figure as the JSON document writes it (10 significant digits), so that a finding reads the
// same here as in report.to_json(); non-finite values stay as they are.
double as_in_json(double value) {
  if (!std::isfinite(value)) return value;
  std::array<char, 32> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.10g", value);
  return std::strtod(buffer.data(), nullptr);
}

nb::dict event_refs_dict(const stepscope::EventRefs& refs) {
  nb::dict out;
  out["name"] = refs.name;
  out["count"] = refs.count;
  out["first_start_us"] = microseconds(refs.first_start_ns);
  out["last_end_us"] = microseconds(refs.last_end_ns);
  nb::list steps;
  for (const std::int64_t step : refs.steps) steps.append(step);
  out["steps"] = steps;
  return out;
}

nb::dict evidence_dict(const stepscope::Evidence& evidence) {
  nb::dict out;
  out["label"] = evidence.label;
  out["value"] = as_in_json(evidence.value);
  out["unit"] = evidence.unit;
  nb::list events;
  for (const stepscope::EventRefs& refs : evidence.events) events.append(event_refs_dict(refs));
  out["events"] = events;
  return out;
}

nb::dict gain_dict(const stepscope::ExpectedGain& gain) {
  nb::dict out;
  out["bound_us_per_step"] = microseconds(gain.bound_ns);
  out["likely_us_per_step"] = microseconds(gain.likely_ns);
  out["bound_share_of_step"] = as_in_json(gain.bound_share);
  out["likely_share_of_step"] = as_in_json(gain.likely_share);
  out["method"] = gain.method;
  return out;
}

// Missing parts are None, as in the JSON document's `code` object.
nb::object code_dict(const std::optional<stepscope::CodeLocation>& code) {
  if (!code) return nb::none();
  nb::dict out;
  const auto text_or_none = [](const std::string& text) {
    return text.empty() ? nb::none() : nb::object(nb::cast(text));
  };
  out["file"] = text_or_none(code->file);
  out["line"] = code->file.empty() ? nb::none() : nb::object(nb::cast(code->line));
  out["function"] = code->file.empty() ? nb::none() : nb::object(nb::cast(code->function));
  out["module_path"] = text_or_none(code->module_path);
  return out;
}

nb::dict finding_dict(const stepscope::Finding& finding) {
  nb::dict out;
  out["id"] = finding.id;
  out["title"] = finding.title;
  out["severity"] = stepscope::to_string(finding.severity);
  out["bottleneck"] = stepscope::to_string(finding.bottleneck);
  out["phase"] = stepscope::to_string(finding.part);
  out["rank"] = finding.rank;
  nb::list evidence;
  for (const stepscope::Evidence& item : finding.evidence) evidence.append(evidence_dict(item));
  out["evidence"] = evidence;
  out["fix"] = finding.fix;
  out["expected_gain"] = gain_dict(finding.gain);
  out["code"] = code_dict(finding.code);
  return out;
}

}  // namespace

nb::list finding_dicts(const std::vector<stepscope::Finding>& findings) {
  nb::list out;
  for (const stepscope::Finding& finding : findings) out.append(finding_dict(finding));
  return out;
}

}  // namespace stepscope_python
