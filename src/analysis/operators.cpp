#include "stepscope/analysis/operators.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "analysis/name_test.h"

namespace stepscope {

namespace {

// PyTorch drops these before building its table (profiler_util.py@006bb57b `_filter_name`).
bool is_dropped_name(std::string_view name) {
  static constexpr std::array<std::string_view, 8> kDropped = {
      "[memory]",
      "[OutOfMemory]",
      "profiler::_record_function_enter",
      "profiler::_record_function_enter_new",
      "profiler::_record_function_exit",
      "aten::is_leaf",
      "aten::output_nr",
      "aten::_version"};
  return std::find(kDropped.begin(), kDropped.end(), name) != kDropped.end();
}

// The op tree of the table. The linker gives every parent a smaller index than its children
// (it links each event to an earlier, still open one), so one forward pass sees parents first
// and one backward pass sees children first.
//
// Memory: a large trace has millions of nodes, so per-event state is one flags byte and one
// slot number; the times (NodeTimes) exist only for the nodes that can have any, those with
// children or with device activities of their own.
class OpTree {
 public:
  static constexpr std::int32_t kNoSlot = -1;

  explicit OpTree(const Trace& trace) : trace_(trace), flags_(trace.events.size(), 0) {}

  [[nodiscard]] bool kept(EventIndex i) const { return (flags_[i] & kKept) != 0; }
  // A node folded into its parent (its only child, same name): it has no row of its own.
  [[nodiscard]] bool merged(EventIndex i) const { return (flags_[i] & kMerged) != 0; }
  // Nearest kept ancestor.
  [[nodiscard]] EventIndex up(EventIndex i) const { return kept_from(trace_.events.parent[i]); }
  // `from` if kept, else its nearest kept ancestor.
  [[nodiscard]] EventIndex kept_from(EventIndex from) const {
    while (from != kNoEvent && !kept(from)) from = trace_.events.parent[from];
    return from;
  }
  // The times of the node an event counts as, or kNoSlot when all of them are zero.
  [[nodiscard]] std::int32_t slot(EventIndex i) const { return slot_[i]; }
  [[nodiscard]] std::int32_t slots() const { return slot_count_; }
  [[nodiscard]] std::int64_t merged_count() const { return merged_count_; }

  void build() {
    keep_nodes();
    mark_device_owners();
    merge_and_assign_slots();
  }

 private:
  // Flags bits: a saturating child count (0, 1, 2 = more) in the low two bits; only "exactly
  // one child" matters for merging, and "any child" for needing times.
  static constexpr std::uint8_t kChildren = 0x03;
  static constexpr std::uint8_t kKept = 0x04;  // a node: host nested event, name not dropped
  static constexpr std::uint8_t kMerged = 0x08;
  static constexpr std::uint8_t kOwnsActivity = 0x10;

  [[nodiscard]] std::uint8_t children(EventIndex i) const { return flags_[i] & kChildren; }

  void keep_nodes() {
    const EventTable& e = trace_.events;
    NameTest<is_dropped_name> dropped(trace_);
    for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
      if (!is_nested_host_event(e.event_class[i]) || dropped(i)) continue;
      flags_[i] |= kKept;
      const EventIndex parent = up(i);
      if (parent != kNoEvent && children(parent) < 2) ++flags_[parent];
    }
  }

  void mark_device_owners() {
    const EventTable& e = trace_.events;
    for (const EventIndex i : e.device_activities) {
      const EventIndex owner = kept_from(e.owner_op[i]);
      if (owner != kNoEvent) flags_[owner] |= kOwnsActivity;
    }
  }

  // PyTorch's `_remove_dup_nodes`: a parent whose only child has its name absorbs that child
  // (children and kernels move up), repeatedly, so a chain of such wrappers becomes one node.
  // PyTorch replaces the parent's own kernels by the child's; stepscope keeps both. A node that
  // is merged into has a child, so it has a slot, which the merged node shares.
  void merge_and_assign_slots() {
    const EventTable& e = trace_.events;
    slot_.assign(e.size(), kNoSlot);
    for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
      if (!kept(i)) continue;
      const EventIndex parent = up(i);
      if (parent != kNoEvent && children(parent) == 1 && e.name[parent] == e.name[i]) {
        flags_[i] |= kMerged;
        slot_[i] = slot_[parent];
        ++merged_count_;
      } else if (children(i) > 0 || (flags_[i] & kOwnsActivity) != 0) {
        slot_[i] = slot_count_++;
      }
    }
  }

