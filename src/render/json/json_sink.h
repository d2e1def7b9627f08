// The JSON writer as the sink of the generic figure writer (stepscope/figures/fields.h).
#pragma once

#include "render/json_writer.h"
#include "stepscope/figures/fields.h"

namespace stepscope::render {

class JsonSink final : public figures::Sink {
 public:
  explicit JsonSink(JsonWriter& json) : json_(json) {}
  void begin_object() override { json_.begin_object(); }
  void end_object() override { json_.end_object(); }
  void begin_array() override { json_.begin_array(); }
  void end_array() override { json_.end_array(); }
  void key(std::string_view name) override { json_.key(name); }
  void string(std::string_view text) override { json_.value(text); }
  void integer(std::int64_t number) override { json_.value(number); }
  void unsigned_integer(std::uint64_t number) override { json_.value(number); }
  void number(double number) override { json_.value(number); }
  void boolean(bool flag) override { json_.value(flag); }
  void null() override { json_.null(); }
  void microseconds(std::int64_t ns) override { json_.microseconds(ns); }

 private:
  JsonWriter& json_;
};

// Any described result (its *_fields.h included) as JSON.
template <figures::Described T>
void write_json(JsonWriter& json, const T& result, const figures::Context& context = {}) {
  JsonSink sink(json);
  figures::write_value(sink, result, figures::Unit::kNone, context);
}

}  // namespace stepscope::render
