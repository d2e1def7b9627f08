#include "stepscope/analysis/collective_bandwidth.h"

#include <algorithm>
#include <bit>
#include <map>
#include <tuple>

#include "stepscope/analysis/kernel_class.h"

namespace stepscope {

namespace {

// Lower case without underscores: `_reduce_scatter_base` and `reducescatter` are one name.
std::string normalized(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == '_' || c == ' ') continue;
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

bool has(std::string_view text, std::string_view part) { return text.find(part) != text.npos; }

// Parent chains are short (a few ops); the bound only guards against a malformed trace.
constexpr int kMaxAncestors = 64;

const CollectiveArgs* collective_args_of(const Trace& trace, EventIndex event) {
  const CollectiveArgs* args = trace.collective_of(event);
  return args != nullptr && args->collective_name != 0 ? args : nullptr;
}

// The nearest event with collective args among `from` and its enclosing host events.
const CollectiveArgs* search_ancestors(const Trace& trace, EventIndex from) {
  for (int depth = 0; from != kNoEvent && depth < kMaxAncestors; ++depth) {
    if (const CollectiveArgs* args = collective_args_of(trace, from)) return args;
    from = trace.events.parent[from];
  }
  return nullptr;
}

// Recent Kineto writes the collective args on the NCCL kernel; older traces only on the
// `record_param_comms` op around the launch
// (docs/metrics/14-collective-bandwidth-nccl-tests-conventi.md §14).
const CollectiveArgs* find_collective_args(const Trace& trace, EventIndex kernel, bool& from_op) {
  from_op = false;
  if (const CollectiveArgs* own = collective_args_of(trace, kernel)) return own;
  from_op = true;
  if (const CollectiveArgs* args = search_ancestors(trace, trace.events.owner_op[kernel]))
    return args;
  return search_ancestors(trace, trace.events.launcher[kernel]);
}

// Element count of S: the output for all-gather, the input otherwise
// (docs/metrics/14-collective-bandwidth-nccl-tests-conventi.md §14). When only the other side is
// written, it is n times (or 1/n of) the one we need.
std::int64_t message_elements(Collective c, const CollectiveArgs& a) {
  const std::int64_t n = a.group_size;
  if (c == Collective::kAllGather) {
    if (a.out_msg_nelems >= 0) return a.out_msg_nelems;
    return a.in_msg_nelems >= 0 && n > 0 ? a.in_msg_nelems * n : kAbsent;
  }
  if (a.in_msg_nelems >= 0) return a.in_msg_nelems;
  if (c == Collective::kReduceScatter) {
    return a.out_msg_nelems >= 0 && n > 0 ? a.out_msg_nelems * n : kAbsent;
  }
  return a.out_msg_nelems;
}

struct Call {
  Collective collective = Collective::kOther;
  std::int64_t bytes = 0;
  std::int64_t group_size = kAbsent;
  double factor = 1;
};

enum class Skip : std::uint8_t { kNone, kWithoutArgs, kUnknownDtype, kOtherCollective };

Skip describe_call(const Trace& trace, const CollectiveArgs& args, Call& call) {
  call.collective = parse_collective(trace.strings.view(args.collective_name));
  if (call.collective == Collective::kOther) return Skip::kOtherCollective;
  const std::int64_t size = dtype_size_bytes(trace.strings.view(args.dtype));
  if (size == 0) return Skip::kUnknownDtype;
  const std::int64_t elements = message_elements(call.collective, args);
  if (elements < 0 || args.group_size <= 0) return Skip::kWithoutArgs;
  call.bytes = elements * size;
  call.group_size = args.group_size;
  call.factor = bus_factor(call.collective, args.group_size);
  return Skip::kNone;
}

void add(BandwidthTotals& totals, const Call& call, std::int64_t time_ns) {
  ++totals.calls;
  totals.bytes += call.bytes;
  totals.time_ns += time_ns;
  totals.bus_bytes += static_cast<double>(call.bytes) * call.factor;
}

// Bytes per nanosecond are GB/s with GB = 10^9 bytes.
void finish(BandwidthTotals& totals) {
  if (totals.time_ns <= 0) return;
  const auto t = static_cast<double>(totals.time_ns);
  totals.algbw_gb_per_s = static_cast<double>(totals.bytes) / t;
  totals.busbw_gb_per_s = totals.bus_bytes / t;
}

// [2^k, 2^(k+1)) holding `bytes`; 0 bytes get [0, 1).
std::int64_t bucket_floor(std::int64_t bytes) {
  if (bytes <= 0) return 0;
  return std::int64_t{1} << (std::bit_width(static_cast<std::uint64_t>(bytes)) - 1);
}

struct Accumulator {
  CollectiveBandwidth row;
  std::map<std::int64_t, BandwidthTotals> buckets;
};

void record(Accumulator& acc, const Call& call, EventIndex event, std::int64_t time_ns) {
  CollectiveBandwidth& row = acc.row;
  if (row.totals.calls == 0) row.group_size = call.group_size;
  if (row.group_size != call.group_size) row.group_size = kAbsent;
  add(row.totals, call, time_ns);
  add(acc.buckets[bucket_floor(call.bytes)], call, time_ns);
  const double algbw = static_cast<double>(call.bytes) / static_cast<double>(time_ns);
  if (row.fastest.event == kNoEvent || algbw > row.fastest.algbw_gb_per_s) {
    row.fastest = {event, call.bytes, time_ns, algbw, algbw * call.factor};
  }
}

CollectiveBandwidth finished(Accumulator& acc) {
  CollectiveBandwidth row = acc.row;
  finish(row.totals);
  for (auto& [floor, totals] : acc.buckets) {
    finish(totals);
    row.buckets.push_back({floor, floor == 0 ? 1 : floor * 2, totals});
  }
  return row;
}

void count_skip(SkippedCollectives& skipped, Skip reason) {
  switch (reason) {
    case Skip::kWithoutArgs:
      ++skipped.without_args;
      break;
    case Skip::kUnknownDtype:
      ++skipped.unknown_dtype;
      break;
    case Skip::kOtherCollective:
      ++skipped.other_collective;
      break;
    case Skip::kNone:
      break;
  }
}

}  // namespace

std::string_view to_string(Collective collective) {
  switch (collective) {
    case Collective::kAllReduce:
      return "all_reduce";
    case Collective::kAllGather:
      return "all_gather";
    case Collective::kReduceScatter:
      return "reduce_scatter";
    case Collective::kAllToAll:
      return "all_to_all";
    case Collective::kBroadcast:
      return "broadcast";
    case Collective::kReduce:
      return "reduce";
    case Collective::kSendRecv:
      return "send_recv";
    case Collective::kOther:
      return "other";
  }
  return "other";
}

Collective parse_collective(std::string_view name) {
  const std::string n = normalized(name);
  // Longer names first: `allreduce` and `reducescatter` both contain `reduce`.
  if (has(n, "allreduce")) return Collective::kAllReduce;
  if (has(n, "reducescatter")) return Collective::kReduceScatter;
  if (has(n, "allgather")) return Collective::kAllGather;
  if (has(n, "alltoall")) return Collective::kAllToAll;
  if (has(n, "broadcast")) return Collective::kBroadcast;
  if (n == "reduce") return Collective::kReduce;
  if (n == "send" || n == "recv" || n == "sendrecv") return Collective::kSendRecv;
  return Collective::kOther;
}

std::int64_t dtype_size_bytes(std::string_view dtype) {
  struct Size {
    std::string_view name;
    std::int64_t bytes;
  };
  static constexpr Size kSizes[] = {
      {"Float", 4},  {"Int", 4},      {"UInt32", 4}, {"QInt32", 4},       {"ComplexHalf", 4},
      {"Double", 8}, {"Long", 8},     {"UInt64", 8}, {"ComplexFloat", 8}, {"ComplexDouble", 16},
      {"Half", 2},   {"BFloat16", 2}, {"Short", 2},  {"UInt16", 2},       {"Byte", 1},
      {"Char", 1},   {"Bool", 1},     {"QInt8", 1},  {"QUInt8", 1},
  };
  for (const Size& s : kSizes) {
    if (s.name == dtype) return s.bytes;
  }
  // Every 8-bit float format (`Float8_e4m3fn`, `Float8_e5m2fnuz`, ...).
  return dtype.starts_with("Float8_") ? 1 : 0;
}

double bus_factor(Collective collective, std::int64_t group_size) {
  const auto n = static_cast<double>(std::max<std::int64_t>(group_size, 1));
  switch (collective) {
    case Collective::kAllReduce:
      return 2 * (n - 1) / n;
    case Collective::kAllGather:
    case Collective::kReduceScatter:
    case Collective::kAllToAll:
      return (n - 1) / n;
    default:
      return 1;
  }
}

CollectiveBandwidthResult compute_collective_bandwidth(const Trace& trace, const StepsResult& steps,
                                                       const AnalysisOptions& /*options*/) {
  CollectiveBandwidthResult result;
  if (!steps.window) {
    result.not_applicable_reason = "no GPU activity";
    return result;
  }
  const Interval window = *steps.window;
  const EventTable& e = trace.events;
  ActivityClassifier classify(trace);
  std::map<std::tuple<std::int32_t, Collective>, Accumulator> rows;
  bool any_activity = false;
  for (const EventIndex i : e.device_activities) {
    const ActivityClass c = classify(i);
    any_activity = any_activity || c != ActivityClass::kNotActivity;
    if (c != ActivityClass::kCommunication) continue;
    if (e.start_ns[i] < window.start || e.start_ns[i] >= window.end) {
      ++result.skipped.outside_window;
      continue;
    }
    ++result.communication_kernels;
    bool from_op = false;
    const CollectiveArgs* args = find_collective_args(trace, i, from_op);
    Call call;
    const Skip skip = args == nullptr ? Skip::kWithoutArgs : describe_call(trace, *args, call);
    if (skip != Skip::kNone) {
      count_skip(result.skipped, skip);
      continue;
    }
    if (e.dur_ns[i] <= 0) {
      ++result.skipped.zero_duration;
      continue;
    }
    if (from_op) ++result.args_from_launching_op;
    Accumulator& acc = rows[{trace.activity_device(i), call.collective}];
    acc.row.device = trace.activity_device(i);
    acc.row.collective = call.collective;
    record(acc, call, i, e.dur_ns[i]);
  }
  for (auto& [key, acc] : rows) result.collectives.push_back(finished(acc));
  result.applicable = result.communication_kernels > 0;
  if (!result.applicable) {
    result.not_applicable_reason = any_activity ? "no communication kernels" : "no GPU activity";
  }
  return result;
}

}  // namespace stepscope
