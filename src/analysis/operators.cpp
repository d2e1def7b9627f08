#include "stepscope/analysis/operators.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

namespace stepscope {

namespace {

// PyTorch drops these before building its table (profiler_util.py `_filter_name`).
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

struct Tree {
  std::vector<EventIndex> up;  // nearest kept ancestor
  std::vector<EventIndex>
      target;              // the node an event counts as (itself, or the parent it merged into)
  std::vector<bool> kept;  // a node of the table (host nested, not dropped)
  std::int64_t merged = 0;
};

Tree build_tree(const Trace& trace) {
  const EventTable& e = trace.events;
  const auto n = static_cast<EventIndex>(e.size());
  Tree tree;
  tree.up.assign(e.size(), kNoEvent);
  tree.target.assign(e.size(), kNoEvent);
  tree.kept.assign(e.size(), false);
  std::vector<std::int32_t> children(e.size(), 0);
  for (EventIndex i = 0; i < n; ++i) {
    if (!is_nested_host_event(e.event_class[i]) || is_dropped_name(trace.name_of(i))) continue;
    tree.kept[i] = true;
    EventIndex up = e.parent[i];
    while (up != kNoEvent && !tree.kept[up]) up = e.parent[up];
    tree.up[i] = up;
    if (up != kNoEvent) ++children[up];
  }
  // Parents precede children in the sorted order, so a parent's target is known first.
  for (EventIndex i = 0; i < n; ++i) {
    if (!tree.kept[i]) continue;
    const EventIndex up = tree.up[i];
    const bool merge = up != kNoEvent && children[up] == 1 && e.name[up] == e.name[i] &&
                       e.event_class[i] != EventClass::kRuntime &&
                       e.event_class[i] != EventClass::kDriver;
    tree.target[i] = merge ? tree.target[up] : i;
    tree.merged += merge ? 1 : 0;
  }
  return tree;
}

EventIndex node_of_owner(const Trace& trace, const Tree& tree, EventIndex owner) {
  while (owner != kNoEvent && !tree.kept[owner]) owner = trace.events.parent[owner];
  return owner == kNoEvent ? kNoEvent : tree.target[owner];
}

struct NodeTimes {
  std::int64_t children_cpu = 0;
  std::int64_t self_device = 0;
  std::int64_t total_device = 0;
  std::int64_t activities = 0;
};

}  // namespace

OperatorTable compute_operators(const Trace& trace, const StepsResult& steps,
                                const AnalysisOptions& options) {
  OperatorTable table;
  table.grouped_by_input_shape = options.group_by_input_shape;
  const EventTable& e = trace.events;
  const auto n = static_cast<EventIndex>(e.size());
  const bool windowed = !steps.kept().empty() && steps.window.has_value();
  auto in_scope = [&](std::int64_t t) {
    return !windowed || (t >= steps.window->start && t < steps.window->end);
  };
  const Tree tree = build_tree(trace);
  table.merged_single_children = tree.merged;
  std::vector<NodeTimes> times(e.size());
  for (EventIndex i = 0; i < n; ++i) {
    if (!is_device_activity(e.event_class[i])) continue;
    const EventIndex node = node_of_owner(trace, tree, e.owner_op[i]);
    if (node == kNoEvent) {
      if (in_scope(e.start_ns[i])) {
        table.unattributed_device_ns += e.dur_ns[i];
        ++table.unattributed_activities;
      }
      continue;
    }
    times[node].self_device += e.dur_ns[i];
    ++times[node].activities;
  }
  // Children come after parents: walk backwards so totals flow up.
  for (EventIndex i = n - 1; i >= 0; --i) {
    if (!tree.kept[i] || tree.target[i] != i) continue;
    times[i].total_device += times[i].self_device;
    const EventIndex up = tree.up[i] == kNoEvent ? kNoEvent : tree.target[tree.up[i]];
    if (up == kNoEvent) continue;
    times[up].children_cpu += e.dur_ns[i];
    times[up].total_device += times[i].total_device;
  }
  std::unordered_map<std::string, std::size_t> row_of;
  for (EventIndex i = 0; i < n; ++i) {
    if (!tree.kept[i] || tree.target[i] != i || !in_scope(e.start_ns[i])) continue;
    std::string key(trace.name_of(i));
    const EventArgs* args = trace.args_of(i);
    std::string dims;
    std::string types;
    if (options.group_by_input_shape && args != nullptr) {
      dims = std::string(trace.strings.view(args->input_dims));
      types = std::string(trace.strings.view(args->input_types));
      key += '\x1f' + dims + '\x1f' + types;
    }
    auto [entry, inserted] = row_of.try_emplace(key, table.rows.size());
    if (inserted) {
      OperatorRow row;
      row.name = std::string(trace.name_of(i));
      row.input_dims = std::move(dims);
      row.input_types = std::move(types);
      row.event_class = e.event_class[i];
      table.rows.push_back(std::move(row));
    }
    OperatorRow& row = table.rows[entry->second];
    const std::int64_t self_cpu = std::max<std::int64_t>(e.dur_ns[i] - times[i].children_cpu, 0);
    ++row.calls;
    row.total_cpu_ns += e.dur_ns[i];
    row.self_cpu_ns += self_cpu;
    row.self_device_ns += times[i].self_device;
    row.total_device_ns += times[i].total_device;
    row.device_activities += times[i].activities;
    table.self_cpu_total_ns += self_cpu;
    table.attributed_device_ns += times[i].self_device;
  }
  for (OperatorRow& row : table.rows) {
    if (table.self_cpu_total_ns > 0) {
      row.self_cpu_share =
          static_cast<double>(row.self_cpu_ns) / static_cast<double>(table.self_cpu_total_ns);
    }
    if (table.attributed_device_ns > 0) {
      row.self_device_share =
          static_cast<double>(row.self_device_ns) / static_cast<double>(table.attributed_device_ns);
    }
  }
  std::sort(table.rows.begin(), table.rows.end(), [](const OperatorRow& a, const OperatorRow& b) {
    if (a.self_device_ns != b.self_device_ns) return a.self_device_ns > b.self_device_ns;
    if (a.self_cpu_ns != b.self_cpu_ns) return a.self_cpu_ns > b.self_cpu_ns;
    return a.name < b.name;
  });
  const std::int64_t device_total = table.attributed_device_ns + table.unattributed_device_ns;
  if (device_total > 0) {
    table.attributed_device_share =
        static_cast<double>(table.attributed_device_ns) / static_cast<double>(device_total);
  }
  table.applicable = !table.rows.empty();
  if (!table.applicable) table.not_applicable_reason = "no host ops";
  return table;
}

}  // namespace stepscope
