#include "render/json_writer.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "render/utf8.h"

namespace stepscope::render {

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for_each_code_point(text, [&out](std::uint32_t code_point, std::string_view bytes) {
    switch (code_point) {
      case '"':
        out += "\\\"";
        return;
      case '\\':
        out += "\\\\";
        return;
      case '\n':
        out += "\\n";
        return;
      case '\t':
        out += "\\t";
        return;
      case '\r':
        out += "\\r";
        return;
      default:
        break;
    }
    if (code_point < 0x20 || code_point == '<' || code_point == '>' || code_point == '&' ||
        code_point == 0x2028 || code_point == 0x2029) {
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(code_point >> shift) & 0xf]);
      return;
    }
    out.append(bytes);
  });
  out.push_back('"');
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_in_scope_.empty()) {
    if (!first_in_scope_.back()) out_.push_back(',');
    first_in_scope_.back() = false;
  }
}

void JsonWriter::begin_object() {
  separate();
  out_.push_back('{');
  first_in_scope_.push_back(true);
}

void JsonWriter::end_object() {
  first_in_scope_.pop_back();
  out_.push_back('}');
}

void JsonWriter::begin_array() {
  separate();
  out_.push_back('[');
  first_in_scope_.push_back(true);
}

void JsonWriter::end_array() {
  first_in_scope_.pop_back();
  out_.push_back(']');
}

void JsonWriter::key(std::string_view name) {
  separate();
  append_json_string(out_, name);
  out_.push_back(':');
  after_key_ = true;
}

void JsonWriter::value(std::string_view text) {
  separate();
  append_json_string(out_, text);
}

void JsonWriter::value(std::int64_t number) {
  separate();
  out_ += std::to_string(number);
}

void JsonWriter::value(std::uint64_t number) {
  separate();
  out_ += std::to_string(number);
}

void JsonWriter::value(double number) {
  separate();
  if (!std::isfinite(number)) {
    out_ += "null";
    return;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", number);
  out_ += buffer;
}

void JsonWriter::value(bool flag) {
  separate();
  out_ += flag ? "true" : "false";
}

void JsonWriter::raw_value(std::string_view json) {
  separate();
  out_ += json;
}

void JsonWriter::null() {
  separate();
  out_ += "null";
}

void JsonWriter::microseconds(std::int64_t ns) {
  separate();
  // Unsigned, so that even INT64_MIN (a corrupt snapshot's time) has a magnitude.
  std::uint64_t magnitude = static_cast<std::uint64_t>(ns);
  if (ns < 0) {
    out_.push_back('-');
    magnitude = 0 - magnitude;
  }
  out_ += std::to_string(magnitude / 1000);
  const std::uint64_t fraction = magnitude % 1000;
  if (fraction != 0) {
    char digits[8];
    std::snprintf(digits, sizeof digits, ".%03lld", static_cast<long long>(fraction));
    std::string text = digits;
    while (text.back() == '0') text.pop_back();
    out_ += text;
  }
}

}  // namespace stepscope::render
