#include "snapshot/snapshot_builder.h"

#include <fmt/format.h>

#include <cassert>
#include <cstring>
#include <string_view>

namespace stepscope::snapshot {

namespace {

// The field names stepscope reads, in the order of kKeyNames.
enum Key : std::size_t {
  kFilename,
  kLine,
  kName,
  kAction,
  kAddr,
  kSize,
  kStream,
  kTimeUs,
  kFrames,
  kDeviceFree,
  kAddress,
  kTotalSize,
  kAllocatedSize,
  kActiveSize,
  kRequestedSize,
  kSegmentType,
  kBlocks,
  kState,
  kDevice,
  kIsExpandable,
  kSegments,
  kDeviceTraces,
  kKeyCount,
};
constexpr std::array<std::string_view, kKeyCount> kKeyNames = {
    "filename",       "line",          "name",           "action",       "addr",    "size",
    "stream",         "time_us",       "frames",         "device_free",  "address", "total_size",
    "allocated_size", "active_size",   "requested_size", "segment_type", "blocks",  "state",
    "device",         "is_expandable", "segments",       "device_traces"};

// The values of the known keys of one dict; nullptr where absent.
static_assert(kKeyCount == 22);
using Fields = std::array<const Value*, kKeyCount>;

SnapshotAction action_of(std::string_view name) {
  if (name == "alloc") return SnapshotAction::kAlloc;
  if (name == "free_requested") return SnapshotAction::kFreeRequested;
  if (name == "free_completed") return SnapshotAction::kFreeCompleted;
  if (name == "segment_alloc") return SnapshotAction::kSegmentAlloc;
  if (name == "segment_free") return SnapshotAction::kSegmentFree;
  if (name == "segment_map") return SnapshotAction::kSegmentMap;
  if (name == "segment_unmap") return SnapshotAction::kSegmentUnmap;
  if (name == "snapshot") return SnapshotAction::kSnapshot;
  if (name == "oom") return SnapshotAction::kOom;
  return SnapshotAction::kOther;
}

BlockState state_of(std::string_view name) {
  if (name == "active_allocated") return BlockState::kActiveAllocated;
  if (name == "active_pending_free" || name == "active_awaiting_free") {
    return BlockState::kActivePendingFree;
  }
  if (name == "inactive") return BlockState::kInactive;
  return BlockState::kOther;
}

Error wrong_type(std::string_view record, std::string_view field, std::string_view expected,
                 std::uint64_t offset) {
  return make_error(ErrorKind::kNotTrace,
                    fmt::format("the {} field '{}' is not {}", record, field, expected), offset);
}

}  // namespace

std::size_t SnapshotBuilder::FrameKeyHash::operator()(const FrameKey& k) const {
  std::uint64_t h = (static_cast<std::uint64_t>(k.filename) << 32) ^ k.name;
  h ^= static_cast<std::uint64_t>(k.line) * 0x9E3779B97F4A7C15ULL;
  h *= 0xBF58476D1CE4E5B9ULL;
  return static_cast<std::size_t>(h ^ (h >> 31));
}

SnapshotBuilder::SnapshotBuilder(MemorySnapshot& out) : out_(out) {
  for (std::size_t k = 0; k < kKeyCount; ++k) {
    key_ids_[k] = out_.strings.intern(kKeyNames[k]);
    assert(key_ids_[k] == key_ids_[0] + k);  // fields_of relies on it: a fresh pool
  }
}

namespace {

// The known keys were interned first, into a fresh pool, so their ids are consecutive: a key's
// id minus the first one is its Key (checked in the constructor).
Fields fields_of(const Container& dict, const std::array<StringId, kKeyCount>& keys) {
  Fields fields{};
  for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2) {
    const Value& key = dict.items[i];
    if (key.kind != Kind::kString) continue;
    const auto k = static_cast<std::size_t>(static_cast<StringId>(key.payload) - keys[0]);
    if (k < kKeyCount) fields[k] = &dict.items[i + 1];
  }
  return fields;
}

// An integer field: absent gives `fallback`; booleans count as 0/1 as in Python.
Result<std::int64_t> integer(const Fields& f, Key key, std::string_view record,
                             std::int64_t fallback, std::uint64_t offset) {
  const Value* v = f[key];
  if (v == nullptr || v->kind == Kind::kNone) return fallback;
  if (v->kind == Kind::kInt || v->kind == Kind::kBool) return v->payload;
  return wrong_type(record, kKeyNames[key], "an integer", offset);
}

Result<StringId> text(const Fields& f, Key key, std::string_view record, std::uint64_t offset) {
  const Value* v = f[key];
  if (v == nullptr) return StringId{0};
  if (v->kind == Kind::kString) return static_cast<StringId>(v->payload);
  return wrong_type(record, kKeyNames[key], "a string", offset);
}

}  // namespace

