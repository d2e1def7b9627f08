#include "importers/kineto/input_sampling.h"

#include <algorithm>
#include <string>
#include <string_view>

namespace stepscope::kineto {

namespace {

constexpr std::string_view kKey = "stepscope_host.input_functions";

// A count >= 0, or nullopt when missing or wrongly typed.
std::optional<std::int64_t> count(simdjson::dom::object object, std::string_view key) {
  std::int64_t value = 0;
  if (object[key].get_int64().get(value) != simdjson::SUCCESS || value < 0) return std::nullopt;
  return value;
}

std::optional<SampledFunction> read_function(simdjson::dom::element element) {
  simdjson::dom::object object;
  if (element.get_object().get(object) != simdjson::SUCCESS) return std::nullopt;
  std::string_view file;
  std::string_view function;
  if (object["file"].get_string().get(file) != simdjson::SUCCESS ||
      object["function"].get_string().get(function) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  const std::optional<std::int64_t> samples = count(object, "samples");
  if (!samples) return std::nullopt;
  SampledFunction out;
  out.file = file;
  out.function = function;
  out.samples = *samples;
  out.line = count(object, "line").value_or(kAbsent);
  out.hottest_line = count(object, "hottest_line").value_or(kAbsent);
  return out;
}

}  // namespace

std::optional<InputSampling> read_input_sampling(simdjson::dom::element entry, ImportNotes& notes,
                                                 std::uint64_t offset) {
  auto unusable = [&](std::string_view why) -> std::optional<InputSampling> {
    notes.add(std::string(kKey) + " " + std::string(why) + ", ignored", offset);
    return std::nullopt;
  };
  simdjson::dom::object object;
  if (entry.get_object().get(object) != simdjson::SUCCESS) return unusable("is not an object");
  InputSampling sampling;
  const std::optional<std::int64_t> samples = count(object, "samples");
  const std::optional<std::int64_t> fetch_samples = count(object, "fetch_samples");
  const std::optional<std::int64_t> processes = count(object, "processes");
  if (!samples || !fetch_samples || !processes || *fetch_samples > *samples) {
    return unusable("has no consistent sample counts");
  }
  sampling.samples = *samples;
  sampling.fetch_samples = *fetch_samples;
  sampling.processes = *processes;
  sampling.worker_processes = count(object, "worker_processes").value_or(0);
  if (object["interval_ms"].get_double().get(sampling.interval_ms) != simdjson::SUCCESS ||
      !(sampling.interval_ms > 0)) {
    return unusable("has no positive interval_ms");
  }
  simdjson::dom::array functions;
  if (object["functions"].get_array().get(functions) != simdjson::SUCCESS) {
    return unusable("has no functions array");
  }
  for (simdjson::dom::element element : functions) {
    std::optional<SampledFunction> function = read_function(element);
    if (!function || function->samples > sampling.fetch_samples) {
      return unusable("has a function entry without file, function and samples");
    }
    sampling.functions.push_back(std::move(*function));
  }
  // Most samples first, as the recorder writes them; a file from elsewhere may not be.
  std::stable_sort(
      sampling.functions.begin(), sampling.functions.end(),
      [](const SampledFunction& a, const SampledFunction& b) { return a.samples > b.samples; });
  return sampling;
}

}  // namespace stepscope::kineto
