// The collective table: matched collectives per kind and power-of-two size bucket, with the
// transfer time after the last arrival and the waiting before it kept apart. Bandwidth follows
// nccl-tests (algbw = S / t, busbw = algbw × f(n)), with t the transfer time: the kernel's
// duration would count the waiting as slow links.
#include <bit>
#include <map>
#include <tuple>

#include "job/job_internal.h"
#include "stepscope/analysis/collective_bandwidth.h"

namespace stepscope::job::detail {

namespace {

// Below this size a collective costs its latency, not its bandwidth (nccl-tests' curves flatten
// under a few tens of KiB on NVLink and InfiniBand alike).
constexpr std::int64_t kLatencyBoundBytes = std::int64_t{64} * 1024;

std::int64_t bucket_floor(std::int64_t bytes) {
  if (bytes < 0) return -1;
  if (bytes == 0) return 0;
  return std::int64_t{1} << (std::bit_width(static_cast<std::uint64_t>(bytes)) - 1);
}

}  // namespace

std::vector<CollectiveRow> collective_table(const std::vector<MatchedCollective>& matched) {
  std::map<std::pair<std::string, std::int64_t>, CollectiveRow> rows;
  std::map<std::pair<std::string, std::int64_t>, double> bus_bytes;
  for (const MatchedCollective& m : matched) {
    const std::int64_t floor = bucket_floor(m.bytes);
    CollectiveRow& row = rows[{m.kind, floor}];
    row.kind = m.kind;
    row.min_bytes = floor;
    row.max_bytes = floor < 0 ? -1 : (floor == 0 ? 1 : floor * 2);
    ++row.count;
    std::int64_t duration = 0;
    std::int64_t wait = 0;
    for (std::size_t i = 0; i < m.ranks.size(); ++i) {
      duration += m.end_ns[i] - m.arrival_ns[i];
      wait += m.wait_ns(i);
    }
    const auto n = static_cast<std::int64_t>(m.ranks.size());
    row.total_ns += duration / n;
    row.wait_ns += wait / n;
    row.transfer_ns += m.transfer_ns;
    if (m.bytes > 0) {
      row.bytes += m.bytes;
      const std::int64_t group = m.group_size > 0 ? m.group_size : n;
      bus_bytes[{m.kind, floor}] +=
          static_cast<double>(m.bytes) * bus_factor(parse_collective(m.kind), group);
    }
  }
  std::vector<CollectiveRow> out;
  for (auto& [key, row] : rows) {
    if (row.bytes > 0 && row.transfer_ns > 0) {
      row.algbw_gb_per_s = static_cast<double>(row.bytes) / static_cast<double>(row.transfer_ns);
      row.busbw_gb_per_s = bus_bytes[key] / static_cast<double>(row.transfer_ns);
    }
    row.latency_bound = row.min_bytes >= 0 && row.max_bytes <= kLatencyBoundBytes;
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace stepscope::job::detail
