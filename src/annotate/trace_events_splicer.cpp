#include "annotate/trace_events_splicer.h"

namespace stepscope::annotate {

namespace {

constexpr std::string_view kKey = "traceEvents";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

Status TraceEventsSplicer::push(std::string_view chunk, std::string& out) {
  std::size_t i = 0;
  // Byte by byte only until the array is found; the rest of the file is copied in bulk.
  for (; i < chunk.size() && state_ != State::kCopy; ++i) {
    const char c = chunk[i];
    if (state_ == State::kAfterOpen) {
      after_open(c, out);
    } else {
      STEPSCOPE_TRY(scan(c));
      out.push_back(c);
      if (found_) {
        found_ = false;
        out += insert_;
        state_ = insert_.empty() ? State::kCopy : State::kAfterOpen;
      }
    }
    ++offset_;
  }
  out.append(chunk.substr(i));
  offset_ += chunk.size() - i;
  return Done{};
}

Status TraceEventsSplicer::finish() const {
  if (state_ == State::kAfterOpen || state_ == State::kCopy) return Done{};
  return make_error(ErrorKind::kNotTrace, "not a Chrome trace: no top-level \"traceEvents\" array",
                    offset_);
}

// The first byte after the array's '[' that is not white space tells whether the original array
// has elements: if so, a comma separates the inserted events from them.
void TraceEventsSplicer::after_open(char c, std::string& out) {
  if (!is_space(c)) {
    if (c != ']') out.push_back(',');
    state_ = State::kCopy;
  }
  out.push_back(c);
}

Status TraceEventsSplicer::scan(char c) {
  if (state_ == State::kStart) {
    if (is_space(c)) return Done{};
    if (c != '{')
      return make_error(ErrorKind::kNotTrace,
                        "not a Chrome trace: the top level is not a JSON object", offset_);
    state_ = State::kScan;
    depth_ = 1;
    return Done{};
  }
  if (in_string_) {
    scan_string(c);
    return Done{};
  }
  if (is_space(c)) return Done{};
  if (depth_ == 0) {
    return make_error(ErrorKind::kNotTrace,
                      "not a Chrome trace: no top-level \"traceEvents\" array", offset_);
  }
  const bool was_awaiting = awaiting_value_;
  const bool was_key = last_string_is_key_;
  awaiting_value_ = false;
  last_string_is_key_ = false;
  switch (c) {
    case '"':
      in_string_ = true;
      key_.clear();
      key_escaped_ = false;
      break;
    case ':':
      awaiting_value_ = depth_ == 1 && was_key;
      break;
    case '[':
      found_ = was_awaiting;
      ++depth_;
      break;
    case '{':
      ++depth_;
      break;
    case ']':
    case '}':
      --depth_;
      break;
    default:
      break;
  }
  return Done{};
}

void TraceEventsSplicer::scan_string(char c) {
  if (escape_) {
    escape_ = false;
    key_escaped_ = true;
    return;
  }
  if (c == '\\') {
    escape_ = true;
    return;
  }
  if (c == '"') {
    in_string_ = false;
    end_key_string();
    return;
  }
  if (depth_ == 1 && key_.size() <= kKey.size()) key_.push_back(c);
}

// An escaped spelling of the key ("trace\u0045vents") is not recognised and ends in the "no
// traceEvents array" error: Kineto writes the key plainly, and matching raw bytes keeps this
// simple.
void TraceEventsSplicer::end_key_string() {
  last_string_is_key_ = depth_ == 1 && !key_escaped_ && key_ == kKey;
}

}  // namespace stepscope::annotate
