// HTA's GPU-side figures of one rank on its row scope: temporal breakdown (§3), kernel-class
// labels (§4.2), the kernel table with HTA's folding (§4.3), idle time per stream (§5) and the
// communication/computation overlap (§6.1).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/hta/rows.h"
#include "stepscope/analysis/hta/hta_report.h"
#include "stepscope/intervals.h"

namespace stepscope::hta {

// `merge_kernel_intervals` (hta/utils/utils.py) on HTA's GPU set G, every kept row with a
// stream (syncs included), optionally of one class: rows sorted by start, a new group whenever a
// start exceeds the running maximum end. A lone sub-µs row rounded to `dur = −1` stays an
// inverted interval and counts −1 µs, as it does in HTA.
std::vector<Interval> hta_merged(const RankRows& rows, std::optional<KernelType> type);
// Σ (end − start) of merged intervals, HTA's `end.sum() − ts.sum()`.
std::int64_t hta_length(const std::vector<Interval>& merged);

Temporal temporal_breakdown(const RankRows& rows);
// Label -> time, for this rank; the report sums them over ranks.
std::map<std::string, std::int64_t> class_labels(const RankRows& rows);
std::optional<double> comm_comp_overlap(const RankRows& rows);

void kernel_table(const RankRows& rows, RankFigures& out);
std::vector<IdleStream> idle_time(const RankRows& rows);

}  // namespace stepscope::hta
