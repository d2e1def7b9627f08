// The Kineto keys the importer reads, an event's own and those of its `args`, each declared once
// below: its spelling in the trace, its enumerator, the kind of value it holds and where in
// RawEvent that value goes. From the two lists come the enums, the classifiers and the dispatch
// that hands a key's value to a parser's reader for its kind, so that each event parser knows how
// to read a kind of value, never which keys there are.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "importers/kineto/raw_event.h"

namespace stepscope::kineto {

// The kinds of value, one tag type each: a parser's reader has an overload for each.
namespace value_kind {
struct Skip {};             // a key the importer does not read
struct Phase {};            // a one-letter string (char)
struct String {};           // a string, kept as written (std::string_view)
struct Id {};               // a number or a string (RawId)
struct Time {};             // microseconds (TimeSlot)
struct FlowId {};           // an integer, or a string that is hashed (std::int64_t)
struct Args {};             // the args object, its keys those of ArgKey (RawEvent)
struct Integer {};          // std::int64_t, or std::int32_t
struct IntegerIfNumber {};  // the same when the value is a number; any other value is ignored
struct Real {};             // double
struct Triple {};           // [x, y, z] of integers (std::int32_t[3]); a value not a list ignored
struct RawJson {};          // a list or object, kept as written (std::string_view)
struct StringIfString {};   // a string; any other value is ignored
struct Address {};          // an unsigned integer (RawMemory's address)
}  // namespace value_kind

// Where a time goes: its literal, whether the event has it, and its value when converted.
struct TimeSlot {
  std::string_view& literal;
  bool& present;
  RawEvent::Time& time;
};

// The event's own keys: X(enumerator, value kind, destination, spelling). `destination` is an
// expression over `RawEvent& event`; the spelling also names the field in import notes and errors.
#define STEPSCOPE_KINETO_EVENT_KEYS(X)                                          \
  X(kPhase, Phase, event.phase, "ph")                                           \
  X(kCategory, String, event.category, "cat")                                   \
  X(kName, String, event.name, "name")                                          \
  X(kPid, Id, event.pid, "pid")                                                 \
  X(kTid, Id, event.tid, "tid")                                                 \
  X(kTs, Time, (TimeSlot{event.ts_literal, event.has_ts, event.ts}), "ts")      \
  X(kDur, Time, (TimeSlot{event.dur_literal, event.has_dur, event.dur}), "dur") \
  X(kArgs, Args, event, "args")                                                 \
  X(kId, FlowId, event.flow_id, "id")

// The keys of an event's `args`: X(enumerator, value kind, row, destination, spelling, and at
// most one other spelling). `row`: kEventArgs when the value belongs in the event's EventArgs row
// (the builder makes one for an event with any such value), kEvent when it is the event's own
// (ids, memory, metadata). Import notes and errors name the field "args.<first spelling>".
#define STEPSCOPE_KINETO_ARG_KEYS(X)                                                             \
  X(kCorrelation, Integer, kEvent, event.correlation, "correlation")                             \
  X(kExternalId, Integer, kEvent, event.external_id, "External id", "external id")               \
  X(kStream, IntegerIfNumber, kEvent, event.stream, "stream") /* "0x0" on ROCm: no stream */     \
  X(kDevice, Integer, kEvent, event.device, "device")                                            \
  X(kInputDims, RawJson, kEventArgs, event.input_dims, "Input Dims")                             \
  X(kInputTypes, RawJson, kEventArgs, event.input_types, "Input type")                           \
  X(kConcreteInputs, RawJson, kEventArgs, event.concrete_inputs, "Concrete Inputs")              \
  X(kBytes, Integer, kEventArgs, event.numeric_args.bytes, "bytes")                              \
  X(kBlocksPerSm, Real, kEventArgs, event.numeric_args.blocks_per_sm, "blocks per SM")           \
  X(kOccupancy, Real, kEventArgs, event.numeric_args.occupancy_percent,                          \
    "est. achieved occupancy %")                                                                 \
  X(kWarpsPerSm, Real, kEventArgs, event.numeric_args.warps_per_sm, "warps per SM")              \
  X(kGrid, Triple, kEventArgs, event.numeric_args.grid, "grid") /* Inductor: "grid(100,)" */     \
  X(kBlock, Triple, kEventArgs, event.numeric_args.block, "block")                               \
  X(kRegisters, Integer, kEventArgs, event.numeric_args.registers_per_thread,                    \
    "registers per thread")                                                                      \
  X(kSharedMemory, Integer, kEventArgs, event.numeric_args.shared_memory, "shared memory")       \
  X(kCollectiveName, String, kEventArgs, event.collective_name, "Collective name")               \
  X(kDtype, String, kEventArgs, event.dtype, "dtype")                                            \
  X(kProcessGroupName, String, kEventArgs, event.process_group_name, "Process Group Name")       \
  X(kInMsgNelems, Integer, kEventArgs, event.numeric_args.in_msg_nelems, "In msg nelems")        \
  X(kOutMsgNelems, Integer, kEventArgs, event.numeric_args.out_msg_nelems, "Out msg nelems")     \
  X(kGroupSize, Integer, kEventArgs, event.numeric_args.group_size, "Group size")                \
  X(kSequenceNumber, Integer, kEventArgs, event.numeric_args.sequence_number, "Sequence number") \
  X(kFlops, Integer, kEventArgs, event.numeric_args.flops, "flops")                              \
  X(kAddress, Address, kEvent, event.memory, "Addr")                                             \
  X(kMemoryBytes, Integer, kEvent, event.memory.bytes, "Bytes")                                  \
  X(kTotalAllocated, Integer, kEvent, event.memory.total_allocated, "Total Allocated")           \
  X(kTotalReserved, Integer, kEvent, event.memory.total_reserved, "Total Reserved")              \
  X(kDeviceType, Integer, kEvent, event.memory.device_type, "Device Type")                       \
  X(kDeviceId, Integer, kEvent, event.memory.device_id, "Device Id")                             \
  X(kName, StringIfString, kEvent, event.metadata_name, "name") /* of `M` events */

#define STEPSCOPE_KINETO_KEY_ENUMERATOR(enumerator, ...) enumerator,

// kOther: a key the importer does not read, which the parsers skip.
enum class EventKey : std::uint8_t {
  kOther,
  STEPSCOPE_KINETO_EVENT_KEYS(STEPSCOPE_KINETO_KEY_ENUMERATOR)
};

enum class ArgKey : std::uint8_t {
  kOther,
  STEPSCOPE_KINETO_ARG_KEYS(STEPSCOPE_KINETO_KEY_ENUMERATOR)
};

#undef STEPSCOPE_KINETO_KEY_ENUMERATOR

// Which row an arg's value belongs to (see STEPSCOPE_KINETO_ARG_KEYS).
enum class ArgRow : std::uint8_t { kEvent, kEventArgs };

template <typename Key>
struct KeySpelling {
  std::string_view text;
  Key key;
};

namespace key_table {

#define STEPSCOPE_KINETO_EVENT_SPELLING(enumerator, kind, destination, spelling) \
  KeySpelling<EventKey>{spelling, EventKey::enumerator},
#define STEPSCOPE_KINETO_ARG_SPELLINGS(enumerator, kind, row, destination, spelling, ...) \
  KeySpelling<ArgKey>{spelling, ArgKey::enumerator},                                      \
      __VA_OPT__(KeySpelling<ArgKey>{__VA_ARGS__, ArgKey::enumerator}, )

inline constexpr KeySpelling<EventKey> kEventSpellings[] = {
    STEPSCOPE_KINETO_EVENT_KEYS(STEPSCOPE_KINETO_EVENT_SPELLING)};
inline constexpr KeySpelling<ArgKey> kArgSpellings[] = {
    STEPSCOPE_KINETO_ARG_KEYS(STEPSCOPE_KINETO_ARG_SPELLINGS)};

#undef STEPSCOPE_KINETO_EVENT_SPELLING
#undef STEPSCOPE_KINETO_ARG_SPELLINGS

// Whether `key` and `pattern` hold the same `length` bytes (1 to 32), in a few word compares that
// read no byte of `key` past `length`: words overlap rather than run over the end.
template <typename Word>
bool same_word(const char* key, const char* pattern) {
  Word a = 0;
  Word b = 0;
  std::memcpy(&a, key, sizeof a);
  std::memcpy(&b, pattern, sizeof b);
  return a == b;
}

inline bool same_bytes(const char* key, const char* pattern, std::size_t length) {
  if (length >= 8) {
    for (std::size_t at = 0; at + 8 < length; at += 8) {
      if (!same_word<std::uint64_t>(key + at, pattern + at)) return false;
    }
    return same_word<std::uint64_t>(key + length - 8, pattern + length - 8);
  }
  if (length >= 4) {
    return same_word<std::uint32_t>(key, pattern) &&
           same_word<std::uint32_t>(key + length - 4, pattern + length - 4);
  }
  if (length >= 2) {
    return same_word<std::uint16_t>(key, pattern) &&
           same_word<std::uint16_t>(key + length - 2, pattern + length - 2);
  }
  return key[0] == pattern[0];
}

// Recognises a fixed set of spellings with a perfect hash found at compile time: a key's length,
// first and last bytes pick its one candidate, compared with it in a few word compares. Most
// keys of a trace are not ours, and most of those differ from the candidate in its length.
template <typename Key, std::size_t kCount>
class KeyClassifier {
 public:
  static constexpr std::size_t kMaxLength = 32;