  const Trace& trace_;
  std::vector<std::uint8_t> flags_;
  std::vector<std::int32_t> slot_;
  std::int32_t slot_count_ = 0;
  std::int64_t merged_count_ = 0;
};

// What a node adds to its row. Kept only for nodes with a slot.
struct NodeTimes {
  std::int64_t children_cpu = 0;
  std::int64_t self_device = 0;
  std::int64_t total_device = 0;
  std::int32_t activities = 0;  // fewer than the events, which EventIndex counts
  EventIndex node = kNoEvent;   // the node that has the row
};

// One NodeTimes per slot, each knowing its node.
std::vector<NodeTimes> times_of_slots(const Trace& trace, const OpTree& tree) {
  std::vector<NodeTimes> times(static_cast<std::size_t>(tree.slots()));
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    if (tree.kept(i) && !tree.merged(i) && tree.slot(i) != OpTree::kNoSlot) {
      times[tree.slot(i)].node = i;
    }
  }
  return times;
}

struct Scope {
  std::optional<Interval> range;
  [[nodiscard]] bool contains(std::int64_t t) const {
    return !range || (t >= range->start && t < range->end);
  }
};

Scope scope_of(const StepsResult& steps) {
  const std::vector<const Step*> kept = steps.kept();
  if (kept.empty() || !steps.window) return {};
  return {Interval{std::min(steps.window->start, kept.front()->host_start_ns), steps.window->end}};
}

std::int64_t average(std::int64_t sum, std::int64_t count) {
  return count == 0 ? 0 : (sum + count / 2) / count;
}

double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// Everything one pass over the device activities produces.
class DeviceAttribution {
 public:
  DeviceAttribution(const Trace& trace, const OpTree& tree, const Scope& scope,
                    std::vector<NodeTimes>& times)
      : trace_(trace),
        tree_(tree),
        scope_(scope),
        times_(times),
        row_of_name_(trace.strings.size(), -1) {}

  void run(OperatorsResult& result) {
    const EventTable& e = trace_.events;
    for (const EventIndex i : e.device_activities) {
      add(i, result);
    }
    finish_rows(result);
  }

 private:
  void add(EventIndex i, OperatorsResult& result) {
    const EventTable& e = trace_.events;
    const EventIndex owner = tree_.kept_from(e.owner_op[i]);
    if (owner != kNoEvent) {
      NodeTimes& times = times_[tree_.slot(owner)];  // an owner has a slot
      times.self_device += e.dur_ns[i];
      ++times.activities;
      if (!scope_.contains(e.start_ns[times.node])) return;
      count_path(i, result);
    } else {
      if (!scope_.contains(e.start_ns[i])) return;
      result.unattributed_device_ns += e.dur_ns[i];
      ++result.unattributed_activities;
    }
    add_to_row(i, owner == kNoEvent);
  }

  // External id matching the op's own External id (current traces), or the launch call's
  // enclosing op (older traces, whose External id is a correlation id;
  // docs/metrics/12-operator-table-like-torch-profiler-key-a.md §12).
  void count_path(EventIndex i, OperatorsResult& result) const {
    const EventTable& e = trace_.events;
    const EventIndex owner = e.owner_op[i];
    const bool by_id = !trace_.stats.external_id_is_correlation && e.external_id[i] >= 0 &&
                       e.external_id[owner] == e.external_id[i];
    (by_id ? result.attributed_by_external_id : result.attributed_through_launch_call) += 1;
  }

