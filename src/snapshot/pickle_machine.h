// A small, safe interpreter of the pickle opcodes that `pickle.dump` writes for plain data
// (protocols 2 to 5): dicts, lists, tuples, strings, bytes, integers, floats, booleans, None,
// the memo and framing. It never imports, constructs or calls anything: any opcode that would
// (GLOBAL, REDUCE, BUILD, NEWOBJ, ...) is refused with its byte offset. Nothing recurses, and
// memory is bounded by a fixed multiple of the input plus limits on the stack, marks, strings
// and containers held at once.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "io/byte_source.h"
#include "snapshot/pickle_value.h"
#include "stepscope/error.h"

namespace stepscope::snapshot {

struct PickleLimits {
  std::size_t max_stack = std::size_t{1} << 24;
  std::size_t max_marks = std::size_t{1} << 16;  // nesting depth of batched containers
  std::size_t max_containers = std::size_t{1} << 22;
  std::size_t max_string_bytes = std::size_t{64} << 20;
};

// What the machine hands finished containers to (the snapshot builder).
class ContainerSink {
 public:
  virtual ~ContainerSink() = default;
  // Called once per container when it is complete. Returns the value that replaces it
  // everywhere (itself to keep it), or an Error.
  virtual Result<Value> finish(Value container, std::uint64_t offset) = 0;
  // Called for each item of kind adopted_kind() appended to a list; true when the sink took
  // it, so the list need not hold it (trace entries: millions of them, recorded with the list
  // they belong to).
  [[nodiscard]] virtual Kind adopted_kind() const = 0;
  virtual bool adopt(std::int64_t list, Value item) = 0;
};

class PickleMachine {
 public:
  PickleMachine(StringPool& strings, ContainerSink& sink, PickleLimits limits = {});

  // Runs to STOP; the root value, finished.
  Result<Value> run(io::ByteSource& source);

  [[nodiscard]] const Container& container(std::int64_t index) const;

  class Reader;  // buffered input with its offset (defined in the .cpp)

 private:
  // The opcode loop runs tens of millions of times on a large snapshot, so its steps report
  // failure as false with the error kept in error_, rather than through a Result each. Most
  // failures mean the bytes are not a well-formed pickle; limits and refused opcodes say so.
  bool fail(std::string message, ErrorKind kind = ErrorKind::kNotJson);
  bool step(Reader& in, std::uint8_t opcode, bool& stopped);
  bool push(Value value);
  bool open_container(Kind kind);
  std::optional<std::size_t> pop_mark();
  bool finish_range(std::size_t begin);
  bool finish(Value& value);
  bool finish_early(Value value);
  bool move_items(std::size_t begin, Value target);
  bool collect(std::size_t begin, Kind kind);
  bool memo_put(std::uint64_t index);
  bool memo_get(std::uint64_t index);
  bool push_string(Reader& in, std::uint64_t length);
  bool skip_bytes(Reader& in, std::uint64_t length);
  bool push_long(Reader& in, std::uint64_t length);
  template <typename T>
  bool read_le(Reader& in, std::uint64_t& out);
  Container& mutable_container(std::int64_t index);
  void release(std::int64_t index);
  [[nodiscard]] std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }

  // Memo slots hold strings, containers and records as 8-byte words (kind and index); the odd
  // value pickle.dump never memoizes (an int, a float) goes to a side table.
  [[nodiscard]] Value memo_at(std::size_t slot) const;
  void memo_set(std::size_t slot, Value value);

  StringPool& strings_;
  ContainerSink& sink_;
  Kind adopted_kind_;
  PickleLimits limits_;
  std::vector<Value> stack_;
  std::vector<std::size_t> marks_;
  std::vector<std::uint64_t> memo_;
  std::unordered_map<std::size_t, Value> memo_scalars_;
  std::vector<Container> containers_;
  std::vector<std::int64_t> free_slots_;
  std::uint64_t opcode_offset_ = 0;
  std::optional<Error> error_;
};

}  // namespace stepscope::snapshot
