#include "importers/kineto/op_inputs.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <utility>

#include "importers/kineto/json_unescape.h"

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
    std::size_t replaced = 0;  // a lone surrogate in a value: U+FFFD, as in names
    if (!unescape_json_string(text, at, values.emplace_back(), replaced)) return std::nullopt;
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
