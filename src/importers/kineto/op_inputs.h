// Reads what a Kineto op's `Input Dims`, `Input type` and `Concrete Inputs` say about its inputs
// into a Trace::op_inputs row. A trace repeats a few thousand such descriptions over millions of
// ops, so each distinct one is read once and its row shared by every op that has it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope::kineto {

// `Input Dims` (e.g. `[[64, 1024], [1024, 4096], []]`): one shape per input, an empty one for an
// input that is not a tensor; a list of tensors (`[[2, 3], [4]]`) reads as its first shape.
// nullopt for text that is not a list of integer lists (the empty text included).
[[nodiscard]] std::optional<std::vector<Shape>> parse_input_dims(std::string_view text);

// A JSON list of strings (`Input type`, `Concrete Inputs`), each unescaped; nullopt for any
// other text (the empty text included).
[[nodiscard]] std::optional<std::vector<std::string>> parse_string_list(std::string_view text);

// One op's three texts, as interned ids (0: the op has not that field).
struct OpInputTexts {
  StringId dims = 0;
  StringId types = 0;
  StringId concrete = 0;
  bool operator==(const OpInputTexts&) const = default;
  [[nodiscard]] bool empty() const { return dims == 0 && types == 0 && concrete == 0; }
};

// The rows of Trace::op_inputs one builder made, found by their texts.
class OpInputsTable {
 public:
  // The row of these texts in trace.op_inputs, read and appended when new; -1 for no texts.
  std::int32_t row_of(const OpInputTexts& texts, Trace& trace);
  // Finds or appends here each row that `later` (the table of a later part, over `later_trace`)
  // made, its ids mapped by `strings` (later_trace's id -> trace's id), in the later part's
  // order: as if this table had read that part. Returns the row in `trace` of each later row.
  std::vector<std::int32_t> absorb(const OpInputsTable& later, const Trace& later_trace,
                                   std::span<const StringId> strings, Trace& trace);
  // A field whose text some ops of `trace` had unreadable, so that their facts from it are
  // absent: what to note, how many such ops, and the byte offset of the first.
  struct Unreadable {
    std::string_view what;
    std::uint64_t events = 0;
    std::uint64_t first_offset = 0;
  };
  // One per such field; a pass over the events, made only when there are such texts.
  [[nodiscard]] std::vector<Unreadable> unreadable(const Trace& trace) const;

 private:
  void insert(const OpInputTexts& texts, std::int32_t row);
  [[nodiscard]] std::size_t slot_of(const OpInputTexts& texts) const;
  void grow();

  // Bits of unreadable_ per row: which texts could not be read.
  static constexpr std::uint8_t kDimsUnreadable = 1;
  static constexpr std::uint8_t kTypesUnreadable = 2;
  static constexpr std::uint8_t kConcreteUnreadable = 4;
  std::vector<OpInputTexts> texts_;       // per row
  std::vector<std::uint8_t> unreadable_;  // per row
  bool any_unreadable_ = false;
  // Open addressing over rows by their texts, looked up once per op: the texts sit in the slot,
  // so that a lookup reads one cache line. Row -1 is an empty slot.
  struct Slot {
    OpInputTexts texts;
    std::int32_t row = -1;
  };
  std::vector<Slot> slots_;
};

}  // namespace stepscope::kineto
