// The figures of a CUDA memory snapshot (snapshot_report.h): the document of
// `stepscope memory --json` after its schema header. Frames and stacks are interned in the
// snapshot, which the writer passes in the Context.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/figures/fields.h"
#include "stepscope/snapshot.h"
#include "stepscope/snapshot_report.h"

namespace stepscope::figures {

// A count or size of T, null when absent (kAbsent).
template <typename T, std::int64_t T::*Member>
std::optional<std::int64_t> unless_absent(const T& object) {
  if (object.*Member == kAbsent) return std::nullopt;
  return object.*Member;
}

struct StackFrame {
  std::string_view name;
  std::string_view filename;
  std::int64_t line = 0;
};

template <>
struct Fields<StackFrame> {
  static constexpr std::string_view kName = "StackFrame";
  static std::span<const Field> list() {
    using T = StackFrame;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::name>("name", Unit::kNone, "the function"),
        D::field<&T::filename>("filename", Unit::kNone, "its file"),
        D::field<&T::line>("line", Unit::kNone, "the line"),
    };
    return k;
  }
};

// A stack's frames, innermost first, at most 16.
inline std::vector<StackFrame> stack_frames(const Context& context, StackId stack) {
  constexpr std::size_t kDepth = 16;
  const MemorySnapshot& s = *context.snapshot;
  std::vector<StackFrame> frames;
  for (std::uint32_t frame : s.stack(stack)) {
    if (frames.size() == kDepth) break;
    const SnapshotFrame& f = s.frames[frame];
    frames.push_back({s.strings.view(f.name), s.strings.view(f.filename), f.line});
  }
  return frames;
}

inline std::string site_name(const SiteBytes& row, const Context& context) {
  return describe_frame(*context.snapshot, row.site);
}
inline std::vector<StackFrame> site_stack(const SiteBytes& row, const Context& context) {
  return stack_frames(context, row.example_stack);
}

template <>
struct Fields<SiteBytes> {
  static constexpr std::string_view kName = "SnapshotSite";
  static std::span<const Field> list() {
    using T = SiteBytes;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&site_name>("site", Unit::kNone,
                             "`name (file:line)` of the allocation site: the innermost frame in a "
                             "`.py` file outside torch, site-packages and the standard library"),
        D::field<&T::bytes>("bytes", Unit::kBytes, "bytes allocated there"),
        D::field<&T::count>("allocations", Unit::kCount, "allocations"),
        D::field<&site_stack>("example_stack", Unit::kNone, "one of their stacks"),
    };
    return k;
  }
};

inline std::string block_site(const LiveBlockRow& row, const Context& context) {
  return describe_frame(*context.snapshot, row.site);
}
inline std::vector<StackFrame> block_stack(const LiveBlockRow& row, const Context& context) {
  return stack_frames(context, row.stack);
}

template <>
struct Fields<LiveBlockRow> {
  static constexpr std::string_view kName = "SnapshotBlock";
  static std::span<const Field> list() {
    using T = LiveBlockRow;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::address>("address", Unit::kNone, "device address"),
        D::field<&T::size>("bytes", Unit::kBytes, "the block"),
        D::field<&unless_absent<T, &T::requested_size>>("requested_bytes", Unit::kBytes,
                                                        "what was asked for"),
        D::field<&block_site>("site", Unit::kNone, "the allocation site"),
        D::field<&block_stack>("stack", Unit::kNone, "its stack"),
    };
    return k;
  }
};

inline std::string_view expandable_segments_fix(const FragmentationCost&) {
  return "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True";
}

template <>
struct Fields<FragmentationCost> {
  static constexpr std::string_view kName = "FragmentationCost";
  static std::span<const Field> list() {
    using T = FragmentationCost;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::unused_bytes>("unused_bytes", Unit::kBytes, "reserved in inactive blocks"),
        D::field<&T::segments_with_unused>("segments_with_unused", Unit::kCount,
                                           "segments with free blocks"),
        D::field<&T::largest_free_block>("largest_free_block_bytes", Unit::kBytes,
                                         "the largest free block"),
        D::field<&T::returnable_bytes>("returnable_bytes", Unit::kBytes,
                                       "estimated: the free bytes outside the largest free block"),
        D::field<&T::returnable_share>("returnable_share", Unit::kShare, "of the reservation"),
        D::field<&expandable_segments_fix>("fix", Unit::kNone, "the setting to try"),
    };
    return k;
  }
};

