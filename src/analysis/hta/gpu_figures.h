// HTA's GPU-side figures of one rank on its row scope: temporal breakdown (§3), kernel-class
// labels (§4.2), the kernel table with HTA's folding (§4.3), idle time per stream (§5) and the
// communication/computation overlap (§6.1).
#pragma once

#include <map>
#include <string>

#include "analysis/hta/rows.h"
#include "stepscope/analysis/hta/hta_report.h"

namespace stepscope::hta {

Temporal temporal_breakdown(const RankRows& rows);
// Label -> time, for this rank; the report sums them over ranks.
std::map<std::string, std::int64_t> class_labels(const RankRows& rows);
void kernel_table(const RankRows& rows, RankFigures& out);
std::vector<IdleStream> idle_time(const RankRows& rows);
std::optional<double> comm_comp_overlap(const RankRows& rows);

double round_to(double value, int decimals);

}  // namespace stepscope::hta
