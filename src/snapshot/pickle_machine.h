// A small, safe interpreter of the pickle opcodes that `pickle.dump` writes for plain data
// (protocols 2 to 5): dicts, lists, tuples, strings, bytes, integers, floats, booleans, None,
// the memo and framing. It never imports, constructs or calls anything: any opcode that would
// (GLOBAL, REDUCE, BUILD, NEWOBJ, ...) is refused with its byte offset. Memory is bounded by a
// fixed multiple of the input plus explicit limits on the stack, the marks and the memo.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "io/byte_source.h"
#include "snapshot/pickle_value.h"
#include "stepscope/error.h"

namespace stepscope::snapshot {

struct PickleLimits {
  std::size_t max_stack = std::size_t{1} << 24;
  std::size_t max_marks = std::size_t{1} << 16;  // nesting depth of batched containers
  std::size_t max_open_containers = std::size_t{1} << 22;
  std::size_t max_string_bytes = std::size_t{64} << 20;
};

// Called once per container when it is finished (placed into its parent, or the root at STOP).
// Returns the value that replaces it everywhere (itself to keep it), or an Error.
using Finisher = std::function<Result<Value>(Value container, std::uint64_t offset)>;

class PickleMachine {
 public:
  PickleMachine(StringPool& strings, Finisher finisher, PickleLimits limits = {});

  // Runs to STOP; the root value, finished.
  Result<Value> run(io::ByteSource& source);

  // The containers that stayed containers (read by the finisher and the snapshot builder).
  [[nodiscard]] const Container& container(std::int64_t index) const;
  Container& container(std::int64_t index);
  // Hands a replaced container's slot back for reuse.
  void release(std::int64_t index);

 private:
  class Reader;
  template <typename T>
  static Result<T> read_le(Reader& in);
  template <typename T, typename Then>
  Status with_le(Reader& in, Then&& then);
  Status step(Reader& in, std::uint8_t opcode, bool& stopped);
  Status push(Value value);
  Result<Value> pop();
  Status open_container(Kind kind);
  Result<std::size_t> pop_mark();
  Status finish_range(std::size_t begin);
  Result<Value> finish(Value value);
  Status move_items(std::size_t begin, Value target);
  Status append_items(std::size_t begin);
  Status set_items(std::size_t begin);
  Status collect(std::size_t begin, Kind kind);
  Status memo_put(std::uint64_t index);
  Status memo_get(std::uint64_t index);
  Status finish_early(Value value);
  Status push_string(Reader& in, std::uint64_t length);
  Status skip_bytes(Reader& in, std::uint64_t length);
  Status push_long(Reader& in, std::uint64_t length);
  Error error_at(std::string message) const;

  StringPool& strings_;
  Finisher finisher_;
  PickleLimits limits_;
  std::vector<Value> stack_;
  std::vector<std::size_t> marks_;
  std::vector<Value> memo_;
  std::vector<Container> containers_;
  std::vector<std::int64_t> free_slots_;
  std::size_t open_containers_ = 0;
  std::uint64_t opcode_offset_ = 0;
};

}  // namespace stepscope::snapshot