  consteval explicit KeyClassifier(const KeySpelling<Key> (&spellings)[kCount]) {
    for (std::size_t i = 0; i < kCount; ++i) {
      const std::string_view text = spellings[i].text;
      if (text.empty() || text.size() > kMaxLength) return;  // not found_: fails the build
      Candidate& candidate = candidates_[i + 1];
      for (std::size_t at = 0; at < text.size(); ++at) candidate.text[at] = text[at];
      candidate.length = static_cast<std::uint8_t>(text.size());
      candidate.key = spellings[i].key;
    }
    // Odd multipliers from the golden ratio's, until one sends every spelling to its own slot.
    constexpr std::uint32_t kTries = 1U << 16;
    for (std::uint32_t multiplier = 0x9E3779B1U; multiplier != 0x9E3779B1U + 2 * kTries;
         multiplier += 2) {
      if (try_multiplier(spellings, multiplier)) return;
    }
  }

  // False when no perfect hash was found (or a spelling is empty or too long).
  [[nodiscard]] constexpr bool found() const { return found_; }

  Key operator()(std::string_view key) const {
    if (key.size() - 1 >= kMaxLength) return Key{};  // empty (wraps around) or too long
    const Candidate& candidate = candidates_[slots_[slot(key, multiplier_)]];
    return candidate.length == key.size() &&
                   same_bytes(key.data(), candidate.text.data(), key.size())
               ? candidate.key
               : Key{};
  }

