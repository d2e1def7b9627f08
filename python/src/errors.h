// The one place a library Error becomes a Python exception: stepscope.TraceError (a ValueError)
// and one subclass per ErrorKind, so that callers can catch "file missing" apart from "not JSON".
#pragma once

#include <nanobind/nanobind.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "stepscope/error.h"

namespace stepscope_python {

// A library Error on its way to Python; translated into the TraceError subclass of its kind.
class TraceFailure : public std::runtime_error {
 public:
  explicit TraceFailure(stepscope::Error error)
      : std::runtime_error(error.describe()), error_(std::move(error)) {}
  [[nodiscard]] const stepscope::Error& error() const { return error_; }

 private:
  stepscope::Error error_;
};

[[noreturn]] inline void raise_error(stepscope::Error error) {
  throw TraceFailure(std::move(error));
}

// A wrong argument from Python: BadOptionError (a TraceError, so a ValueError too).
[[noreturn]] inline void raise_bad_option(std::string message) {
  raise_error(stepscope::make_error(stepscope::ErrorKind::kBadOption, std::move(message)));
}

template <typename T>
T value_or_raise(stepscope::Result<T> result) {
  if (!result) raise_error(std::move(result).error());
  return std::move(result).value();
}

inline void ok_or_raise(stepscope::Status status) {
  if (!status) raise_error(std::move(status).error());
}

// Creates TraceError and its subclasses in `m` and registers the translator.
void bind_errors(nanobind::module_& m);

}  // namespace stepscope_python
