#include "snapshot/pickle_machine.h"

#include <fmt/core.h>

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

// Buffered reading with the absolute offset, so every error can name its byte.
class PickleMachine::Reader {
 public:
  explicit Reader(io::ByteSource& source) : source_(source) { buffer_.resize(kReadChunk); }

  [[nodiscard]] std::uint64_t offset() const { return consumed_ + position_; }

  // The next n bytes (valid until the next call), or an error if the input ends first.
  Result<std::string_view> take(std::size_t n) {
    if (end_ - position_ < n) {
      if (Status filled = fill(n); !filled) return std::move(filled).error();
      if (end_ - position_ < n) {
        return make_error(fmt::format("the pickle ends inside a value: {} bytes needed, {} left", n,
                                      end_ - position_),
                          offset());
      }
    }
    std::string_view view(buffer_.data() + position_, n);
    position_ += n;
    return view;
  }

  // The next opcode, or nullopt at the end of the input.
  Result<std::optional<std::uint8_t>> next_opcode() {
    if (position_ == end_) {
      if (Status filled = fill(1); !filled) return std::move(filled).error();
      if (position_ == end_) return std::optional<std::uint8_t>{};
    }
    return std::optional<std::uint8_t>{static_cast<std::uint8_t>(buffer_[position_++])};
  }

 private:
  Status fill(std::size_t wanted) {
    std::memmove(buffer_.data(), buffer_.data() + position_, end_ - position_);
    consumed_ += position_;
    end_ -= position_;
    position_ = 0;
    if (buffer_.size() < wanted) buffer_.resize(wanted);
    while (end_ < wanted || end_ == 0) {
      Result<std::size_t> got = source_.read(buffer_.data() + end_, buffer_.size() - end_);
      if (!got) return std::move(got).error();
      if (*got == 0) break;
      end_ += *got;
      if (end_ >= wanted) break;
    }
    return Done{};
  }

  io::ByteSource& source_;
  std::vector<char> buffer_;
  std::size_t position_ = 0;
  std::size_t end_ = 0;
  std::uint64_t consumed_ = 0;
};

PickleMachine::PickleMachine(StringPool& strings, Finisher finisher, PickleLimits limits)
    : strings_(strings), finisher_(std::move(finisher)), limits_(limits) {}

const Container& PickleMachine::container(std::int64_t index) const {
  return containers_[static_cast<std::size_t>(index)];
}
Container& PickleMachine::container(std::int64_t index) {
  return containers_[static_cast<std::size_t>(index)];
}

void PickleMachine::release(std::int64_t index) {
  Container& c = container(index);
  c.items = {};
  free_slots_.push_back(index);
}

Error PickleMachine::error_at(std::string message) const {
  return make_error(std::move(message), opcode_offset_);
}

Result<Value> PickleMachine::run(io::ByteSource& source) {
  Reader in(source);
  bool stopped = false;
  while (!stopped) {
    opcode_offset_ = in.offset();
    Result<std::optional<std::uint8_t>> opcode = in.next_opcode();
    if (!opcode) return std::move(opcode).error();
    if (!opcode->has_value()) {
      return error_at(opcode_offset_ == 0 ? "the file is empty"
                                          : "the pickle ends without its STOP opcode (truncated?)");
    }
    if (Status done = step(in, **opcode, stopped); !done) return std::move(done).error();
  }
  if (stack_.size() != 1 || !marks_.empty()) {
    return error_at(
        fmt::format("STOP with {} values and {} marks on the stack; a pickle ends "
                    "with exactly one value",
                    stack_.size(), marks_.size()));
  }
  return finish(stack_.back());
}

Status PickleMachine::push(Value value) {
  if (stack_.size() >= limits_.max_stack) {
    return error_at(fmt::format("more than {} values on the pickle stack", limits_.max_stack));
  }
  stack_.push_back(value);
  return Done{};
}

Result<Value> PickleMachine::pop() {
  const std::size_t floor = marks_.empty() ? 0 : marks_.back();
  if (stack_.size() <= floor) return error_at("an opcode needs a value but the stack is empty");
  Value value = stack_.back();
  stack_.pop_back();
  return value;
}

Status PickleMachine::open_container(Kind kind) {
  const std::size_t live = containers_.size() - free_slots_.size();
  if (open_containers_ >= limits_.max_open_containers || live >= limits_.max_open_containers) {
    return error_at(fmt::format("more than {} containers held at once: not a memory snapshot",
                                limits_.max_open_containers));
  }
  std::int64_t index = 0;
  if (!free_slots_.empty()) {
    index = free_slots_.back();
    free_slots_.pop_back();
    container(index) = Container{kind, {}, -1, false, false};
  } else {
    index = static_cast<std::int64_t>(containers_.size());
    containers_.push_back(Container{kind, {}, -1, false, false});
  }
  ++open_containers_;
  return push(Value{kind, index});
}