  void add_to_row(EventIndex i, bool unattributed) {
    const EventTable& e = trace_.events;
    std::int32_t& index = row_of_name_[e.name[i]];
    if (index < 0) {
      index = static_cast<std::int32_t>(rows_.size());
      DeviceActivityRow row;
      row.name = std::string(trace_.name_of(i));
      row.event_class = e.event_class[i];
      row.min_device_ns = e.dur_ns[i];
      row.max_device_ns = e.dur_ns[i];
      rows_.push_back(std::move(row));
    }
    DeviceActivityRow& row = rows_[static_cast<std::size_t>(index)];
    ++row.count;
    row.device_ns += e.dur_ns[i];
    row.min_device_ns = std::min(row.min_device_ns, e.dur_ns[i]);
    row.max_device_ns = std::max(row.max_device_ns, e.dur_ns[i]);
    row.unattributed_count += unattributed ? 1 : 0;
  }

  void finish_rows(OperatorsResult& result) {
    std::int64_t total = 0;
    for (const DeviceActivityRow& row : rows_) total += row.device_ns;
    for (DeviceActivityRow& row : rows_) {
      row.avg_device_ns = average(row.device_ns, row.count);
      row.device_share = share(row.device_ns, total);
    }
    std::sort(rows_.begin(), rows_.end(),
              [](const DeviceActivityRow& a, const DeviceActivityRow& b) {
                return a.device_ns != b.device_ns ? a.device_ns > b.device_ns : a.name < b.name;
              });
    result.device_rows = std::move(rows_);
  }

  const Trace& trace_;
  const OpTree& tree_;
  const Scope& scope_;
  std::vector<NodeTimes>& times_;
  std::vector<std::int32_t> row_of_name_;  // by name id; -1: no row yet
  std::vector<DeviceActivityRow> rows_;
};

// Children come after parents: walking backwards, totals flow up to each merged node.
// A parent has a child, so it has a slot; a node without one adds only its duration.
void roll_up(const Trace& trace, const OpTree& tree, std::vector<NodeTimes>& times) {
  const EventTable& e = trace.events;
  for (EventIndex i = static_cast<EventIndex>(e.size()) - 1; i >= 0; --i) {
    if (!tree.kept(i) || tree.merged(i)) continue;
    std::int64_t total_device = 0;
    if (const std::int32_t slot = tree.slot(i); slot != OpTree::kNoSlot) {
      times[slot].total_device += times[slot].self_device;
      total_device = times[slot].total_device;
    }
    const EventIndex up = tree.up(i);
    if (up == kNoEvent) continue;
    NodeTimes& parent = times[tree.slot(up)];
    parent.children_cpu += e.dur_ns[i];
    parent.total_device += total_device;
  }
}

struct RowKey {
  StringId name;
  StringId dims;
  StringId types;
  bool operator==(const RowKey&) const = default;
};

struct RowKeyHash {
  std::size_t operator()(const RowKey& k) const {
    const std::uint64_t a = (static_cast<std::uint64_t>(k.name) << 32) ^ k.dims;
    return std::hash<std::uint64_t>{}(a * 0x9E3779B97F4A7C15ULL ^ k.types);
  }
};

class RowBuilder {
 public:
  RowBuilder(const Trace& trace, bool by_shape)
      : trace_(trace), by_shape_(by_shape), row_of_name_(by_shape ? 0 : trace.strings.size(), -1) {}

  void add(EventIndex i, const NodeTimes& times, OperatorsResult& result) {
    const EventTable& e = trace_.events;
    OperatorRow& row = row_for(i);
    const std::int64_t self_cpu = std::max<std::int64_t>(e.dur_ns[i] - times.children_cpu, 0);
    ++row.calls;
    row.total_cpu_ns += e.dur_ns[i];
    row.self_cpu_ns += self_cpu;
    row.self_device_ns += times.self_device;
    row.total_device_ns += times.total_device;
    row.device_activities += times.activities;
    result.self_cpu_total_ns += self_cpu;
    result.attributed_device_ns += times.self_device;
  }

  std::vector<OperatorRow> take() { return std::move(rows_); }

