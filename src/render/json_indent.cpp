// Lays out compact JSON with indentation, for readers (Python's Report.to_json(indent=2)). Only
// whitespace outside strings is added; the values are the renderer's own bytes.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "stepscope/report.h"

namespace stepscope {

namespace {

class Indenter {
 public:
  Indenter(std::string_view json, int indent) : json_(json), indent_(indent) {
    out_.reserve(json.size() + json.size() / 2);
  }

  std::string run() {
    for (pos_ = 0; pos_ < json_.size(); ++pos_) step(json_[pos_]);
    return std::move(out_);
  }

 private:
  void step(char c) {
    if (in_string_) {
      copy_string_byte(c);
      return;
    }
    switch (c) {
      case '"':
        in_string_ = true;
        out_ += c;
        break;
      case '{':
      case '[':
        open(c);
        break;
      case '}':
      case ']':
        --depth_;
        new_line();
        out_ += c;
        break;
      case ',':
        out_ += c;
        new_line();
        break;
      case ':':
        out_ += ": ";
        break;
      default:
        out_ += c;
    }
  }

  void copy_string_byte(char c) {
    out_ += c;
    if (escaped_) {
      escaped_ = false;
    } else if (c == '\\') {
      escaped_ = true;
    } else if (c == '"') {
      in_string_ = false;
    }
  }

  // An empty object or array stays on its line: "{}", "[]".
  void open(char c) {
    out_ += c;
    if (pos_ + 1 < json_.size() && (json_[pos_ + 1] == '}' || json_[pos_ + 1] == ']')) {
      out_ += json_[++pos_];
      return;
    }
    ++depth_;
    new_line();
  }

  void new_line() {
    out_ += '\n';
    out_.append(static_cast<std::size_t>(depth_) * static_cast<std::size_t>(indent_), ' ');
  }

  std::string_view json_;
  int indent_;
  std::string out_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
};

}  // namespace

std::string indent_json(std::string_view json, int indent) {
  if (indent <= 0) return std::string(json);
  return Indenter(json, indent).run();
}

}  // namespace stepscope
