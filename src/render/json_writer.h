// A small streaming JSON writer. Strings from traces are escaped here, once: invalid UTF-8
// becomes U+FFFD, control characters and `<`, `>`, `&` become \u escapes, so that the output
// is valid JSON and safe to embed in an HTML page.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stepscope::render {

class JsonWriter {
 public:
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void key(std::string_view name);

  void value(std::string_view text);
  void value(const char* text) { value(std::string_view(text)); }
  void value(const std::string& text) { value(std::string_view(text)); }
  void value(std::int64_t number);
  void value(std::uint64_t number);
  void value(int number) { value(static_cast<std::int64_t>(number)); }
  void value(unsigned number) { value(static_cast<std::uint64_t>(number)); }
  void value(long long number) { value(static_cast<std::int64_t>(number)); }
  void value(unsigned long long number) { value(static_cast<std::uint64_t>(number)); }
  void value(double number);  // non-finite numbers are written as null
  void value(bool flag);
  void null();
  // A value already written as JSON by another JsonWriter (a pre-rendered part of a document).
  void raw_value(std::string_view json);
  // A nanosecond count written in microseconds, exactly, with up to 3 decimals.
  void microseconds(std::int64_t ns);

  template <typename T>
  void field(std::string_view name, const T& v) {
    key(name);
    value(v);
  }
  // `name` should end in `_us`.
  void field_us(std::string_view name, std::int64_t ns) {
    key(name);
    microseconds(ns);
  }

  [[nodiscard]] const std::string& text() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void separate();
  std::string out_;
  std::vector<bool> first_in_scope_;
  bool after_key_ = false;
};

// Appends `text` to `out` as a quoted JSON string, safe inside an HTML <script> element too (the
// HTML report embeds its data as JSON): the HTML parser ends the element at the first `</script`,
// whatever the JSON means, so <, > and & (`<!--` games) are \u escapes, and so are U+2028 and
// U+2029, which older JavaScript parsers take for line ends. Control characters are escaped and
// invalid UTF-8 becomes U+FFFD.
void append_json_string(std::string& out, std::string_view text);

}  // namespace stepscope::render
