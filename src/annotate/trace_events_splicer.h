// Copies a Chrome trace through, chunk by chunk, inserting extra events as the first elements of
// the top-level "traceEvents" array. A small state machine tracks strings (with escapes) and
// nesting depth, so a "traceEvents" inside a string or a nested object is not taken, and chunk
// boundaries may fall anywhere, inside the key included.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "stepscope/error.h"

namespace stepscope::annotate {

class TraceEventsSplicer {
 public:
  // `insert`: comma-separated JSON values, without brackets; may be empty.
  explicit TraceEventsSplicer(std::string insert) : insert_(std::move(insert)) {}

  // Appends `chunk` to `out`, with the insertion (and the comma after it) where it falls.
  // Errors carry the byte offset but no file name; the caller knows the file.
  Status push(std::string_view chunk, std::string& out);
  // An Error when the input ended before the top-level traceEvents array was found.
  Status finish() const;

 private:
  enum class State : std::uint8_t { kStart, kScan, kAfterOpen, kCopy };
  Status scan(char c);
  void scan_string(char c);
  void end_key_string();
  void after_open(char c, std::string& out);

  std::string insert_;
  State state_ = State::kStart;
  std::uint64_t offset_ = 0;  // bytes consumed so far
  int depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  // The string being read at depth 1, kept only as far as it could still be "traceEvents".
  std::string key_;
  bool key_escaped_ = false;
  bool last_string_is_key_ = false;  // the last token at depth 1 was the string "traceEvents"
  bool awaiting_value_ = false;      // ... and a colon followed it
  bool found_ = false;               // the '[' of the array was just read
};

}  // namespace stepscope::annotate
