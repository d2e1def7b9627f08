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

struct Error {
  std::string file;                          // the input the error is about; empty when none
  std::optional<std::uint64_t> byte_offset;  // offset in the (decompressed) input, when known
  std::string message;                       // what is wrong, in words a user can act on

  // "FILE: at byte N: MESSAGE", the form every front end prints.
  [[nodiscard]] std::string describe() const;
};

// Builds an Error; the file is usually filled in by the layer that knows it.
Error make_error(std::string message, std::optional<std::uint64_t> byte_offset = std::nullopt);

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
