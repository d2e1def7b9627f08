#include "snapshot/pickle_machine.h"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cstring>
#include <string>
#include <string_view>

namespace stepscope::snapshot {

namespace {

constexpr std::size_t kReadChunk = std::size_t{1} << 20;

// Opcodes by name (pickletools), for the ones this machine runs and the ones it refuses by name.
namespace op {
constexpr std::uint8_t kMark = '(', kStop = '.', kPop = '0', kPopMark = '1', kDup = '2';
constexpr std::uint8_t kNone = 'N', kNewTrue = 0x88, kNewFalse = 0x89;
constexpr std::uint8_t kBinInt = 'J', kBinInt1 = 'K', kBinInt2 = 'M', kLong1 = 0x8a, kLong4 = 0x8b;
constexpr std::uint8_t kBinFloat = 'G';
constexpr std::uint8_t kShortBinUnicode = 0x8c, kBinUnicode = 'X', kBinUnicode8 = 0x8d;
constexpr std::uint8_t kShortBinString = 'U', kBinString = 'T';
constexpr std::uint8_t kShortBinBytes = 'C', kBinBytes = 'B', kBinBytes8 = 0x8e, kByteArray8 = 0x96;
constexpr std::uint8_t kEmptyDict = '}', kEmptyList = ']', kEmptyTuple = ')';
constexpr std::uint8_t kDict = 'd', kList = 'l', kTuple = 't', kTuple1 = 0x85, kTuple2 = 0x86,
                       kTuple3 = 0x87;
constexpr std::uint8_t kAppend = 'a', kAppends = 'e', kSetItem = 's', kSetItems = 'u';
constexpr std::uint8_t kBinPut = 'q', kLongBinPut = 'r', kMemoize = 0x94, kBinGet = 'h',
                       kLongBinGet = 'j';
constexpr std::uint8_t kProto = 0x80, kFrame = 0x95;
}  // namespace op

// Names of opcodes that are valid pickle but not plain data, for the refusal message.
std::string_view refused_name(std::uint8_t opcode) {
  switch (opcode) {
    case 'c':
      return "GLOBAL";
    case 0x93:
      return "STACK_GLOBAL";
    case 'R':
      return "REDUCE";
    case 'b':
      return "BUILD";
    case 'i':
      return "INST";
    case 'o':
      return "OBJ";
    case 0x81:
      return "NEWOBJ";
    case 0x92:
      return "NEWOBJ_EX";
    case 'P':
      return "PERSID";
    case 'Q':
      return "BINPERSID";
    case 0x82:
    case 0x83:
    case 0x84:
      return "EXT";
    case 0x97:
      return "NEXT_BUFFER";
    case 0x98:
      return "READONLY_BUFFER";
    case 0x8f:
    case 0x90:
    case 0x91:
      return "a set";
    case 'I':
    case 'L':
    case 'S':
    case 'V':
    case 'F':
    case 'p':
    case 'g':
      return "a protocol 0 (text) opcode";
    default:
      return {};
  }
}

template <typename T>
T little_endian(std::string_view bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    value |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(bytes[i])) << (8 * i);
  }
  return static_cast<T>(value);
}

std::uint64_t big_endian_u64(std::string_view bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    value = (value << 8) | static_cast<std::uint8_t>(bytes[i]);
  }
  return value;
}

}  // namespace

double Value::as_float() const { return std::bit_cast<double>(payload); }
Value Value::of_float(double number) {
  return Value{Kind::kFloat, std::bit_cast<std::int64_t>(number)};
}

class PickleMachine::Reader {
 public:
  explicit Reader(io::ByteSource& source) : source_(source) { buffer_.resize(kReadChunk); }

  [[nodiscard]] std::uint64_t offset() const { return consumed_ + position_; }

  // The next n bytes (valid until the next call), or nullopt if the input ends first (then
  // failure() says why). An optional view costs nothing to build, unlike a Result.
  [[gnu::always_inline]] std::optional<std::string_view> take(std::size_t n) {
    if (end_ - position_ < n) [[unlikely]] {
      if (!fill(n)) return std::nullopt;
      if (end_ - position_ < n) {
        failure_ = make_error(ErrorKind::kNotJson,
                              fmt::format("the pickle ends inside a value: {} bytes needed, {} "
                                          "left",
                                          n, end_ - position_),
                              offset());
        return std::nullopt;
      }
    }
    std::string_view view(buffer_.data() + position_, n);
    position_ += n;
    return view;
  }