Result<std::size_t> PickleMachine::pop_mark() {
  if (marks_.empty()) return error_at("an opcode needs a MARK but there is none");
  const std::size_t begin = marks_.back();
  marks_.pop_back();
  return begin;
}

Result<Value> PickleMachine::finish(Value value) {
  if (!value.is_container()) return value;
  Container& c = container(value.payload);
  if (c.finished) return value;
  c.finished = true;
  --open_containers_;
  if (c.shared_open) return value;  // other references exist: keep it as it is
  Result<Value> replaced = finisher_(value, opcode_offset_);
  if (!replaced) return replaced;
  if (replaced->kind != value.kind || replaced->payload != value.payload) {
    const std::int64_t slot = container(value.payload).memo;
    if (slot >= 0) memo_[static_cast<std::size_t>(slot)] = *replaced;
    release(value.payload);
  }
  return replaced;
}

Status PickleMachine::finish_range(std::size_t begin) {
  for (std::size_t i = begin; i < stack_.size(); ++i) {
    Result<Value> done = finish(stack_[i]);
    if (!done) return std::move(done).error();
    stack_[i] = *done;
  }
  return Done{};
}

Status PickleMachine::move_items(std::size_t begin, Value target) {
  if (Status done = finish_range(begin); !done) return done;
  std::vector<Value>& items = container(target.payload).items;
  items.insert(items.end(), stack_.begin() + static_cast<std::ptrdiff_t>(begin), stack_.end());
  stack_.resize(begin);
  return Done{};
}

Status PickleMachine::append_items(std::size_t begin) {
  if (begin == 0 || stack_[begin - 1].kind != Kind::kList) {
    return error_at("APPEND(S) to something that is not a list");
  }
  return move_items(begin, stack_[begin - 1]);
}

Status PickleMachine::set_items(std::size_t begin) {
  if (begin == 0 || stack_[begin - 1].kind != Kind::kDict) {
    return error_at("SETITEM(S) on something that is not a dict");
  }
  if ((stack_.size() - begin) % 2 != 0) return error_at("SETITEMS with a key and no value");
  return move_items(begin, stack_[begin - 1]);
}

// TUPLE*, LIST and DICT: the values from `begin` become a new container in their place.
Status PickleMachine::collect(std::size_t begin, Kind kind) {
  if (kind == Kind::kDict && (stack_.size() - begin) % 2 != 0) {
    return error_at("DICT with a key and no value");
  }
  if (Status done = finish_range(begin); !done) return done;
  std::vector<Value> items(stack_.begin() + static_cast<std::ptrdiff_t>(begin), stack_.end());
  stack_.resize(begin);
  if (Status opened = open_container(kind); !opened) return opened;
  container(stack_.back().payload).items = std::move(items);
  return Done{};
}

Status PickleMachine::memo_put(std::uint64_t index) {
  if (stack_.empty()) return error_at("PUT with an empty stack");
  // pickle.dump numbers memo slots in order; anything else is not what it writes.
  if (index > memo_.size()) {
    return error_at(fmt::format("memo slot {} is written before slot {}", index, memo_.size()));
  }
  const Value top = stack_.back();
  if (index == memo_.size()) {
    memo_.push_back(top);
  } else {
    memo_[index] = top;
  }
  if (top.is_container() && !container(top.payload).finished) {
    container(top.payload).memo = static_cast<std::int64_t>(index);
  }
  return Done{};
}

Status PickleMachine::memo_get(std::uint64_t index) {
  if (index >= memo_.size()) {
    return error_at(fmt::format("memo slot {} is read but only {} are written", index,
                                memo_.size()));
  }
  Value value = memo_[index];
  if (value.is_container() && !container(value.payload).finished) {
    if (Status done = finish_early(value); !done) return done;
    value = memo_[index];
  }
  return push(value);
}