 private:
  static constexpr std::size_t kSlots = std::bit_ceil(4 * kCount);
  static constexpr int kSlotBits = std::countr_zero(kSlots);
  static_assert(kCount < 255, "slots hold a candidate's index in one byte");

  struct Candidate {
    std::array<char, kMaxLength> text{};  // zero-padded
    std::uint8_t length = 0;              // 0: no candidate, matches no key
    Key key{};
  };

  static constexpr std::size_t slot(std::string_view key, std::uint32_t multiplier) {
    const std::uint32_t word =
        static_cast<std::uint32_t>(key.size()) |
        static_cast<std::uint32_t>(static_cast<unsigned char>(key.front())) << 8 |
        static_cast<std::uint32_t>(static_cast<unsigned char>(key.back())) << 16;
    return (word * multiplier) >> (32 - kSlotBits);
  }

  constexpr bool try_multiplier(const KeySpelling<Key> (&spellings)[kCount],
                                std::uint32_t multiplier) {
    std::array<std::uint8_t, kSlots> slots{};
    for (std::size_t i = 0; i < kCount; ++i) {
      std::uint8_t& taken = slots[slot(spellings[i].text, multiplier)];
      if (taken != 0) return false;
      taken = static_cast<std::uint8_t>(i + 1);
    }
    slots_ = slots;
    multiplier_ = multiplier;
    found_ = true;
    return true;
  }