  // The next opcode; nullopt at the end of the input or on a read error (failure() is set).
  std::optional<std::uint8_t> next_opcode() {
    if (position_ == end_) [[unlikely]] {
      if (!fill(1) || position_ == end_) return std::nullopt;
    }
    return static_cast<std::uint8_t>(buffer_[position_++]);
  }

  [[nodiscard]] const std::optional<Error>& failure() const { return failure_; }

 private:
  bool fill(std::size_t wanted) {
    std::memmove(buffer_.data(), buffer_.data() + position_, end_ - position_);
    consumed_ += position_;
    end_ -= position_;
    position_ = 0;
    if (buffer_.size() < wanted) buffer_.resize(wanted);
    while (end_ < wanted) {
      Result<std::size_t> got = source_.read(buffer_.data() + end_, buffer_.size() - end_);
      if (!got) {
        failure_ = std::move(got).error();
        return false;
      }
      if (*got == 0) break;
      end_ += *got;
    }
    return true;
  }

  io::ByteSource& source_;
  std::vector<char> buffer_;
  std::size_t position_ = 0;
  std::size_t end_ = 0;
  std::uint64_t consumed_ = 0;
  std::optional<Error> failure_;
};

namespace {

constexpr int kKindShift = 59;
constexpr std::uint64_t kPayloadMask = (std::uint64_t{1} << kKindShift) - 1;

}  // namespace

PickleMachine::PickleMachine(StringPool& strings, ContainerSink& sink, PickleLimits limits)
    : strings_(strings), sink_(sink), adopted_kind_(sink.adopted_kind()), limits_(limits) {}

const Container& PickleMachine::container(std::int64_t index) const {
  return containers_[static_cast<std::size_t>(index)];
}
Container& PickleMachine::mutable_container(std::int64_t index) {
  return containers_[static_cast<std::size_t>(index)];
}

// The slot keeps its items' capacity: the next container in it (the next trace entry, most
// often) fills it without a new allocation.
void PickleMachine::release(std::int64_t index) {
  mutable_container(index).items.clear();
  free_slots_.push_back(index);
}

bool PickleMachine::fail(std::string message, ErrorKind kind) {
  error_ = make_error(kind, std::move(message), opcode_offset_);
  return false;
}

[[gnu::always_inline]] inline Value PickleMachine::memo_at(std::size_t slot) const {
  const std::uint64_t word = memo_[slot];
  const auto kind = static_cast<Kind>(word >> kKindShift);
  if (kind == Kind::kInt || kind == Kind::kFloat) return memo_scalars_.at(slot);
  return Value{kind, static_cast<std::int64_t>(word & kPayloadMask)};
}

void PickleMachine::memo_set(std::size_t slot, Value value) {
  std::uint64_t word = static_cast<std::uint64_t>(value.kind) << kKindShift;
  if (value.kind == Kind::kInt || value.kind == Kind::kFloat) {
    memo_scalars_[slot] = value;
  } else {
    word |= static_cast<std::uint64_t>(value.payload) & kPayloadMask;
  }
  if (slot == memo_.size()) {
    memo_.push_back(word);
  } else {
    memo_[slot] = word;
  }
}

Result<Value> PickleMachine::run(io::ByteSource& source) {
  Reader in(source);
  bool stopped = false;
  while (!stopped) {
    opcode_offset_ = in.offset();
    const std::optional<std::uint8_t> opcode = in.next_opcode();
    if (!opcode) {
      if (in.failure()) return *in.failure();
      return make_error(ErrorKind::kNotJson,
                        opcode_offset_ == 0
                            ? "the file is empty"
                            : "the pickle ends without its STOP opcode (truncated?)",
                        opcode_offset_);
    }
    if (!step(in, *opcode, stopped)) {
      if (error_) return *error_;
      return in.failure() ? *in.failure()
                          : make_error(ErrorKind::kNotJson, "unreadable pickle", opcode_offset_);
    }
  }
  if (stack_.size() != 1 || !marks_.empty()) {
    return make_error(ErrorKind::kNotJson,
                      fmt::format("STOP with {} values and {} marks on the stack; a pickle ends "
                                  "with exactly one value",
                                  stack_.size(), marks_.size()),
                      opcode_offset_);
  }
  Value root = stack_.back();
  if (!finish(root)) return *error_;
  return root;
}

[[gnu::always_inline]] inline bool PickleMachine::push(Value value) {
  if (stack_.size() >= limits_.max_stack) [[unlikely]] {
    return fail(fmt::format("more than {} values on the pickle stack", limits_.max_stack),
                ErrorKind::kLimitExceeded);
  }
  stack_.push_back(value);
  return true;
}