// A second reference to a container not yet placed in its parent (a frame that occurs twice in
// one stack, say). Unless items are still being added to it (it is the target of an open MARK),
// it is complete: finish it now and replace it on the stack, so that both references see the
// same record. A container still being filled keeps both references and stays generic.
Status PickleMachine::finish_early(Value value) {
  for (std::size_t mark : marks_) {
    if (mark > 0 && stack_[mark - 1].kind == value.kind &&
        stack_[mark - 1].payload == value.payload) {
      container(value.payload).shared_open = true;
      return Done{};
    }
  }
  Result<Value> done = finish(value);
  if (!done) return std::move(done).error();
  for (Value& on_stack : stack_) {
    if (on_stack.kind == value.kind && on_stack.payload == value.payload) on_stack = *done;
  }
  return Done{};
}

Status PickleMachine::push_string(Reader& in, std::uint64_t length) {
  if (length > limits_.max_string_bytes) {
    return error_at(fmt::format("a string of {} bytes; the limit is {} bytes", length,
                                limits_.max_string_bytes));
  }
  Result<std::string_view> bytes = in.take(static_cast<std::size_t>(length));
  if (!bytes) return std::move(bytes).error();
  return push(Value{Kind::kString, static_cast<std::int64_t>(strings_.intern(*bytes))});
}

Status PickleMachine::skip_bytes(Reader& in, std::uint64_t length) {
  if (length > limits_.max_string_bytes) {
    return error_at(fmt::format("a bytes value of {} bytes; the limit is {} bytes", length,
                                limits_.max_string_bytes));
  }
  Result<std::string_view> bytes = in.take(static_cast<std::size_t>(length));
  if (!bytes) return std::move(bytes).error();
  return push(Value{Kind::kBytes, static_cast<std::int64_t>(length)});
}