// Counts per block state, one key per state.
struct BlocksByState {
  const SnapshotDevice& device;
};

template <BlockState S>
std::int64_t blocks_in(const BlocksByState& b) {
  return b.device.blocks_by_state[static_cast<std::size_t>(S)];
}

template <>
struct Fields<BlocksByState> {
  static constexpr std::string_view kName = "BlocksByState";
  static std::span<const Field> list() {
    using D = Describe<BlocksByState>;
    using enum BlockState;
    static const Field k[] = {
        D::field<&blocks_in<kActiveAllocated>>(std::string(to_string(kActiveAllocated)),
                                               Unit::kCount, "blocks in use"),
        D::field<&blocks_in<kActivePendingFree>>(std::string(to_string(kActivePendingFree)),
                                                 Unit::kCount, "freed, waiting for a stream"),
        D::field<&blocks_in<kInactive>>(std::string(to_string(kInactive)), Unit::kCount,
                                        "free blocks"),
        D::field<&blocks_in<kOther>>(std::string(to_string(kOther)), Unit::kCount, "other"),
    };
    return k;
  }
};

// The allocator's state when the snapshot was taken.
struct SnapshotState {
  const SnapshotDevice& device;
};

template <auto Member>
const auto& state_part(const SnapshotState& s) {
  return s.device.*Member;
}
template <std::int64_t SnapshotDevice::*Member>
std::optional<std::int64_t> state_unless_absent(const SnapshotState& s) {
  return unless_absent<SnapshotDevice, Member>(s.device);
}
inline BlocksByState state_blocks_by_state(const SnapshotState& s) { return {s.device}; }

template <>
struct Fields<SnapshotState> {
  static constexpr std::string_view kName = "SnapshotState";
  static std::span<const Field> list() {
    using T = SnapshotDevice;
    using D = Describe<SnapshotState>;
    static const Field k[] = {
        D::field<&state_part<&T::segments>>("segments", Unit::kCount, "segments"),
        D::field<&state_part<&T::large_segments>>("large_segments", Unit::kCount,
                                                  "of the large pool"),
        D::field<&state_part<&T::expandable_segments>>("expandable_segments", Unit::kCount,
                                                       "expandable ones"),
        D::field<&state_part<&T::reserved_bytes>>("reserved_bytes", Unit::kBytes,
                                                  "sum of segment `total_size`"),
        D::field<&state_part<&T::allocated_bytes>>("allocated_bytes", Unit::kBytes,
                                                   "sum of `allocated_size`"),
        D::field<&state_part<&T::active_bytes>>("active_bytes", Unit::kBytes, "active"),
        D::field<&state_unless_absent<&T::requested_bytes>>("requested_bytes", Unit::kBytes,
                                                            "null when the snapshot has none"),
        D::field<&state_part<&T::blocks>>("blocks", Unit::kCount, "blocks"),
        D::field<&state_blocks_by_state>("blocks_by_state", Unit::kNone, "blocks per state"),
        D::field<&state_part<&T::inactive_bytes>>("inactive_bytes", Unit::kBytes, "free"),
        D::field<&state_part<&T::largest_inactive_block>>("largest_inactive_block_bytes",
                                                          Unit::kBytes, "the largest free block"),
        D::field<&state_part<&T::fragmentation>>("fragmentation", Unit::kShare,
                                                 "1 - allocated / reserved"),
        D::field<&state_part<&T::inactive_fragmentation>>(
            "inactive_fragmentation", Unit::kShare,
            "1 - largest free block / free bytes: free memory in pieces too small for a large "
            "request"),
        D::field<&state_part<&T::largest_live_blocks>>("largest_live_blocks", Unit::kNone,
                                                       "largest first"),
        D::field<&state_part<&T::live_by_site>>("live_by_site", Unit::kNone, "largest first"),
        D::field<&state_part<&T::fragmentation_cost>>(
            "fragmentation_cost", Unit::kNone,
            "null unless the returnable bytes reach the documented thresholds"),
    };
    return k;
  }
};

inline std::optional<std::int64_t> oom_device_free(const OomReport& o) {
  return unless_absent<OomReport, &OomReport::device_free>(o);
}
inline std::optional<std::int64_t> oom_time(const OomReport& o) {
  return unless_absent<OomReport, &OomReport::time_us>(o);
}
inline std::vector<StackFrame> oom_stack(const OomReport& o, const Context& context) {
  return stack_frames(context, o.stack);
}