bool PickleMachine::open_container(Kind kind) {
  if (containers_.size() - free_slots_.size() >= limits_.max_containers) [[unlikely]] {
    return fail(fmt::format("more than {} containers held at once: not a memory snapshot",
                            limits_.max_containers),
                ErrorKind::kLimitExceeded);
  }
  std::int64_t index = 0;
  if (!free_slots_.empty()) {
    index = free_slots_.back();
    free_slots_.pop_back();
    Container& reused = mutable_container(index);
    reused.kind = kind;
    reused.memo = -1;
    reused.shared_open = false;
    reused.finished = false;
  } else {
    index = static_cast<std::int64_t>(containers_.size());
    containers_.push_back(Container{kind, {}, -1, false, false});
  }
  return push(Value{kind, index});
}

std::optional<std::size_t> PickleMachine::pop_mark() {
  if (marks_.empty()) {
    fail("an opcode needs a MARK but there is none");
    return std::nullopt;
  }
  const std::size_t begin = marks_.back();
  marks_.pop_back();
  return begin;
}

// Hands a complete container to the sink and puts its replacement wherever the container was
// referred to: in `value`, and in its memo slot.
bool PickleMachine::finish(Value& value) {
  if (!value.is_container()) return true;
  Container& c = mutable_container(value.payload);
  if (c.finished) return true;
  c.finished = true;
  if (c.shared_open) return true;  // referred to from elsewhere while open: keep it as it is
  const std::int64_t slot = c.memo;
  Result<Value> replaced = sink_.finish(value, opcode_offset_);
  if (!replaced) {
    error_ = std::move(replaced).error();
    return false;
  }
  if (replaced->kind == value.kind && replaced->payload == value.payload) return true;
  if (slot >= 0) {
    const Value in_memo = memo_at(static_cast<std::size_t>(slot));
    if (in_memo.kind == value.kind && in_memo.payload == value.payload) {
      memo_set(static_cast<std::size_t>(slot), *replaced);
    }
  }
  release(value.payload);
  value = *replaced;
  return true;
}

bool PickleMachine::finish_range(std::size_t begin) {
  for (std::size_t i = begin; i < stack_.size(); ++i) {
    Value& v = stack_[i];
    if (!v.is_container() || container(v.payload).finished) continue;  // the common case
    if (!finish(v)) return false;
  }
  return true;
}

// A second reference to a container not yet placed in its parent (a frame that occurs twice in
// one stack, say). Unless items are still being added to it (it is the target of an open MARK),
// it is complete: finish it now and replace it on the stack, so that both references see the
// same record. A container still being filled keeps both references and stays generic.
bool PickleMachine::finish_early(Value value) {
  for (std::size_t mark : marks_) {
    if (mark > 0 && stack_[mark - 1].kind == value.kind &&
        stack_[mark - 1].payload == value.payload) {
      mutable_container(value.payload).shared_open = true;
      return true;
    }
  }
  Value replaced = value;
  if (!finish(replaced)) return false;
  for (Value& on_stack : stack_) {
    if (on_stack.kind == value.kind && on_stack.payload == value.payload) on_stack = replaced;
  }
  return true;
}

bool PickleMachine::move_items(std::size_t begin, Value target) {
  if (!finish_range(begin)) return false;
  std::vector<Value>& items = mutable_container(target.payload).items;
  for (std::size_t i = begin; i < stack_.size(); ++i) {
    if (stack_[i].kind == adopted_kind_ && target.kind == Kind::kList &&
        sink_.adopt(target.payload, stack_[i])) {
      continue;
    }
    items.push_back(stack_[i]);
  }
  stack_.resize(begin);
  return true;
}

// TUPLE*, LIST and DICT: the values from `begin` become a new container in their place.
bool PickleMachine::collect(std::size_t begin, Kind kind) {
  if (kind == Kind::kDict && (stack_.size() - begin) % 2 != 0) {
    return fail("DICT with a key and no value");
  }
  if (!finish_range(begin)) return false;
  std::vector<Value> items(stack_.begin() + static_cast<std::ptrdiff_t>(begin), stack_.end());
  stack_.resize(begin);
  if (!open_container(kind)) return false;
  mutable_container(stack_.back().payload).items = std::move(items);
  return true;
}

