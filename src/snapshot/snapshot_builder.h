// Turns the containers of a memory snapshot pickle into compact records as the pickle machine
// finishes them: a dict with filename/line/name becomes a frame, a list of frames a stack, a dict
// with an `action` a trace entry, a dict with `state` a block, a dict with `total_size` and
// `blocks` a segment. Everything is deduplicated, so the snapshot in memory stays far smaller
// than the file.
#pragma once

#include <array>
#include <string>
#include <unordered_map>

#include "snapshot/pickle_machine.h"
#include "stepscope/snapshot.h"

namespace stepscope::snapshot {

class SnapshotBuilder : public ContainerSink {
 public:
  explicit SnapshotBuilder(MemorySnapshot& out);
  void attach(const PickleMachine& machine) { machine_ = &machine; }

  Result<Value> finish(Value container, std::uint64_t offset) override;
  // Trace entries are kept in the snapshot's table with the list they belong to, not in it.
  bool adopt(std::int64_t list, Value item) override;
  [[nodiscard]] Kind adopted_kind() const override { return Kind::kEntry; }
  // After STOP: reads the root dict (or, from torch < 2.1, the bare list of segments).
  Status finish_root(Value root, std::uint64_t offset);

 private:
  struct FrameKey {
    StringId filename;
    StringId name;
    std::int64_t line;
    bool operator==(const FrameKey&) const = default;
  };
  struct FrameKeyHash {
    std::size_t operator()(const FrameKey& k) const;
  };

  using Fields = std::array<const Value*, 22>;  // the known keys of one dict
  Result<Value> make_frame(const Fields& f, std::uint64_t offset);
  Result<Value> make_entry(const Fields& f, std::uint64_t offset);
  Result<Value> make_block(const Fields& f, std::uint64_t offset);
  Result<Value> make_segment(const Fields& f, std::uint64_t offset);
  Value make_stack(const Container& list);
  StackId stack_of(const Value* frames) const;

  MemorySnapshot& out_;
  const PickleMachine* machine_ = nullptr;
  std::vector<bool> lists_with_entries_;  // by container index
  std::unordered_map<FrameKey, std::uint32_t, FrameKeyHash> frame_ids_;
  std::unordered_map<std::string, StackId> stack_ids_;
  std::string stack_key_;  // scratch
  // Blocks listed by all segments so far: a list shared through the memo is copied per
  // segment, so this is bounded by the input's size (a crafted pickle could otherwise make a
  // few hundred kilobytes expand to gigabytes).
  std::uint64_t block_references_ = 0;
  std::array<StringId, 22> key_ids_{};  // the field names, interned once (see Key)
};

}  // namespace stepscope::snapshot
