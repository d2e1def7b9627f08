#include "trace/linker.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "concurrency/parallel_for.h"
#include "trace/flat_id_map.h"

namespace stepscope {

namespace {

// Per thread, an event's parent is the innermost earlier event that contains it; a partial
// overlap creates no relation (docs/metrics/12-operator-table-like-torch-profiler-key-a.md §12).
// Events arrive sorted (start asc, longer first).
void link_nesting(Trace& trace) {
  EventTable& e = trace.events;
  e.parent.assign(e.size(), kNoEvent);
  std::vector<std::vector<EventIndex>> open(trace.threads.size());
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (!is_nested_host_event(e.event_class[i])) continue;
    std::vector<EventIndex>& stack = open[e.thread[i]];
    const std::int64_t end = e.end_ns(i);
    while (!stack.empty() && e.end_ns(stack.back()) < end) stack.pop_back();
    // The top now ends at or after this event and started no later: it contains it.
    if (!stack.empty()) e.parent[i] = stack.back();
    stack.push_back(i);
  }
}

// The `ids` of `list`'s events `kLookAhead` places after `k`, for FlatIdMap::prefetch; -1 past
// the end.
std::int64_t id_ahead(const Column<std::int64_t>& ids, const std::vector<EventIndex>& list,
                      std::size_t k) {
  const std::size_t ahead = k + FlatIdMap::kLookAhead;
  return ahead < list.size() ? ids[list[ahead]] : -1;
}

// The launch calls and the device activities (and GPU syncs) that carry a correlation id, in
// event order, and the range of the calls' ids.
struct LaunchSides {
  std::vector<EventIndex> calls;
  std::vector<EventIndex> linked;
  IdRange range;
};

LaunchSides launch_sides(const EventTable& e) {
  LaunchSides sides;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (e.correlation[i] < 0) continue;
    const EventClass c = e.event_class[i];
    if (is_launch_call(c)) {
      sides.calls.push_back(i);
      sides.range.add(e.correlation[i]);
    } else if (is_device_activity(c) || c == EventClass::kGpuSync) {
      sides.linked.push_back(i);
    }
  }
  return sides;
}

// The events of `all` whose correlation id lies in [low, high], and the range of those ids.
std::vector<EventIndex> with_ids_in(const EventTable& e, const std::vector<EventIndex>& all,
                                    std::int64_t low, std::int64_t high, IdRange* range) {
  std::vector<EventIndex> part;
  for (const EventIndex i : all) {
    const std::int64_t id = e.correlation[i];
    if (id < low || id > high) continue;
    part.push_back(i);
    if (range != nullptr) range->add(id);
  }
  return part;
}

// Launch calls that share a correlation id with an earlier call: how many, and the first's
// byte offset.
struct SharedIds {
  std::uint64_t calls = 0;
  std::uint64_t first_offset = UINT64_MAX;
};

constexpr std::string_view kSharedIdsNote =
    "correlation ids shared by several launch calls; device activities linked to the nearest "
    "earlier launch";

// A correlation id names one launch. When several launch calls share one (a wrapped counter,
// merged traces), linking every activity to the first would pin all its kernels to one step:
// each activity goes to the latest of those calls that started before it. Only ids in [low,
// high] are linked here: a call and its activities share an id, so ranges of ids are linked
// independently (on two threads, each writing only its own activities' `launcher`).
SharedIds link_launches(EventTable& e, const LaunchSides& sides, std::int64_t low,
                        std::int64_t high) {
  SharedIds shared_ids;
  IdRange range;
  const std::vector<EventIndex> calls = with_ids_in(e, sides.calls, low, high, &range);
  const std::vector<EventIndex> linked = with_ids_in(e, sides.linked, low, high, nullptr);
  FlatIdMap call_by_correlation(range);
  std::unordered_map<std::int64_t, std::vector<EventIndex>> shared;  // id -> calls, by start
  for (std::size_t k = 0; k < calls.size(); ++k) {
    call_by_correlation.prefetch(id_ahead(e.correlation, calls, k));
    const EventIndex i = calls[k];
    const EventIndex first = call_by_correlation.find_or_insert(e.correlation[i], i);
    if (first == i) continue;
    std::vector<EventIndex>& sharing = shared[e.correlation[i]];
    if (sharing.empty()) sharing.push_back(first);
    sharing.push_back(i);  // events are sorted by start: so are the calls
    ++shared_ids.calls;
    shared_ids.first_offset = std::min(shared_ids.first_offset, e.source_offset[i]);
  }
  for (std::size_t k = 0; k < linked.size(); ++k) {
    call_by_correlation.prefetch(id_ahead(e.correlation, linked, k));
    const EventIndex i = linked[k];
    e.launcher[i] = call_by_correlation.find(e.correlation[i]);
    if (shared.empty()) continue;
    const auto it = shared.find(e.correlation[i]);
    if (it == shared.end()) continue;
    const std::vector<EventIndex>& sharing = it->second;
    const auto after = std::upper_bound(
        sharing.begin(), sharing.end(), e.start_ns[i],
        [&e](std::int64_t start, EventIndex call) { return start < e.start_ns[call]; });
    e.launcher[i] = after == sharing.begin() ? sharing.front() : *(after - 1);
  }
  return shared_ids;
}