bool PickleMachine::memo_put(std::uint64_t index) {
  if (stack_.empty()) return fail("PUT with an empty stack");
  // pickle.dump numbers memo slots in order; anything else is not what it writes.
  if (index > memo_.size()) {
    return fail(fmt::format("memo slot {} is written before slot {}", index, memo_.size()));
  }
  const Value top = stack_.back();
  memo_set(static_cast<std::size_t>(index), top);
  if (top.is_container() && !container(top.payload).finished) {
    mutable_container(top.payload).memo = static_cast<std::int64_t>(index);
  }
  return true;
}

bool PickleMachine::memo_get(std::uint64_t index) {
  if (index >= memo_.size()) {
    return fail(fmt::format("memo slot {} is read but only {} are written", index, memo_.size()));
  }
  Value value = memo_at(static_cast<std::size_t>(index));
  if (value.is_container() && !container(value.payload).finished) {
    if (!finish_early(value)) return false;
    value = memo_at(static_cast<std::size_t>(index));
  }
  return push(value);
}

bool PickleMachine::push_string(Reader& in, std::uint64_t length) {
  if (length > limits_.max_string_bytes) {
    return fail(fmt::format("a string of {} bytes; the limit is {} bytes", length,
                            limits_.max_string_bytes),
                ErrorKind::kLimitExceeded);
  }
  const std::optional<std::string_view> bytes = in.take(static_cast<std::size_t>(length));
  if (!bytes) return false;
  return push(Value{Kind::kString, static_cast<std::int64_t>(strings_.intern(*bytes))});
}

bool PickleMachine::skip_bytes(Reader& in, std::uint64_t length) {
  if (length > limits_.max_string_bytes) {
    return fail(fmt::format("a bytes value of {} bytes; the limit is {} bytes", length,
                            limits_.max_string_bytes),
                ErrorKind::kLimitExceeded);
  }
  if (!in.take(static_cast<std::size_t>(length))) return false;
  return push(Value{Kind::kBytes, static_cast<std::int64_t>(length)});
}

// LONG1 / LONG4: little-endian two's complement of `length` bytes, kept when it fits 64 bits.
bool PickleMachine::push_long(Reader& in, std::uint64_t length) {
  if (length > 8) {
    return fail(fmt::format("an integer of {} bytes does not fit in 64 bits", length));
  }
  const std::optional<std::string_view> bytes = in.take(static_cast<std::size_t>(length));
  if (!bytes) return false;
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < length; ++i) {
    value |= static_cast<std::uint64_t>(static_cast<std::uint8_t>((*bytes)[i])) << (8 * i);
  }
  if (length > 0 && length < 8 && ((*bytes)[length - 1] & 0x80) != 0) {
    value |= ~std::uint64_t{0} << (8 * length);  // sign extension
  }
  return push(Value{Kind::kInt, static_cast<std::int64_t>(value)});
}

template <typename T>
[[gnu::always_inline]] inline bool PickleMachine::read_le(Reader& in, std::uint64_t& out) {
  const std::optional<std::string_view> bytes = in.take(sizeof(T));
  if (!bytes) return false;
  out = static_cast<std::uint64_t>(little_endian<T>(*bytes));
  return true;
}