  std::array<Candidate, kCount + 1> candidates_{};  // [0]: none
  std::array<std::uint8_t, kSlots> slots_{};        // candidate index, 0 when none
  std::uint32_t multiplier_ = 0;
  bool found_ = false;
};

inline constexpr KeyClassifier kEventKeys{kEventSpellings};
inline constexpr KeyClassifier kArgKeys{kArgSpellings};
static_assert(kEventKeys.found() && kArgKeys.found(),
              "no perfect hash over the key spellings: two share length, first and last byte, or "
              "one is empty or longer than 32 bytes");

}  // namespace key_table

// Every spelling the importer recognises, with its key.
inline std::span<const KeySpelling<EventKey>> event_key_spellings() {
  return key_table::kEventSpellings;
}
inline std::span<const KeySpelling<ArgKey>> arg_key_spellings() { return key_table::kArgSpellings; }

// Inline, as the fast parser calls them for every key it has not seen at that place before.
inline EventKey classify_event_key(std::string_view key) { return key_table::kEventKeys(key); }
inline ArgKey classify_arg_key(std::string_view key) { return key_table::kArgKeys(key); }

// Hands the value of `key` to `reader` as reader(kind, destination, field): the kind's tag
// (value_kind), where in `event` the value goes, and the field's name for import notes and errors.
// A key the importer does not read comes as value_kind::Skip, with the event and "". Always
// inlined: the compiler otherwise calls it once per key, out of the parser's loop over the keys.
template <typename Reader>
[[gnu::always_inline]] inline auto store_event_value(EventKey key, RawEvent& event,
                                                     Reader& reader) {
  switch (key) {
#define STEPSCOPE_KINETO_STORE_EVENT(enumerator, kind, destination, spelling) \
  case EventKey::enumerator:                                                  \
    return reader(value_kind::kind{}, destination, spelling);
    STEPSCOPE_KINETO_EVENT_KEYS(STEPSCOPE_KINETO_STORE_EVENT)
#undef STEPSCOPE_KINETO_STORE_EVENT
    case EventKey::kOther:
      break;
  }
  return reader(value_kind::Skip{}, event, "");
}

// The same for an arg; one of the event's EventArgs row marks the event as having one.
template <typename Reader>
[[gnu::always_inline]] inline auto store_arg_value(ArgKey key, RawEvent& event, Reader& reader) {
  switch (key) {
#define STEPSCOPE_KINETO_STORE_ARG(enumerator, kind, row, destination, spelling, ...) \
  case ArgKey::enumerator:                                                            \
    if constexpr (ArgRow::row == ArgRow::kEventArgs) event.has_event_args = true;     \
    return reader(value_kind::kind{}, destination, "args." spelling);
    STEPSCOPE_KINETO_ARG_KEYS(STEPSCOPE_KINETO_STORE_ARG)
#undef STEPSCOPE_KINETO_STORE_ARG
    case ArgKey::kOther:
      break;
  }
  return reader(value_kind::Skip{}, event, "");
}

}  // namespace stepscope::kineto