 private:
  OperatorRow& row_for(EventIndex i) {
    const OpInputs* inputs = by_shape_ ? trace_.op_inputs_of(i) : nullptr;
    const RowKey key{trace_.events.name[i], inputs ? inputs->shapes_text : 0,
                     inputs ? inputs->types_text : 0};
    // By name alone (the default), rows are found by name id: ops are most of a trace's events.
    if (!by_shape_) {
      std::int32_t& index = row_of_name_[key.name];
      if (index < 0) index = new_row(key, i);
      return rows_[static_cast<std::size_t>(index)];
    }
    auto [entry, inserted] = row_of_.try_emplace(key, 0);
    if (inserted) entry->second = new_row(key, i);
    return rows_[static_cast<std::size_t>(entry->second)];
  }
  std::int32_t new_row(const RowKey& key, EventIndex i) {
    OperatorRow row;
    row.name = std::string(trace_.strings.view(key.name));
    row.input_dims = std::string(trace_.strings.view(key.dims));
    row.input_types = std::string(trace_.strings.view(key.types));
    row.event_class = trace_.events.event_class[i];
    rows_.push_back(std::move(row));
    return static_cast<std::int32_t>(rows_.size() - 1);
  }

  const Trace& trace_;
  bool by_shape_;
  std::unordered_map<RowKey, std::int32_t, RowKeyHash> row_of_;  // by shape
  std::vector<std::int32_t> row_of_name_;                        // by name id; -1: no row yet
  std::vector<OperatorRow> rows_;
};

OperatorRow unattributed_row(const OperatorsResult& result) {
  OperatorRow row;
  row.name = "[unattributed]";
  row.event_class = EventClass::kKernel;
  row.unattributed = true;
  row.calls = result.unattributed_activities;
  row.self_device_ns = result.unattributed_device_ns;
  row.total_device_ns = result.unattributed_device_ns;
  row.device_activities = result.unattributed_activities;
  return row;
}

void finish_rows(OperatorsResult& result) {
  if (result.unattributed_activities > 0) result.rows.push_back(unattributed_row(result));
  result.device_total_ns = result.attributed_device_ns + result.unattributed_device_ns;
  result.attributed_device_share = share(result.attributed_device_ns, result.device_total_ns);
  for (OperatorRow& row : result.rows) {
    row.avg_self_cpu_ns = average(row.self_cpu_ns, row.calls);
    row.avg_total_cpu_ns = average(row.total_cpu_ns, row.calls);
    row.avg_self_device_ns = average(row.self_device_ns, row.calls);
    row.avg_total_device_ns = average(row.total_device_ns, row.calls);
    row.self_cpu_share = share(row.self_cpu_ns, result.self_cpu_total_ns);
    row.self_device_share = share(row.self_device_ns, result.device_total_ns);
  }
  std::sort(result.rows.begin(), result.rows.end(), [](const OperatorRow& a, const OperatorRow& b) {
    if (a.self_device_ns != b.self_device_ns) return a.self_device_ns > b.self_device_ns;
    if (a.self_cpu_ns != b.self_cpu_ns) return a.self_cpu_ns > b.self_cpu_ns;
    return a.name < b.name;
  });
}

}  // namespace

OperatorsResult compute_operators(const Trace& trace, const StepsResult& steps,
                                  const AnalysisOptions& options) {
  OperatorsResult result;
  result.grouped_by_input_shape = options.group_by_input_shape;
  const Scope scope = scope_of(steps);
  result.scope = scope.range;
  OpTree tree(trace);
  tree.build();
  result.merged_single_children = tree.merged_count();
  std::vector<NodeTimes> times = times_of_slots(trace, tree);
  DeviceAttribution(trace, tree, scope, times).run(result);
  roll_up(trace, tree, times);
  const NodeTimes no_times;
  RowBuilder rows(trace, options.group_by_input_shape);
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    if (!tree.kept(i) || tree.merged(i)) continue;
    if (!scope.contains(trace.events.start_ns[i])) {
      ++result.ops_outside_scope;
      continue;
    }
    const std::int32_t slot = tree.slot(i);
    rows.add(i, slot == OpTree::kNoSlot ? no_times : times[slot], result);
  }
  result.rows = rows.take();
  finish_rows(result);
  result.applicable = !result.rows.empty();
  if (!result.applicable) result.not_applicable_reason = "no host ops";
  return result;
}

}  // namespace stepscope
