#include "importers/kineto/op_inputs.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <utility>

namespace stepscope::kineto {

namespace {

void skip_spaces(std::string_view text, std::size_t& at) {
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at])) != 0) ++at;
}

// Reads `[1, 2, 3]`; nested lists (tensor lists) are flattened into their first shape.
bool read_shape(std::string_view text, std::size_t& at, Shape& shape) {
  if (at >= text.size() || text[at] != '[') return false;
  ++at;
  for (;;) {
    skip_spaces(text, at);
    if (at < text.size() && text[at] == ']') {
      ++at;
      return true;
    }
    if (at < text.size() && text[at] == '[') {  // a list of tensors: keep the first
      Shape inner;
      if (!read_shape(text, at, inner)) return false;
      if (shape.empty()) shape = inner;
    } else {
      std::int64_t value = 0;
      const std::size_t begin = at;
      while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0 &&
             at - begin < 18) {
        value = value * 10 + (text[at++] - '0');
      }
      if (at == begin) return false;
      shape.push_back(value);
    }
    skip_spaces(text, at);
    if (at < text.size() && text[at] == ',') ++at;
  }
}

bool read_hex4(std::string_view text, std::size_t& at, std::uint32_t& value) {
  if (text.size() - at < 4) return false;
  value = 0;
  for (std::size_t end = at + 4; at < end; ++at) {
    const auto c = static_cast<unsigned char>(text[at]);
    if (std::isxdigit(c) == 0) return false;
    const std::uint32_t digit = std::isdigit(c) != 0 ? c - '0' : (std::tolower(c) - 'a') + 10;
    value = value * 16 + digit;
  }
  return true;
}

void append_utf8(std::uint32_t code_point, std::string& out) {
  const auto byte = [&out](std::uint32_t bits) { out.push_back(static_cast<char>(bits)); };
  if (code_point < 0x80) {
    byte(code_point);
  } else if (code_point < 0x800) {
    byte(0xC0 | (code_point >> 6));
    byte(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    byte(0xE0 | (code_point >> 12));
    byte(0x80 | ((code_point >> 6) & 0x3F));
    byte(0x80 | (code_point & 0x3F));
  } else {
    byte(0xF0 | (code_point >> 18));
    byte(0x80 | ((code_point >> 12) & 0x3F));
    byte(0x80 | ((code_point >> 6) & 0x3F));
    byte(0x80 | (code_point & 0x3F));
  }
}

// `\uXXXX` after its backslash and `u`; a surrogate pair takes both escapes.
bool read_unicode_escape(std::string_view text, std::size_t& at, std::string& out) {
  std::uint32_t code_point = 0;
  if (!read_hex4(text, at, code_point)) return false;
  const bool high_surrogate = code_point >= 0xD800 && code_point < 0xDC00;
  if (high_surrogate && text.substr(at, 2) == "\\u") {
    std::size_t low_at = at + 2;
    std::uint32_t low = 0;
    if (read_hex4(text, low_at, low) && low >= 0xDC00 && low < 0xE000) {
      code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00);
      at = low_at;
    }
  }
  append_utf8(code_point, out);
  return true;
}

char simple_escape(char escaped) {
  switch (escaped) {
    case '"':
    case '\\':
    case '/':
      return escaped;
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    default:
      return '\0';  // not a JSON escape
  }
}

// The JSON string whose opening quote is at `at`, unescaped, into `out`.
bool read_string(std::string_view text, std::size_t& at, std::string& out) {
  ++at;
  while (at < text.size()) {
    const char c = text[at++];
    if (c == '"') return true;
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (at >= text.size()) return false;
    const char escaped = text[at++];
    if (escaped == 'u') {
      if (!read_unicode_escape(text, at, out)) return false;
      continue;
    }
    const char plain = simple_escape(escaped);
    if (plain == '\0') return false;
    out.push_back(plain);
  }
  return false;
}

// The ids of a string list's values, interned; empty where the text has none or is unreadable
// (`unreadable` then set).
std::vector<StringId> intern_string_list(StringId text, StringPool& strings, bool& unreadable) {
  std::vector<StringId> ids;
  if (text == 0) return ids;
  const std::optional<std::vector<std::string>> values = parse_string_list(strings.view(text));
  unreadable = !values.has_value();
  if (!values) return ids;
  ids.reserve(values->size());
  for (const std::string& value : *values) ids.push_back(strings.intern(value));
  return ids;
}

}  // namespace

std::optional<std::vector<Shape>> parse_input_dims(std::string_view text) {
  std::size_t at = 0;
  skip_spaces(text, at);
  if (at >= text.size() || text[at] != '[') return std::nullopt;
  ++at;
  std::vector<Shape> shapes;
  for (;;) {
    skip_spaces(text, at);
    if (at < text.size() && text[at] == ']') return shapes;
    Shape shape;
    if (!read_shape(text, at, shape)) return std::nullopt;
    shapes.push_back(std::move(shape));
    skip_spaces(text, at);
    if (at < text.size() && text[at] == ',') ++at;
  }
}

std::optional<std::vector<std::string>> parse_string_list(std::string_view text) {
  std::size_t at = 0;
  skip_spaces(text, at);
  if (at >= text.size() || text[at] != '[') return std::nullopt;
  ++at;
  std::vector<std::string> values;
  skip_spaces(text, at);
  if (at < text.size() && text[at] == ']') return values;
  for (;;) {
    skip_spaces(text, at);
    if (at >= text.size() || text[at] != '"') return std::nullopt;
    if (!read_string(text, at, values.emplace_back())) return std::nullopt;
    skip_spaces(text, at);
    if (at < text.size() && text[at] == ']') return values;
    if (at >= text.size() || text[at] != ',') return std::nullopt;
    ++at;
  }
}

