// stepscope._core.NativeDiff: the comparison of two runs (`stepscope diff BEFORE AFTER`) held as
// the library's DiffResult; rendering it never reads the traces again.
#pragma once

#include <nanobind/nanobind.h>

#include <optional>
#include <string>
#include <utility>

#include "stepscope/diff.h"

namespace stepscope_python {

class NativeDiff {
 public:
  explicit NativeDiff(stepscope::DiffResult result) : result_(std::move(result)) {}

  [[nodiscard]] std::string to_json(std::optional<int> indent) const;
  [[nodiscard]] std::string to_text(std::optional<int> top) const;
  [[nodiscard]] std::string to_html() const;
  std::string write_json(const std::string& path, std::optional<int> indent) const;
  std::string write_text(const std::string& path, std::optional<int> top) const;
  std::string write_html(const std::string& path) const;
  // "faster", "slower", "no significant change" or "undetermined".
  [[nodiscard]] std::string verdict() const;
  // `--fail-if-slower PCT`: the after run is slower than `percent` % with 95 % confidence.
  [[nodiscard]] bool slower_beyond(double percent) const;
  // The step-time figures behind the verdict, for the --fail-if-slower message.
  [[nodiscard]] nanobind::dict step_change() const;

 private:
  void write(const std::string& path, const std::string& content) const;
  stepscope::DiffResult result_;
};

void bind_native_diff(nanobind::module_& m);

}  // namespace stepscope_python