StackId SnapshotBuilder::stack_of(const Value* frames) const {
  if (frames == nullptr || frames->kind != Kind::kStack) return kNoStack;  // absent or empty
  return static_cast<StackId>(frames->payload);
}

bool SnapshotBuilder::adopt(std::int64_t list, Value item) {
  if (item.kind != Kind::kEntry) return false;
  const auto index = static_cast<std::size_t>(list);
  if (lists_with_entries_.size() <= index) lists_with_entries_.resize(index + 1);
  lists_with_entries_[index] = true;
  // The container index stands in for the device until the root says which device it is.
  out_.entries[static_cast<std::size_t>(item.payload)].device = static_cast<std::int32_t>(list);
  return true;
}

Result<Value> SnapshotBuilder::finish(Value value, std::uint64_t offset) {
  const Container& c = machine_->container(value.payload);
  const auto index = static_cast<std::size_t>(value.payload);
  if (index < lists_with_entries_.size() && lists_with_entries_[index]) return value;
  if (c.kind == Kind::kList && !c.items.empty()) {
    for (const Value& item : c.items) {
      if (item.kind != Kind::kFrame) return value;
    }
    return make_stack(c);
  }
  if (c.kind != Kind::kDict) return value;
  const Fields f = fields_of(c, key_ids_);
  if (f[kFilename] != nullptr && f[kName] != nullptr) return make_frame(f, offset);
  if (f[kAction] != nullptr) return make_entry(f, offset);
  if (f[kTotalSize] != nullptr && f[kBlocks] != nullptr) return make_segment(f, offset);
  if (f[kState] != nullptr && f[kSize] != nullptr) return make_block(f, offset);
  return value;
}

Result<Value> SnapshotBuilder::make_frame(const Fields& f, std::uint64_t offset) {
  STEPSCOPE_ASSIGN_OR_RETURN(const StringId filename, text(f, kFilename, "frame", offset));
  STEPSCOPE_ASSIGN_OR_RETURN(const StringId name, text(f, kName, "frame", offset));
  STEPSCOPE_ASSIGN_OR_RETURN(const std::int64_t line, integer(f, kLine, "frame", 0, offset));
  const FrameKey key{filename, name, line};
  auto [it, inserted] = frame_ids_.try_emplace(key, static_cast<std::uint32_t>(out_.frames.size()));
  if (inserted) out_.frames.push_back(SnapshotFrame{filename, name, line});
  return Value{Kind::kFrame, it->second};
}

Value SnapshotBuilder::make_stack(const Container& list) {
  stack_key_.resize(list.items.size() * sizeof(std::uint32_t));
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    const auto frame = static_cast<std::uint32_t>(list.items[i].payload);
    std::memcpy(stack_key_.data() + i * sizeof(frame), &frame, sizeof(frame));
  }
  auto [it, inserted] =
      stack_ids_.try_emplace(stack_key_, static_cast<StackId>(out_.stack_offsets.size() - 1));
  if (inserted) {
    for (const Value& item : list.items) {
      out_.stack_frames.push_back(static_cast<std::uint32_t>(item.payload));
    }
    out_.stack_offsets.push_back(static_cast<std::uint32_t>(out_.stack_frames.size()));
  }
  return Value{Kind::kStack, it->second};
}