std::size_t OpInputsTable::slot_of(const OpInputTexts& texts) const {
  std::uint64_t hash = ((std::uint64_t{texts.dims} << 32) | texts.types) * 0x9E3779B97F4A7C15ULL;
  hash = (hash ^ (hash >> 29)) + std::uint64_t{texts.concrete} * 0xC2B2AE3D27D4EB4FULL;
  hash ^= hash >> 32;
  const std::size_t mask = slots_.size() - 1;
  std::size_t slot = static_cast<std::size_t>(hash) & mask;
  while (slots_[slot].row >= 0 && !(slots_[slot].texts == texts)) {
    slot = (slot + 1) & mask;
  }
  return slot;
}

void OpInputsTable::grow() {
  slots_.assign(slots_.empty() ? 64 : slots_.size() * 2, Slot{});
  for (std::size_t row = 0; row < texts_.size(); ++row) {
    slots_[slot_of(texts_[row])] = Slot{texts_[row], static_cast<std::int32_t>(row)};
  }
}

void OpInputsTable::insert(const OpInputTexts& texts, std::int32_t row) {
  texts_.push_back(texts);
  // At most half full, so that a probe ends soon.
  if (texts_.size() * 2 > slots_.size()) {
    grow();
  } else {
    slots_[slot_of(texts)] = Slot{texts, row};
  }
}

std::int32_t OpInputsTable::row_of(const OpInputTexts& texts, Trace& trace) {
  if (texts.empty()) return -1;
  if (slots_.empty()) grow();
  const std::int32_t found = slots_[slot_of(texts)].row;
  if (found >= 0) return found;
  OpInputs row;
  row.shapes_text = texts.dims;
  row.types_text = texts.types;
  row.shapes = parse_input_dims(trace.strings.view(texts.dims));
  bool types_unreadable = false;
  bool concrete_unreadable = false;
  row.dtypes = intern_string_list(texts.types, trace.strings, types_unreadable);
  row.concrete = intern_string_list(texts.concrete, trace.strings, concrete_unreadable);
  std::uint8_t unreadable = 0;
  if (!row.shapes && texts.dims != 0) unreadable |= kDimsUnreadable;
  if (types_unreadable) unreadable |= kTypesUnreadable;
  if (concrete_unreadable) unreadable |= kConcreteUnreadable;
  const auto index = static_cast<std::int32_t>(trace.op_inputs.size());
  trace.op_inputs.push_back(std::move(row));
  unreadable_.push_back(unreadable);
  any_unreadable_ = any_unreadable_ || unreadable != 0;
  insert(texts, index);
  return index;
}

std::vector<std::int32_t> OpInputsTable::absorb(const OpInputsTable& later,
                                                const Trace& later_trace,
                                                std::span<const StringId> strings, Trace& trace) {
  const auto map = [strings](StringId id) { return strings[id]; };
  std::vector<std::int32_t> rows(later.texts_.size(), -1);
  if (slots_.empty()) grow();
  for (std::size_t r = 0; r < later.texts_.size(); ++r) {
    const OpInputTexts& text = later.texts_[r];
    const OpInputTexts texts{map(text.dims), map(text.types), map(text.concrete)};
    const std::int32_t found = slots_[slot_of(texts)].row;
    if (found >= 0) {
      rows[r] = found;
      continue;
    }
    OpInputs row = later_trace.op_inputs[r];
    row.shapes_text = texts.dims;
    row.types_text = texts.types;
    for (StringId& id : row.dtypes) id = map(id);
    for (StringId& id : row.concrete) id = map(id);
    rows[r] = static_cast<std::int32_t>(trace.op_inputs.size());
    trace.op_inputs.push_back(std::move(row));
    unreadable_.push_back(later.unreadable_[r]);
    any_unreadable_ = any_unreadable_ || later.unreadable_[r] != 0;
    insert(texts, rows[r]);
  }
  return rows;
}

std::vector<OpInputsTable::Unreadable> OpInputsTable::unreadable(const Trace& trace) const {
  std::vector<Unreadable> found;
  if (!any_unreadable_) return found;
  static constexpr std::array<std::pair<std::uint8_t, std::string_view>, 3> kFields{{
      {kDimsUnreadable,
       "`Input Dims` that is not a list of integer lists (the op's input shapes are absent)"},
      {kTypesUnreadable,
       "`Input type` that is not a list of strings (the op's input dtypes are absent)"},
      {kConcreteUnreadable,
       "`Concrete Inputs` that is not a list of strings (the op's concrete inputs are absent)"},
  }};
  std::array<Unreadable, kFields.size()> counts{};
  for (std::size_t f = 0; f < kFields.size(); ++f) {
    counts[f] = {kFields[f].second, 0, std::numeric_limits<std::uint64_t>::max()};
  }
  const EventTable& e = trace.events;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const EventArgs* args = trace.args_of(i);
    if (args == nullptr || args->inputs_row < 0) continue;
    const std::uint8_t bits = unreadable_[static_cast<std::size_t>(args->inputs_row)];
    for (std::size_t f = 0; f < kFields.size(); ++f) {
      if ((bits & kFields[f].first) == 0) continue;
      ++counts[f].events;
      counts[f].first_offset = std::min<std::uint64_t>(counts[f].first_offset, e.source_offset[i]);
    }
  }
  for (const Unreadable& count : counts) {
    if (count.events > 0) found.push_back(count);
  }
  return found;
}

}  // namespace stepscope::kineto