// LONG1 / LONG4: little-endian two's complement of `length` bytes, kept when it fits 64 bits.
Status PickleMachine::push_long(Reader& in, std::uint64_t length) {
  if (length > 8) {
    Result<std::string_view> bytes = in.take(std::min<std::uint64_t>(length, 1 << 20));
    if (!bytes) return std::move(bytes).error();
    return error_at(fmt::format("an integer of {} bytes does not fit in 64 bits", length));
  }
  Result<std::string_view> bytes = in.take(static_cast<std::size_t>(length));
  if (!bytes) return std::move(bytes).error();
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
Result<T> PickleMachine::read_le(Reader& in) {
  Result<std::string_view> bytes = in.take(sizeof(T));
  if (!bytes) return std::move(bytes).error();
  return little_endian<T>(*bytes);
}

// Reads a length or index of type T, then runs `then` with it.
template <typename T, typename Then>
Status PickleMachine::with_le(Reader& in, Then&& then) {
  Result<T> value = read_le<T>(in);
  if (!value) return std::move(value).error();
  return then(static_cast<std::uint64_t>(*value));
}

Status PickleMachine::step(Reader& in, std::uint8_t opcode, bool& stopped) {
  auto mark_then = [this](auto&& then) -> Status {
    Result<std::size_t> begin = pop_mark();
    if (!begin) return std::move(begin).error();
    return then(*begin);
  };
  switch (opcode) {
    case op::kProto:
      return with_le<std::uint8_t>(in, [](std::uint64_t) { return Status{Done{}}; });
    case op::kFrame:
      return with_le<std::uint64_t>(in, [](std::uint64_t) { return Status{Done{}}; });
    case op::kStop:
      stopped = true;
      return Done{};
    case op::kMark:
      if (marks_.size() >= limits_.max_marks) {
        return error_at(fmt::format("more than {} nested MARKs", limits_.max_marks));
      }
      marks_.push_back(stack_.size());
      return Done{};
    case op::kPop:
      if (!marks_.empty() && marks_.back() == stack_.size()) {
        marks_.pop_back();
        return Done{};
      }
      return pop() ? Status{Done{}} : Status{error_at("POP with an empty stack")};
    case op::kPopMark:
      return mark_then([this](std::size_t begin) {
        stack_.resize(begin);
        return Status{Done{}};
      });
    case op::kDup:
      if (stack_.empty()) return error_at("DUP with an empty stack");
      if (stack_.back().is_container()) container(stack_.back().payload).shared_open = true;
      return push(stack_.back());
    case op::kNone:
      return push(Value{Kind::kNone, 0});
    case op::kNewTrue:
      return push(Value{Kind::kBool, 1});
    case op::kNewFalse:
      return push(Value{Kind::kBool, 0});
    case op::kBinInt:
      return with_le<std::int32_t>(in, [this](std::uint64_t v) {
        return push(Value{Kind::kInt, static_cast<std::int32_t>(v)});
      });
    case op::kBinInt1:
      return with_le<std::uint8_t>(in, [this](std::uint64_t v) {
        return push(Value{Kind::kInt, static_cast<std::int64_t>(v)});
      });
    case op::kBinInt2:
      return with_le<std::uint16_t>(in, [this](std::uint64_t v) {
        return push(Value{Kind::kInt, static_cast<std::int64_t>(v)});
      });
    case op::kLong1:
      return with_le<std::uint8_t>(in, [this, &in](std::uint64_t n) { return push_long(in, n); });
    case op::kLong4:
      return with_le<std::int32_t>(in, [this, &in](std::uint64_t n) {
        if (static_cast<std::int32_t>(n) < 0)
          return Status{error_at("LONG4 with a negative length")};
        return push_long(in, n);
      });
    case op::kBinFloat: {
      Result<std::string_view> bytes = in.take(8);  // big-endian, unlike every other field
      if (!bytes) return std::move(bytes).error();
      return push(Value::of_float(std::bit_cast<double>(big_endian_u64(*bytes))));
    }
    case op::kShortBinUnicode:
    case op::kShortBinString:
      return with_le<std::uint8_t>(in, [this, &in](std::uint64_t n) { return push_string(in, n); });
    case op::kBinUnicode:
    case op::kBinString:
      return with_le<std::uint32_t>(in,
                                    [this, &in](std::uint64_t n) { return push_string(in, n); });
    case op::kBinUnicode8:
      return with_le<std::uint64_t>(in,
                                    [this, &in](std::uint64_t n) { return push_string(in, n); });
    case op::kShortBinBytes:
      return with_le<std::uint8_t>(in, [this, &in](std::uint64_t n) { return skip_bytes(in, n); });
    case op::kBinBytes:
      return with_le<std::uint32_t>(in, [this, &in](std::uint64_t n) { return skip_bytes(in, n); });
    case op::kBinBytes8:
    case op::kByteArray8:
      return with_le<std::uint64_t>(in, [this, &in](std::uint64_t n) { return skip_bytes(in, n); });
    case op::kEmptyDict:
      return open_container(Kind::kDict);
    case op::kEmptyList:
      return open_container(Kind::kList);
    case op::kEmptyTuple:
      return collect(stack_.size(), Kind::kTuple);
    case op::kTuple1:
    case op::kTuple2:
    case op::kTuple3: {
      const std::size_t n = opcode - op::kTuple1 + 1U;
      const std::size_t floor = marks_.empty() ? 0 : marks_.back();
      if (stack_.size() < floor + n) return error_at("TUPLE1/2/3 with too few values");
      return collect(stack_.size() - n, Kind::kTuple);
    }
    case op::kTuple:
      return mark_then([this](std::size_t b) { return collect(b, Kind::kTuple); });
    case op::kList:
      return mark_then([this](std::size_t b) { return collect(b, Kind::kList); });
    case op::kDict:
      return mark_then([this](std::size_t b) { return collect(b, Kind::kDict); });
    case op::kAppend: {
      const std::size_t floor = marks_.empty() ? 0 : marks_.back();
      if (stack_.size() < floor + 2) return error_at("APPEND with too few values");
      return append_items(stack_.size() - 1);
    }
    case op::kAppends:
      return mark_then([this](std::size_t b) { return append_items(b); });
    case op::kSetItem: {
      const std::size_t floor = marks_.empty() ? 0 : marks_.back();
      if (stack_.size() < floor + 3) return error_at("SETITEM with too few values");
      return set_items(stack_.size() - 2);
    }
    case op::kSetItems:
      return mark_then([this](std::size_t b) { return set_items(b); });
    case op::kMemoize:
      return memo_put(memo_.size());
    case op::kBinPut:
      return with_le<std::uint8_t>(in, [this](std::uint64_t i) { return memo_put(i); });
    case op::kLongBinPut:
      return with_le<std::uint32_t>(in, [this](std::uint64_t i) { return memo_put(i); });
    case op::kBinGet:
      return with_le<std::uint8_t>(in, [this](std::uint64_t i) { return memo_get(i); });
    case op::kLongBinGet:
      return with_le<std::uint32_t>(in, [this](std::uint64_t i) { return memo_get(i); });
    default:
      break;
  }
  const std::string_view name = refused_name(opcode);
  if (!name.empty()) {
    return error_at(
        fmt::format("opcode 0x{:02x} ({}) is not plain data: stepscope reads only "
                    "dicts, lists, strings and numbers, and never imports or calls "
                    "anything from a pickle",
                    opcode, name));
  }
  return error_at(fmt::format("0x{:02x} is not a pickle opcode (not a pickle file?)", opcode));
}

}  // namespace stepscope::snapshot