// Older traces write the correlation id into `External id` of runtime calls; then External
// ids of device activities name no op, and attribution must go through the launch call.
bool external_id_is_correlation(const EventTable& e) {
  std::size_t with_both = 0;
  std::size_t equal = 0;
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (!is_launch_call(e.event_class[i]) || e.correlation[i] < 0 || e.external_id[i] < 0) {
      continue;
    }
    ++with_both;
    if (e.correlation[i] == e.external_id[i]) ++equal;
  }
  return with_both > 0 && equal * 2 > with_both;
}

bool is_op_like(EventClass c) { return c == EventClass::kOp || c == EventClass::kAnnotation; }

EventIndex enclosing_op(const EventTable& e, EventIndex call) {
  EventIndex at = e.parent[call];
  while (at != kNoEvent && !is_op_like(e.event_class[at])) at = e.parent[at];
  return at;
}

// Ops by External id: later (inner) events win, and an op wins over an annotation with the
// same id.
FlatIdMap ops_by_external_id(const EventTable& e) {
  std::vector<EventIndex> keyed;
  IdRange range;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (!is_op_like(e.event_class[i]) || e.external_id[i] < 0) continue;
    keyed.push_back(i);
    range.add(e.external_id[i]);
  }
  FlatIdMap ops(range);
  for (std::size_t k = 0; k < keyed.size(); ++k) {
    ops.prefetch(id_ahead(e.external_id, keyed, k));
    const EventIndex i = keyed[k];
    EventIndex& stored = ops.find_or_insert(e.external_id[i], i);
    if (e.event_class[i] == EventClass::kOp || e.event_class[stored] != EventClass::kOp) {
      stored = i;
    }
  }
  return ops;
}

// `ops` is empty when External ids carry correlation ids and name no op. Each activity's
// owner depends on nothing written here, so halves of the activities go on two threads.
void link_owners(EventTable& e, const FlatIdMap& ops, bool use_external_id, unsigned threads) {
  e.owner_op.assign(e.size(), kNoEvent);
  const std::vector<EventIndex>& activities = e.device_activities;
  const std::size_t half = activities.size() / 2;
  parallel_for(2, threads, [&](std::size_t part) {
    const std::size_t begin = part == 0 ? 0 : half;
    const std::size_t end = part == 0 ? half : activities.size();
    for (std::size_t k = begin; k < end; ++k) {
      const EventIndex i = activities[k];
      if (use_external_id) ops.prefetch(id_ahead(e.external_id, activities, k));
      if (use_external_id && e.external_id[i] >= 0) {
        if (const EventIndex op = ops.find(e.external_id[i]); op != kNoEvent) {
          e.owner_op[i] = op;
          continue;
        }
      }
      if (e.launcher[i] != kNoEvent) e.owner_op[i] = enclosing_op(e, e.launcher[i]);
    }
  });
}

void list_device_activities(EventTable& e) {
  const auto count = static_cast<std::size_t>(
      std::count_if(e.event_class.begin(), e.event_class.end(), is_device_activity));
  e.device_activities.clear();
  e.device_activities.reserve(count);
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (is_device_activity(e.event_class[i])) e.device_activities.push_back(i);
  }
}

}  // namespace

void link_events(Trace& trace, ImportNotes& notes, unsigned threads) {
  EventTable& e = trace.events;
  // Four independent scans, two on each thread (about 20 ms on one thread for 3.8 M events).
  LaunchSides sides;
  parallel_for(2, threads, [&](std::size_t part) {
    if (part == 0) {
      sides = launch_sides(e);
      e.launcher.assign(e.size(), kNoEvent);
    } else {
      list_device_activities(e);
      trace.stats.external_id_is_correlation = external_id_is_correlation(e);
    }
  });
  const bool use_external_id = !trace.stats.external_id_is_correlation;
  // The launch map is the largest piece: split in two halves of the ids, with the nesting and
  // the op map (together about as large as one half) after them.
  const std::int64_t middle = sides.range.min + (sides.range.max - sides.range.min) / 2;
  const std::int64_t low[2] = {0, middle + 1};
  const std::int64_t high[2] = {middle, INT64_MAX};
  SharedIds shared[2];
  FlatIdMap ops;
  parallel_for(3, threads, [&](std::size_t part) {
    if (part < 2) {
      shared[part] = link_launches(e, sides, low[part], high[part]);
    } else {
      link_nesting(trace);
      if (use_external_id) ops = ops_by_external_id(e);
    }
  });
  const std::uint64_t shared_calls = shared[0].calls + shared[1].calls;
  if (shared_calls > 0) {
    notes.add(kSharedIdsNote, std::min(shared[0].first_offset, shared[1].first_offset),
              shared_calls);
  }
  link_owners(e, ops, use_external_id, threads);
}

}  // namespace stepscope