template <>
struct Fields<OomReport> {
  static constexpr std::string_view kName = "OomReport";
  static std::span<const Field> list() {
    using T = OomReport;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::requested_bytes>("requested_bytes", Unit::kBytes,
                                      "the allocation that failed"),
        D::field<&oom_device_free>("device_free_bytes", Unit::kBytes,
                                   "what the driver still had free"),
        D::field<&oom_time>("time_us", Unit::kNone, "its `time_us`, as recorded"),
        D::field<&oom_stack>("stack", Unit::kNone, "the stack that asked for it"),
        D::field<&T::live_bytes>("live_bytes", Unit::kBytes, "allocated when it failed"),
        D::field<&T::live_by_site>("live_by_site", Unit::kNone, "what was live, largest first"),
    };
    return k;
  }
};

// The allocation trace (`_record_memory_history`).
struct SnapshotTrace {
  const SnapshotDevice& device;
};

template <auto Member>
const auto& trace_part(const SnapshotTrace& t) {
  return t.device.*Member;
}
template <std::int64_t SnapshotDevice::*Member>
std::optional<std::int64_t> trace_unless_absent(const SnapshotTrace& t) {
  return unless_absent<SnapshotDevice, Member>(t.device);
}

// Entries per action, one key per action that occurs.
struct EntriesByAction {
  const SnapshotDevice& device;
};

template <SnapshotAction A>
std::int64_t entries_of(const EntriesByAction& e) {
  return e.device.entries_by_action[static_cast<std::size_t>(A)];
}
template <SnapshotAction A>
bool any_entries_of(const EntriesByAction& e) {
  return entries_of<A>(e) > 0;
}
template <SnapshotAction A>
Field action_field() {
  return Describe<EntriesByAction>::field<&entries_of<A>>(std::string(to_string(A)), Unit::kCount,
                                                          "entries of this action")
      .template when<&any_entries_of<A>>();
}

template <>
struct Fields<EntriesByAction> {
  static constexpr std::string_view kName = "EntriesByAction";
  static std::span<const Field> list() {
    using enum SnapshotAction;
    static const Field k[] = {
        action_field<kAlloc>(),         action_field<kFreeRequested>(),
        action_field<kFreeCompleted>(), action_field<kSegmentAlloc>(),
        action_field<kSegmentFree>(),   action_field<kSegmentMap>(),
        action_field<kSegmentUnmap>(),  action_field<kSnapshot>(),
        action_field<kOom>(),           action_field<kOther>(),
    };
    return k;
  }
};

inline EntriesByAction trace_entries_by_action(const SnapshotTrace& t) { return {t.device}; }
inline std::string_view trace_free_action(const SnapshotTrace& t) {
  return t.device.frees_from_completed ? "free_completed" : "free_requested";
}

template <>
struct Fields<SnapshotTrace> {
  static constexpr std::string_view kName = "SnapshotTrace";
  static std::span<const Field> list() {
    using T = SnapshotDevice;
    using D = Describe<SnapshotTrace>;
    static const Field k[] = {
        D::field<&trace_part<&T::entries>>("entries", Unit::kCount, "trace entries"),
        D::field<&trace_entries_by_action>("entries_by_action", Unit::kNone,
                                           "per action that occurs"),
        D::field<&trace_unless_absent<&T::first_time_us>>("first_time_us", Unit::kNone,
                                                          "as recorded; null without `time_us`"),
        D::field<&trace_unless_absent<&T::last_time_us>>("last_time_us", Unit::kNone,
                                                         "as recorded"),
        D::field<&trace_free_action>("free_action", Unit::kNone, "which action ends an allocation"),
        D::field<&trace_part<&T::allocated_before_trace>>(
            "allocated_before_trace_bytes", Unit::kBytes, "freed in the trace, allocated before"),
        D::field<&trace_part<&T::peak_bytes>>("peak_allocated_bytes", Unit::kBytes,
                                              "counting those"),
        D::field<&trace_part<&T::peak_entry>>("peak_entry", Unit::kNone,
                                              "index of the entry that reached it; -1: none"),
        D::field<&trace_unless_absent<&T::peak_time_us>>("peak_time_us", Unit::kNone,
                                                         "as recorded"),
        D::field<&trace_part<&T::peak_by_site>>("live_at_peak_by_site", Unit::kNone,
                                                "allocations of the trace live at the peak"),
        D::field<&trace_part<&T::never_freed>>("never_freed", Unit::kCount,
                                               "allocated in the trace and not freed in it"),
        D::field<&trace_part<&T::never_freed_bytes>>("never_freed_bytes", Unit::kBytes,
                                                     "their bytes"),
        D::field<&trace_part<&T::never_freed_by_site>>("never_freed_by_site", Unit::kNone,
                                                       "largest first"),
        D::field<&trace_part<&T::ooms>>("ooms", Unit::kCount, "`oom` actions"),
        D::field<&trace_unless_absent<&T::last_oom_device_free>>(
            "last_oom_device_free_bytes", Unit::kBytes, "free on the device at the last one"),
        D::field<&trace_part<&T::last_oom>>("last_oom", Unit::kNone,
                                            "the last allocation that failed; null without one"),
    };
    return k;
  }
};

