// Loading a memory snapshot: the pickle machine with the snapshot builder as its finisher.
#include <algorithm>
#include <memory>
#include <new>
#include <string>

#include "io/byte_source.h"
#include "io/file_format.h"
#include "snapshot/pickle_machine.h"
#include "snapshot/snapshot_builder.h"
#include "stepscope/snapshot.h"

namespace stepscope {

namespace {

// Reports progress between reads of the underlying source, and keeps the first bytes so that a
// file of another kind can be named when the pickle machine refuses it.
class WatchedSource : public io::ByteSource {
 public:
  WatchedSource(io::ByteSource& inner, const ProgressCallback& progress)
      : inner_(inner), progress_(progress) {}
  Result<std::size_t> read(char* destination, std::size_t capacity) override {
    Result<std::size_t> got = inner_.read(destination, capacity);
    if (got && head_.size() < kHeadBytes) {
      head_.append(destination, std::min(*got, kHeadBytes - head_.size()));
    }
    if (progress_) progress_(inner_.raw_bytes_consumed(), inner_.raw_bytes_total());
    return got;
  }
  [[nodiscard]] std::uint64_t raw_bytes_consumed() const override {
    return inner_.raw_bytes_consumed();
  }
  [[nodiscard]] std::uint64_t raw_bytes_total() const override { return inner_.raw_bytes_total(); }
  // The first bytes, read further when the machine stopped before it had seen enough of them.
  [[nodiscard]] const std::string& head() {
    char more[kHeadBytes];
    while (head_.size() < kHeadBytes) {
      Result<std::size_t> got = read(more, kHeadBytes - head_.size());
      if (!got || *got == 0) break;
    }
    return head_;
  }

 private:
  static constexpr std::size_t kHeadBytes = 16;
  io::ByteSource& inner_;
  const ProgressCallback& progress_;
  std::string head_;
};

Result<MemorySnapshot> read_snapshot(WatchedSource& source, const std::string& name) {
  MemorySnapshot snapshot;
  snapshot.source_path = name;
  snapshot::SnapshotBuilder builder(snapshot);
  snapshot::PickleMachine machine(snapshot.strings, builder);
  builder.attach(machine);
  Result<snapshot::Value> root = machine.run(source);
  auto named = [&name, &source](Error error) {
    error.file = name;
    error.message +=
        io::wrong_format_hint(io::sniff_file_format(source.head()), io::FileFormat::kPickle);
    return error;
  };
  if (!root) return named(std::move(root).error());
  if (Status done = builder.finish_root(*root, source.raw_bytes_consumed()); !done) {
    return named(std::move(done).error());
  }
  snapshot.input_bytes = source.raw_bytes_consumed();
  return snapshot;
}

}  // namespace

Result<MemorySnapshot> load_memory_snapshot(const std::string& path,
                                            const ProgressCallback& progress) {
  Result<std::unique_ptr<io::ByteSource>> source = io::open_byte_source(path);
  if (!source) {
    Error error = std::move(source).error();
    error.file = path;
    return error;
  }
  WatchedSource watched(**source, progress);
  try {
    return read_snapshot(watched, path);
  } catch (const std::bad_alloc&) {  // names the file, as every other failure to read it does
    Error error = make_error(ErrorKind::kLimitExceeded, "out of memory reading this file");
    error.file = path;
    return error;
  }
}

Result<MemorySnapshot> load_memory_snapshot_bytes(const char* data, std::size_t size,
                                                  const std::string& name) {
  std::unique_ptr<io::ByteSource> source = io::memory_byte_source(data, size);
  const ProgressCallback no_progress;
  WatchedSource watched(*source, no_progress);
  return read_snapshot(watched, name);
}

std::span<const std::uint32_t> MemorySnapshot::stack(StackId id) const& {
  if (id == kNoStack || id + 1 >= stack_offsets.size()) return {};
  return std::span<const std::uint32_t>(stack_frames)
      .subspan(stack_offsets[id], stack_offsets[id + 1] - stack_offsets[id]);
}

std::size_t MemorySnapshot::bytes() const {
  std::size_t total = strings.bytes() + frames.capacity() * sizeof(SnapshotFrame) +
                      stack_offsets.capacity() * 4 + stack_frames.capacity() * 4 +
                      blocks.capacity() * sizeof(SnapshotBlock) +
                      entries.size() * sizeof(SnapshotEntry) + ooms.capacity() * sizeof(OomRecord);
  for (const SnapshotSegment& s : segments) total += sizeof(s) + s.blocks.capacity() * 4;
  return total;
}

std::string_view to_string(SnapshotAction action) {
  switch (action) {
    case SnapshotAction::kAlloc:
      return "alloc";
    case SnapshotAction::kFreeRequested:
      return "free_requested";
    case SnapshotAction::kFreeCompleted:
      return "free_completed";
    case SnapshotAction::kSegmentAlloc:
      return "segment_alloc";
    case SnapshotAction::kSegmentFree:
      return "segment_free";
    case SnapshotAction::kSegmentMap:
      return "segment_map";
    case SnapshotAction::kSegmentUnmap:
      return "segment_unmap";
    case SnapshotAction::kSnapshot:
      return "snapshot";
    case SnapshotAction::kOom:
      return "oom";
    case SnapshotAction::kOther:
      return "other";
  }
  return "other";
}

std::string_view to_string(BlockState state) {
  switch (state) {
    case BlockState::kActiveAllocated:
      return "active_allocated";
    case BlockState::kActivePendingFree:
      return "active_pending_free";
    case BlockState::kInactive:
      return "inactive";
    case BlockState::kOther:
      return "other";
  }
  return "other";
}

}  // namespace stepscope