bool PickleMachine::step(Reader& in, std::uint8_t opcode, bool& stopped) {
  std::uint64_t n = 0;
  switch (opcode) {
    case op::kProto:
      return read_le<std::uint8_t>(in, n);
    case op::kFrame:
      return read_le<std::uint64_t>(in, n);
    case op::kStop:
      stopped = true;
      return true;
    case op::kMark:
      if (marks_.size() >= limits_.max_marks) {
        return fail(fmt::format("more than {} nested MARKs", limits_.max_marks),
                    ErrorKind::kLimitExceeded);
      }
      marks_.push_back(stack_.size());
      return true;
    case op::kPop:
      if (!marks_.empty() && marks_.back() == stack_.size()) {
        marks_.pop_back();
        return true;
      }
      if (stack_.empty()) return fail("POP with an empty stack");
      stack_.pop_back();
      return true;
    case op::kPopMark: {
      const std::optional<std::size_t> begin = pop_mark();
      if (!begin) return false;
      stack_.resize(*begin);
      return true;
    }
    case op::kDup:
      if (stack_.size() <= floor()) return fail("DUP with an empty stack");
      if (stack_.back().is_container()) {
        mutable_container(stack_.back().payload).shared_open = true;
      }
      return push(stack_.back());
    case op::kNone:
      return push(Value{Kind::kNone, 0});
    case op::kNewTrue:
      return push(Value{Kind::kBool, 1});
    case op::kNewFalse:
      return push(Value{Kind::kBool, 0});
    case op::kBinInt:
      return read_le<std::uint32_t>(in, n) &&
             push(Value{Kind::kInt, static_cast<std::int32_t>(static_cast<std::uint32_t>(n))});
    case op::kBinInt1:
      return read_le<std::uint8_t>(in, n) && push(Value{Kind::kInt, static_cast<std::int64_t>(n)});
    case op::kBinInt2:
      return read_le<std::uint16_t>(in, n) && push(Value{Kind::kInt, static_cast<std::int64_t>(n)});
    case op::kLong1:
      return read_le<std::uint8_t>(in, n) && push_long(in, n);
    case op::kLong4:
      if (!read_le<std::uint32_t>(in, n)) return false;
      if (n > 0x7fffffffU) return fail("LONG4 with a negative length");
      return push_long(in, n);
    case op::kBinFloat: {
      const std::optional<std::string_view> bytes = in.take(8);  // big-endian, unlike the rest
      return bytes && push(Value::of_float(std::bit_cast<double>(big_endian_u64(*bytes))));
    }
    case op::kShortBinUnicode:
    case op::kShortBinString:
      return read_le<std::uint8_t>(in, n) && push_string(in, n);
    case op::kBinUnicode:
    case op::kBinString:
      return read_le<std::uint32_t>(in, n) && push_string(in, n);
    case op::kBinUnicode8:
      return read_le<std::uint64_t>(in, n) && push_string(in, n);
    case op::kShortBinBytes:
      return read_le<std::uint8_t>(in, n) && skip_bytes(in, n);
    case op::kBinBytes:
      return read_le<std::uint32_t>(in, n) && skip_bytes(in, n);
    case op::kBinBytes8:
    case op::kByteArray8:
      return read_le<std::uint64_t>(in, n) && skip_bytes(in, n);
    case op::kEmptyDict:
      return open_container(Kind::kDict);
    case op::kEmptyList:
      return open_container(Kind::kList);
    case op::kEmptyTuple:
      return collect(stack_.size(), Kind::kTuple);
    case op::kTuple1:
    case op::kTuple2:
    case op::kTuple3: {
      const std::size_t count = opcode - op::kTuple1 + 1U;
      if (stack_.size() < floor() + count) return fail("TUPLE1/2/3 with too few values");
      return collect(stack_.size() - count, Kind::kTuple);
    }
    case op::kTuple:
    case op::kList:
    case op::kDict: {
      const std::optional<std::size_t> begin = pop_mark();
      if (!begin) return false;
      const Kind kind = opcode == op::kTuple  ? Kind::kTuple
                        : opcode == op::kList ? Kind::kList
                                              : Kind::kDict;
      return collect(*begin, kind);
    }
    case op::kAppend:
    case op::kAppends:
    case op::kSetItem:
    case op::kSetItems: {
      const bool list = opcode == op::kAppend || opcode == op::kAppends;
      std::size_t begin = 0;
      if (opcode == op::kAppends || opcode == op::kSetItems) {
        const std::optional<std::size_t> mark = pop_mark();
        if (!mark) return false;
        begin = *mark;
      } else {
        const std::size_t count = list ? 1 : 2;
        if (stack_.size() < floor() + count + 1) return fail("APPEND/SETITEM with too few values");
        begin = stack_.size() - count;
      }
      if (begin == 0 || stack_[begin - 1].kind != (list ? Kind::kList : Kind::kDict)) {
        return fail(list ? "APPEND(S) to something that is not a list"
                         : "SETITEM(S) on something that is not a dict");
      }
      if (!list && (stack_.size() - begin) % 2 != 0)
        return fail("SETITEMS with a key and no value");
      return move_items(begin, stack_[begin - 1]);
    }
    case op::kMemoize:
      return memo_put(memo_.size());
    case op::kBinPut:
      return read_le<std::uint8_t>(in, n) && memo_put(n);
    case op::kLongBinPut:
      return read_le<std::uint32_t>(in, n) && memo_put(n);
    case op::kBinGet:
      return read_le<std::uint8_t>(in, n) && memo_get(n);
    case op::kLongBinGet:
      return read_le<std::uint32_t>(in, n) && memo_get(n);
    default:
      break;
  }
  const std::string_view name = refused_name(opcode);
  if (!name.empty()) {
    return fail(fmt::format("opcode 0x{:02x} ({}) is not plain data: stepscope reads only "
                            "dicts, lists, strings and numbers, and never imports or calls "
                            "anything from a pickle",
                            opcode, name),
                ErrorKind::kUnsupported);
  }
  return fail(fmt::format("0x{:02x} is not a pickle opcode (not a pickle file?)", opcode));
}

}  // namespace stepscope::snapshot
