// The one way stepscope reports failure: functions that can fail return Result<T>, which holds
// either the value or an Error naming the file, the byte offset (when known) and what is wrong.
// Exceptions are not thrown through the library; the CLI and the Python binding turn an Error
// into exit status 2 or a Python exception at a single boundary each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace stepscope {

// What kind of failure an Error is: front ends map it to an exit status or an exception class
// (Python raises one TraceError subclass per kind).
enum class ErrorKind : std::uint8_t {
  kIo,             // a file or folder could not be opened, read or written
  kNotJson,        // the bytes are not (valid, complete) JSON, gzip or pickle
  kNotTrace,       // well-formed, but not a trace / snapshot / timeline stepscope can read
  kLimitExceeded,  // a size, depth or memory limit was reached (out of memory included)
  kUnsupported,    // a valid input using a feature stepscope does not support
  kBadOption,      // the request itself is wrong (options, paths, steps that select nothing)
};
[[nodiscard]] const char* to_string(ErrorKind kind);

struct Error {
  ErrorKind kind = ErrorKind::kNotTrace;
  std::string file;                          // the input the error is about; empty when none
  std::optional<std::uint64_t> byte_offset;  // offset in the (decompressed) input, when known
  std::string message;                       // what is wrong, in words a user can act on

  // "FILE: at byte N: MESSAGE", the form every front end prints.
  [[nodiscard]] std::string describe() const;
};

// Builds an Error; the file is usually filled in by the layer that knows it.
Error make_error(std::string message, std::optional<std::uint64_t> byte_offset = std::nullopt);
Error make_error(ErrorKind kind, std::string message,
                 std::optional<std::uint64_t> byte_offset = std::nullopt);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  Error& error() & { return std::get<Error>(state_); }
  const Error& error() const& { return std::get<Error>(state_); }
  Error&& error() && { return std::get<Error>(std::move(state_)); }

 private:
  std::variant<T, Error> state_;
};

// Result for operations that produce nothing but may fail.
struct Done {};
using Status = Result<Done>;

}  // namespace stepscope

// Propagation, in place of hand-written `if (!x) return std::move(x).error();` lines:
//   STEPSCOPE_TRY(write_header(out));                        // a Status or any Result
//   STEPSCOPE_ASSIGN_OR_RETURN(Trace trace, load_trace_file(path));
#define STEPSCOPE_CONCAT_INNER(a, b) a##b
#define STEPSCOPE_CONCAT(a, b) STEPSCOPE_CONCAT_INNER(a, b)
#define STEPSCOPE_TRY(expr)                                                    \
  do {                                                                         \
    auto&& stepscope_try_result = (expr);                                      \
    if (!stepscope_try_result) return std::move(stepscope_try_result).error(); \
  } while (false)
// `tmp` names a variable and `lhs` may declare one: neither can be put in parentheses.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define STEPSCOPE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                    \
  if (!tmp) return std::move(tmp).error();              \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
#define STEPSCOPE_ASSIGN_OR_RETURN(lhs, expr) \
  STEPSCOPE_ASSIGN_OR_RETURN_IMPL(STEPSCOPE_CONCAT(stepscope_result_, __LINE__), lhs, expr)
