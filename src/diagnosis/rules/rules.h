// One function per rule; each lives in its own file beside this header, with its threshold
// and the reason for it documented there and in docs/rules.md.
#pragma once

#include <vector>

#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/diagnosis/finding.h"

namespace stepscope::rules {

std::vector<Finding> check_input_bound(const RankAnalyses& rank);
std::vector<Finding> check_host_device_sync(const RankAnalyses& rank);
std::vector<Finding> check_tensor_cores_idle(const RankAnalyses& rank);
std::vector<Finding> check_transfers(const RankAnalyses& rank);
std::vector<Finding> check_launch_bound(const RankAnalyses& rank);
std::vector<Finding> check_host_work_idle(const RankAnalyses& rank);
std::vector<Finding> check_exposed_communication(const RankAnalyses& rank);
std::vector<Finding> check_unfused_optimizer(const RankAnalyses& rank);
std::vector<Finding> check_memory_growth(const RankAnalyses& rank);
std::vector<Finding> check_allocator_churn(const RankAnalyses& rank);
std::vector<Finding> check_fusion(const RankAnalyses& rank);
std::vector<Finding> check_unaligned_shapes(const RankAnalyses& rank);
std::vector<Finding> check_low_occupancy(const RankAnalyses& rank);
std::vector<Finding> check_autograd_in_inference(const RankAnalyses& rank);
std::vector<Finding> check_dropout_in_inference(const RankAnalyses& rank);
std::vector<Finding> check_per_token_sync(const RankAnalyses& rank);
std::vector<Finding> check_kv_cache_missing(const RankAnalyses& rank);
std::vector<Finding> check_memory_capacity(const RankAnalyses& rank);
std::vector<Finding> check_framework_overhead(const RankAnalyses& rank);
std::vector<Finding> check_cpu_collectives(const RankAnalyses& rank);
std::vector<Finding> check_thread_oversubscription(const RankAnalyses& rank);

}  // namespace stepscope::rules