inline std::int64_t device_index(const SnapshotDevice& d) { return d.device; }
inline SnapshotState device_state(const SnapshotDevice& d) { return {d}; }
inline SnapshotTrace device_trace(const SnapshotDevice& d) { return {d}; }

template <>
struct Fields<SnapshotDevice> {
  static constexpr std::string_view kName = "SnapshotDevice";
  static std::span<const Field> list() {
    using D = Describe<SnapshotDevice>;
    static const Field k[] = {
        D::field<&device_index>("device", Unit::kNone, "the device index"),
        D::field<&device_state>("state", Unit::kNone, "the allocator when the snapshot was taken"),
        D::field<&device_trace>("trace", Unit::kNone, "from the allocation trace"),
    };
    return k;
  }
};

// The document's figures, after its schema header.
struct SnapshotDocument {
  const SnapshotReport& report;
};

inline std::string_view snapshot_file(const SnapshotDocument& d) {
  return d.report.snapshot->source_path;
}
inline std::uint64_t snapshot_input_bytes(const SnapshotDocument& d) {
  return d.report.snapshot->input_bytes;
}
inline std::uint64_t snapshot_unique_frames(const SnapshotDocument& d) {
  return d.report.snapshot->frames.size();
}
inline std::uint64_t snapshot_unique_stacks(const SnapshotDocument& d) {
  return d.report.snapshot->stack_offsets.size() - 1;
}
inline std::int64_t snapshot_device_traces(const SnapshotDocument& d) {
  return d.report.snapshot->device_trace_count;
}

// Wall times of the run.
struct SnapshotTiming {
  double load_seconds = 0;
  double analysis_seconds = 0;
};

template <>
struct Fields<SnapshotTiming> {
  static constexpr std::string_view kName = "SnapshotTiming";
  static std::span<const Field> list() {
    using T = SnapshotTiming;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::load_seconds>("load_seconds", Unit::kNone, "loading, in seconds"),
        D::field<&T::analysis_seconds>("analysis_seconds", Unit::kNone, "the analysis, in seconds"),
    };
    return k;
  }
};

inline SnapshotTiming snapshot_timing(const SnapshotDocument& d) {
  return {d.report.load_seconds, d.report.analysis_seconds};
}
inline const std::vector<SnapshotDevice>& snapshot_devices(const SnapshotDocument& d) {
  return d.report.devices;
}

template <>
struct Fields<SnapshotDocument> {
  static constexpr std::string_view kName = "MemorySnapshot";
  static std::span<const Field> list() {
    using D = Describe<SnapshotDocument>;
    static const Field k[] = {
        D::field<&snapshot_file>("file", Unit::kNone, "the snapshot read"),
        D::field<&snapshot_input_bytes>("input_bytes", Unit::kBytes,
                                        "of the file, compressed when it is gzipped"),
        D::field<&snapshot_unique_frames>("unique_frames", Unit::kCount,
                                          "frames after deduplication"),
        D::field<&snapshot_unique_stacks>("unique_stacks", Unit::kCount,
                                          "stacks after deduplication"),
        D::field<&snapshot_device_traces>("device_traces", Unit::kCount,
                                          "per-device trace lists in the snapshot"),
        D::field<&snapshot_timing>("timing", Unit::kNone, "wall times"),
        D::field<&snapshot_devices>("devices", Unit::kNone, "one per device"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
