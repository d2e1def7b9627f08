#include "stepscope/analysis/module_view.h"

#include <algorithm>
#include <map>
#include <utility>

namespace stepscope {

namespace {

constexpr std::int32_t kNoRow = -1;

struct Accumulator {
  std::vector<ModuleRow> rows;
  std::map<std::pair<std::int32_t, StringId>, std::int32_t> row_by_key;  // (parent row, name)
  std::vector<std::int32_t> row_of_event;                                // module events only
};

std::int32_t row_for(const Trace& trace, const CodeContext& context, Accumulator& acc,
                     EventIndex module_event) {
  const EventIndex parent_event = context.parent_module[module_event];
  const std::int32_t parent = parent_event == kNoEvent ? kNoRow : acc.row_of_event[parent_event];
  const StringId name = trace.events.name[module_event];
  auto [it, inserted] = acc.row_by_key.try_emplace({parent, name}, kNoRow);
  if (inserted) {
    it->second = static_cast<std::int32_t>(acc.rows.size());
    ModuleRow row;
    row.name = std::string(module_name(trace.name_of(module_event)));
    row.parent = parent;
    row.depth = parent == kNoRow ? 0 : acc.rows[parent].depth + 1;
    row.path = parent == kNoRow ? row.name : acc.rows[parent].path + "/" + row.name;
    acc.rows.push_back(std::move(row));
  }
  return it->second;
}

// Depth first from the top modules; siblings by host total, largest first. Rows with no call in
// scope are kept only as the ancestors of rows that have one.
std::vector<ModuleRow> tree_order(std::vector<ModuleRow> rows) {
  std::vector<bool> keep(rows.size(), false);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].calls == 0) continue;
    for (std::int32_t at = static_cast<std::int32_t>(r); at != kNoRow && !keep[at];
         at = rows[at].parent) {
      keep[at] = true;
    }
  }
  std::vector<std::vector<std::int32_t>> children(rows.size() + 1);  // last: the top level
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (!keep[r]) continue;
    const std::int32_t parent = rows[r].parent;
    children[parent == kNoRow ? rows.size() : static_cast<std::size_t>(parent)].push_back(
        static_cast<std::int32_t>(r));
  }
  for (std::vector<std::int32_t>& list : children) {
    std::stable_sort(list.begin(), list.end(), [&rows](std::int32_t a, std::int32_t b) {
      return rows[a].host_total_ns > rows[b].host_total_ns;
    });
  }
  std::vector<ModuleRow> ordered;
  std::vector<std::int32_t> new_index(rows.size(), kNoRow);
  std::vector<std::int32_t> pending(children.back().rbegin(), children.back().rend());
  while (!pending.empty()) {
    const std::int32_t r = pending.back();
    pending.pop_back();
    new_index[r] = static_cast<std::int32_t>(ordered.size());
    ordered.push_back(rows[r]);
    ModuleRow& row = ordered.back();
    row.parent = row.parent == kNoRow ? kNoRow : new_index[row.parent];
    const std::vector<std::int32_t>& kids = children[r];
    pending.insert(pending.end(), kids.rbegin(), kids.rend());
  }
  return ordered;
}

}  // namespace

ModuleViewResult compute_module_view(const Trace& trace, const StepsResult& steps,
                                     const CodeContext& context) {
  ModuleViewResult result;
  if (!context.has_modules) {
    result.not_applicable_reason = std::string(how_to_record_code_context());
    return result;
  }
  result.applicable = true;
  const EventTable& e = trace.events;
  bool from_annotations = false;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()) && !from_annotations; ++i) {
    from_annotations = e.event_class[i] == EventClass::kAnnotation &&
                       context.module[i] == i;  // only module annotations are their own module
  }
  result.source = from_annotations ? "nn.Module annotations (stepscope.torch.profile)"
                                   : "nn.Module frames of the Python tracer (with_stack)";
  const std::vector<const Step*> kept = steps.kept();
  if (!kept.empty()) {
    Interval scope{kept.front()->host_start_ns, kept.front()->host_end_ns};
    for (const Step* step : kept) {
      scope.start = std::min(scope.start, step->host_start_ns);
      scope.end = std::max(scope.end, step->host_end_ns);
    }
    result.scope = scope;
    result.kept_steps = static_cast<std::int64_t>(kept.size());
  }
  auto in_scope = [&](EventIndex i) {
    return !result.scope ||
           (e.start_ns[i] >= result.scope->start && e.start_ns[i] < result.scope->end);
  };

  Accumulator acc;
  acc.row_of_event.assign(e.size(), kNoRow);
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (context.module[i] != i) continue;  // module events are their own innermost module
    const std::int32_t row = row_for(trace, context, acc, i);
    acc.row_of_event[i] = row;
    if (!in_scope(i)) {
      ++result.calls_outside_scope;
      continue;
    }
    ModuleRow& r = acc.rows[row];
    ++r.calls;
    r.host_total_ns += e.dur_ns[i];
    r.host_self_ns += e.dur_ns[i];
    const EventIndex parent = context.parent_module[i];
    if (parent != kNoEvent && in_scope(parent))
      acc.rows[acc.row_of_event[parent]].host_self_ns -= e.dur_ns[i];
  }
  for (const EventIndex i : e.device_activities) {
    EventIndex op = e.owner_op[i];
    if (op == kNoEvent) op = e.launcher[i];
    if (op == kNoEvent) continue;
    const EventIndex innermost = context.module[op];
    if (innermost == kNoEvent || !in_scope(innermost)) continue;
    acc.rows[acc.row_of_event[innermost]].device_self_ns += e.dur_ns[i];
    for (EventIndex m = innermost; m != kNoEvent; m = context.parent_module[m]) {
      if (in_scope(m)) acc.rows[acc.row_of_event[m]].device_total_ns += e.dur_ns[i];
    }
  }
  result.rows = tree_order(std::move(acc.rows));
  return result;
}

}  // namespace stepscope