Result<Value> SnapshotBuilder::make_entry(const Fields& f, std::uint64_t offset) {
  constexpr std::string_view kRecord = "trace entry";
  STEPSCOPE_ASSIGN_OR_RETURN(const StringId action, text(f, kAction, kRecord, offset));
  SnapshotEntry entry;
  entry.action = action_of(out_.strings.view(action));
  STEPSCOPE_ASSIGN_OR_RETURN(const std::int64_t addr, integer(f, kAddr, kRecord, 0, offset));
  STEPSCOPE_ASSIGN_OR_RETURN(entry.size, integer(f, kSize, kRecord, 0, offset));
  STEPSCOPE_ASSIGN_OR_RETURN(entry.stream, integer(f, kStream, kRecord, 0, offset));
  STEPSCOPE_ASSIGN_OR_RETURN(entry.time_us, integer(f, kTimeUs, kRecord, kAbsent, offset));
  STEPSCOPE_ASSIGN_OR_RETURN(const std::int64_t device_free,
                             integer(f, kDeviceFree, kRecord, kAbsent, offset));
  if (entry.action == SnapshotAction::kOom) {
    out_.ooms.push_back(OomRecord{out_.entries.size(), device_free});
  }
  entry.address = static_cast<std::uint64_t>(addr);
  entry.stack = stack_of(f[kFrames]);
  out_.entries.push_back(entry);
  return Value{Kind::kEntry, static_cast<std::int64_t>(out_.entries.size() - 1)};
}

Result<Value> SnapshotBuilder::make_block(const Fields& f, std::uint64_t offset) {
  constexpr std::string_view kRecord = "block";
  STEPSCOPE_ASSIGN_OR_RETURN(const StringId state, text(f, kState, kRecord, offset));
  SnapshotBlock block;
  block.state = state_of(out_.strings.view(state));
  STEPSCOPE_ASSIGN_OR_RETURN(const std::int64_t address, integer(f, kAddress, kRecord, 0, offset));
  block.address = static_cast<std::uint64_t>(address);
  STEPSCOPE_ASSIGN_OR_RETURN(block.size, integer(f, kSize, kRecord, 0, offset));
  STEPSCOPE_ASSIGN_OR_RETURN(block.requested_size,
                             integer(f, kRequestedSize, kRecord, kAbsent, offset));
  block.stack = stack_of(f[kFrames]);
  out_.blocks.push_back(block);
  return Value{Kind::kBlock, static_cast<std::int64_t>(out_.blocks.size() - 1)};
}

constexpr std::uint64_t kBlockReferenceSlack = 4096;

Result<Value> SnapshotBuilder::make_segment(const Fields& f, std::uint64_t offset) {
  constexpr std::string_view kRecord = "segment";
  SnapshotSegment segment;
  STEPSCOPE_ASSIGN_OR_RETURN(const std::int64_t device, integer(f, kDevice, kRecord, -1, offset));
  segment.device = static_cast<std::int32_t>(device);
  STEPSCOPE_ASSIGN_OR_RETURN(const std::int64_t address, integer(f, kAddress, kRecord, 0, offset));
  segment.address = static_cast<std::uint64_t>(address);
  STEPSCOPE_ASSIGN_OR_RETURN(segment.total_size, integer(f, kTotalSize, kRecord, 0, offset));
  STEPSCOPE_ASSIGN_OR_RETURN(segment.allocated_size,
                             integer(f, kAllocatedSize, kRecord, 0, offset));
  STEPSCOPE_ASSIGN_OR_RETURN(segment.active_size, integer(f, kActiveSize, kRecord, 0, offset));
  STEPSCOPE_ASSIGN_OR_RETURN(segment.requested_size,
                             integer(f, kRequestedSize, kRecord, kAbsent, offset));
  STEPSCOPE_ASSIGN_OR_RETURN(segment.stream, integer(f, kStream, kRecord, 0, offset));
  STEPSCOPE_ASSIGN_OR_RETURN(const std::int64_t expandable,
                             integer(f, kIsExpandable, kRecord, 0, offset));
  segment.expandable = expandable != 0;
  STEPSCOPE_ASSIGN_OR_RETURN(const StringId type, text(f, kSegmentType, kRecord, offset));
  segment.large = out_.strings.view(type) != "small";
  const Value* blocks = f[kBlocks];
  if (blocks->kind != Kind::kList) return wrong_type(kRecord, "blocks", "a list", offset);
  const std::vector<Value>& items = machine_->container(blocks->payload).items;
  // A block written out takes far more than one byte of pickle; only references to one shared
  // list can make the listed blocks outnumber the bytes read.
  block_references_ += items.size();
  if (block_references_ > offset + kBlockReferenceSlack) {
    return make_error(ErrorKind::kLimitExceeded,
                      fmt::format("segments list {} blocks by byte {}: a block list shared "
                                  "between segments would expand beyond a bound of the input's "
                                  "size; refused",
                                  block_references_, offset),
                      offset);
  }
  for (const Value& block : items) {
    if (block.kind != Kind::kBlock) {
      return make_error(ErrorKind::kNotTrace,
                        "a segment's 'blocks' holds something that is not a block", offset);
    }
    segment.blocks.push_back(static_cast<std::uint32_t>(block.payload));
  }
  out_.segments.push_back(std::move(segment));
  return Value{Kind::kSegment, static_cast<std::int64_t>(out_.segments.size() - 1)};
}

