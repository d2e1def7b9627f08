// HTA's launch statistics (§7, `CudaKernelAnalysis.cuda_kernel_launch_stats`) and queue-length
// summary (§8, `TraceCounters`) of one rank on its row scope.
#pragma once

#include "analysis/hta/rows.h"
#include "stepscope/analysis/hta/hta_report.h"

namespace stepscope::hta {

LaunchStats launch_statistics(const RankRows& rows);
std::vector<QueueStream> queue_lengths(const RankRows& rows);

}  // namespace stepscope::hta