namespace {

const Value* root_field(const Container& root, StringId key) {
  for (std::size_t i = 0; i + 1 < root.items.size(); i += 2) {
    if (root.items[i].kind == Kind::kString &&
        static_cast<StringId>(root.items[i].payload) == key) {
      return &root.items[i + 1];
    }
  }
  return nullptr;
}

}  // namespace

Status SnapshotBuilder::finish_root(Value root, std::uint64_t offset) {
  if (root.kind == Kind::kList) {  // torch < 2.1: the list of segments alone
    for (const Value& item : machine_->container(root.payload).items) {
      if (item.kind != Kind::kSegment) {
        return make_error(ErrorKind::kNotTrace,
                          "not a memory snapshot: a list that holds something other than "
                          "segments",
                          offset);
      }
    }
    return Done{};
  }
  if (root.kind != Kind::kDict) {
    return make_error(ErrorKind::kNotTrace,
                      "not a memory snapshot: the pickle holds neither a dict nor a list", offset);
  }
  const Container& dict = machine_->container(root.payload);
  const Value* segments = root_field(dict, key_ids_[kSegments]);
  const Value* traces = root_field(dict, key_ids_[kDeviceTraces]);
  if (segments == nullptr && traces == nullptr) {
    return make_error(
        ErrorKind::kNotTrace,
        "not a memory snapshot: the dict has neither 'segments' nor 'device_traces' (write it "
        "with torch.cuda.memory._dump_snapshot())",
        offset);
  }
  if (segments != nullptr && segments->kind != Kind::kList) {
    return make_error(ErrorKind::kNotTrace, "not a memory snapshot: 'segments' is not a list",
                      offset);
  }
  if (traces == nullptr) return Done{};
  if (traces->kind != Kind::kList) {
    return make_error(ErrorKind::kNotTrace, "not a memory snapshot: 'device_traces' is not a list",
                      offset);
  }
  const std::vector<Value>& devices = machine_->container(traces->payload).items;
  out_.device_trace_count = static_cast<std::int32_t>(devices.size());
  std::unordered_map<std::int64_t, std::int32_t> device_of_list;
  for (std::size_t d = 0; d < devices.size(); ++d) {
    if (devices[d].kind != Kind::kList) {
      return make_error(ErrorKind::kNotTrace, fmt::format("'device_traces'[{}] is not a list", d),
                        offset);
    }
    if (!machine_->container(devices[d].payload).items.empty()) {
      return make_error(
          ErrorKind::kNotTrace,
          fmt::format("'device_traces'[{}] holds something that is not a trace entry", d), offset);
    }
    device_of_list[devices[d].payload] = static_cast<std::int32_t>(d);
  }
  for (SnapshotEntry& entry : out_.entries) {
    auto found = device_of_list.find(entry.device);
    entry.device = found == device_of_list.end() ? -1 : found->second;
  }
  return Done{};
}

}  // namespace stepscope::snapshot
