// compat-hta against every HTA reference figure of conformance.md §5, for the nine reference
// traces, with the tolerances of its §2, and the `hta_rounding` off values of its notes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "stepscope/analysis/hta/hta_report.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

// The traces whose `ts` literals carry fractions: HTA rounds them (§2: ±2 µs or ±0.01 %).
const std::set<std::string> kFractional = {"hta/amd_trace", "hta/nccl_parser_config",
                                           "hta/ns_resolution_trace", "hta/sampled_two_ranks"};

double us(std::int64_t ns) { return static_cast<double>(ns) / 1000.0; }

double tolerance_us(const std::string& folder, double expected) {
  return kFractional.count(folder) != 0 ? std::max(2.0, std::abs(expected) * 1e-4) : 1e-6;
}

// Loads and analyses each trace once for every test of this file.
const hta::HtaReport& report_of(const std::string& folder, bool rounding = true) {
  static std::map<std::pair<std::string, bool>, hta::HtaReport> cache;
  auto found = cache.find({folder, rounding});
  if (found != cache.end()) return found->second;
  AnalysisOptions options;
  options.hta_rounding = rounding;
  return cache[{folder, rounding}] = hta::compute_hta_report(testing::load_shared(folder), options);
}

const hta::RankFigures* rank_of(const hta::HtaReport& report, std::int64_t rank) {
  for (const hta::RankFigures& r : report.ranks) {
    if (r.rank == rank) return &r;
  }
  return nullptr;
}

struct Steps {
  std::string folder;
  std::vector<std::int64_t> steps;
};
const std::vector<Steps> kSteps = {
    {"hta/amd_trace", {1}},
    {"hta/critical_path/alexnet", {}},
    {"hta/df_index_resolver", {2, 3, 4, 5}},
    {"hta/nccl_parser_config", {4, 5}},
    {"hta/negative_queue_length_values_check", {550, 551, 552, 553}},
    {"hta/ns_resolution_trace", {101, 102, 103, 104}},
    {"hta/sampled_two_ranks", {551}},
    {"hta/trace_diff/control", {1009, 1010, 1011, 1012, 1013}},
    {"hta/trace_diff/test", {1009, 1010, 1011, 1012, 1013}},
};

struct TemporalRow {
  std::string folder;
  std::int64_t rank;
  double span, idle, compute, non_compute, idle_pct, compute_pct, non_compute_pct;
};
const std::vector<TemporalRow> kTemporal = {
    {"hta/amd_trace", 0, 8911, 8780, 96, 35, 98.53, 1.08, 0.39},
    {"hta/critical_path/alexnet", 0, 12996011, 12929684, 10630, 55697, 99.49, 0.08, 0.43},
    {"hta/df_index_resolver", 1, 1396669, 643612, 496485, 256572, 46.08, 35.55, 18.37},
    {"hta/nccl_parser_config", 0, 435586, 338781, 75169, 21636, 77.78, 17.26, 4.97},
    {"hta/negative_queue_length_values_check", 0, 1016554, 705853, 143836, 166865, 69.44, 14.15,
     16.41},
    {"hta/ns_resolution_trace", 0, 384634, 10113, 372150, 2371, 2.63, 96.75, 0.62},
    {"hta/sampled_two_ranks", 0, 600058, 321378, 106252, 172428, 53.56, 17.71, 28.74},
    {"hta/sampled_two_ranks", 1, 600674, 328671, 135548, 136455, 54.72, 22.57, 22.72},
    {"hta/trace_diff/control", 3, 383404, 62119, 234760, 86525, 16.20, 61.23, 22.57},
    {"hta/trace_diff/test", 1, 628371, 46910, 429216, 152245, 7.47, 68.31, 24.23},
};

struct ClassRow {
  std::string folder;
  std::string label;
  double sum, percent;
};
const std::vector<ClassRow> kClasses = {
    {"hta/amd_trace", "COMPUTATION", 96, 73.3},
    {"hta/amd_trace", "MEMORY", 35, 26.7},
    {"hta/critical_path/alexnet", "MEMORY", 55511, 83.9},
    {"hta/critical_path/alexnet", "COMPUTATION", 10630, 16.1},
    {"hta/df_index_resolver", "COMPUTATION", 496485, 65.9},
    {"hta/df_index_resolver", "COMMUNICATION", 238274, 31.6},
    {"hta/df_index_resolver", "MEMORY", 18298, 2.4},
    {"hta/df_index_resolver", "COMPUTATION overlapping MEMORY", 0, 0.0},
    {"hta/nccl_parser_config", "COMPUTATION", 71696, 74.1},
    {"hta/nccl_parser_config", "COMMUNICATION", 20621, 21.3},
    {"hta/nccl_parser_config", "COMPUTATION overlapping COMMUNICATION", 3473, 3.6},
    {"hta/nccl_parser_config", "MEMORY", 831, 0.9},
    {"hta/nccl_parser_config", "COMMUNICATION overlapping MEMORY", 184, 0.2},
    {"hta/negative_queue_length_values_check", "COMPUTATION", 138794, 44.7},
    {"hta/negative_queue_length_values_check", "COMMUNICATION", 134025, 43.1},
    {"hta/negative_queue_length_values_check", "MEMORY", 32246, 10.4},
    {"hta/negative_queue_length_values_check", "COMPUTATION overlapping MEMORY", 3171, 1.0},
    {"hta/negative_queue_length_values_check", "COMPUTATION overlapping COMMUNICATION", 1871, 0.6},
    {"hta/negative_queue_length_values_check", "COMMUNICATION overlapping MEMORY", 594, 0.2},
    {"hta/ns_resolution_trace", "COMPUTATION", 372150, 99.4},
    {"hta/ns_resolution_trace", "MEMORY", 2371, 0.6},
    {"hta/sampled_two_ranks", "COMMUNICATION", 305584, 55.5},
    {"hta/sampled_two_ranks", "COMPUTATION", 185023, 33.6},
    {"hta/sampled_two_ranks", "COMPUTATION overlapping COMMUNICATION", 56747, 10.3},
    {"hta/sampled_two_ranks", "MEMORY", 2288, 0.4},
    {"hta/sampled_two_ranks", "COMMUNICATION overlapping MEMORY", 1011, 0.2},
    {"hta/sampled_two_ranks", "COMPUTATION overlapping MEMORY", 18, 0.0},
    {"hta/sampled_two_ranks", "COMPUTATION overlapping COMMUNICATION overlapping MEMORY", 12, 0.0},
    {"hta/trace_diff/control", "COMPUTATION", 151685, 47.2},
    {"hta/trace_diff/control", "COMMUNICATION", 69110, 21.5},
    {"hta/trace_diff/control", "COMPUTATION overlapping COMMUNICATION", 55152, 17.2},
    {"hta/trace_diff/control", "COMPUTATION overlapping MEMORY", 20762, 6.5},
    {"hta/trace_diff/control", "MEMORY", 16328, 5.1},
    {"hta/trace_diff/control", "COMPUTATION overlapping COMMUNICATION overlapping MEMORY", 7161,
     2.2},
    {"hta/trace_diff/control", "COMMUNICATION overlapping MEMORY", 1087, 0.3},
    {"hta/trace_diff/test", "COMPUTATION", 267839, 46.1},
    {"hta/trace_diff/test", "COMPUTATION overlapping COMMUNICATION", 129148, 22.2},
    {"hta/trace_diff/test", "MEMORY", 92887, 16.0},
    {"hta/trace_diff/test", "COMMUNICATION", 53846, 9.3},
    {"hta/trace_diff/test", "COMPUTATION overlapping MEMORY", 30501, 5.2},
    {"hta/trace_diff/test", "COMMUNICATION overlapping MEMORY", 5512, 0.9},
    {"hta/trace_diff/test", "COMPUTATION overlapping COMMUNICATION overlapping MEMORY", 1728, 0.3},
};

struct KernelRow {
  std::string folder;
  std::int64_t rank;
  hta::KernelType type;
  std::string name;
  bool prefix;  // the name is a unique prefix
  double count, sum, mean, min, max, std;
  bool hta_stats_agree;
};
const std::vector<KernelRow> kKernels = {
    {"hta/amd_trace", 0, hta::KernelType::kMemory, "Memcpy HtoD (Host -> Device)", false, 2, 35,
     17.50, 14, 21, 4.95, true},
    {"hta/amd_trace", 0, hta::KernelType::kComputation,
     "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x3", true, 1, 17, 17.00, 17, 17, 0.00, true},
    {"hta/amd_trace", 0, hta::KernelType::kComputation,
     "Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x1", true, 1, 12, 12.00, 12, 12, 0.00, true},
    {"hta/amd_trace", 0, hta::KernelType::kComputation,
     "void at::native::reduce_kernel<128, 4, at::nativ", true, 1, 12, 12.00, 12, 12, 0.00, true},
    {"hta/amd_trace", 0, hta::KernelType::kComputation,
     "void at::native::reduce_kernel<512, 1, at::nativ", true, 1, 10, 10.00, 10, 10, 0.00, true},
    {"hta/critical_path/alexnet", 0, hta::KernelType::kMemory, "Memcpy HtoD (Pageable -> Device)",
     false, 16, 55503, 3468.94, 1, 34780, 9207.06, true},
    {"hta/critical_path/alexnet", 0, hta::KernelType::kComputation,
     "ampere_sgemm_32x32_sliced1x4_tn", false, 6, 2621, 436.83, 97, 822, 323.34, false},
    {"hta/critical_path/alexnet", 0, hta::KernelType::kComputation,
     "cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v", true, 2, 2069, 1034.50, 1034, 1035, 0.71,
     false},
    {"hta/critical_path/alexnet", 0, hta::KernelType::kComputation,
     "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf", true, 6, 1814, 302.33, 260, 384, 61.38,
     false},
    {"hta/critical_path/alexnet", 0, hta::KernelType::kComputation,
     "void at::native::elementwise_kernel<128, 2, at::", true, 10, 958, 95.80, 44, 187, 59.68,
     false},
    {"hta/df_index_resolver", 1, hta::KernelType::kCommunication,
     "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkE", true, 1616, 238274, 147.45, 4, 4979,
     419.85, true},
    {"hta/df_index_resolver", 1, hta::KernelType::kComputation,
     "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<fl", true, 4004,
     67774, 16.93, 2, 364, 30.18, false},
    {"hta/df_index_resolver", 1, hta::KernelType::kComputation, "volta_sgemm_128x32_nt", false, 304,
     59097, 194.40, 42, 1029, 215.86, false},
    {"hta/df_index_resolver", 1, hta::KernelType::kComputation, "volta_sgemm_128x64_nn", false, 180,
     44294, 246.08, 52, 1773, 355.91, false},
    {"hta/df_index_resolver", 1, hta::KernelType::kComputation, "volta_sgemm_32x128_nn", false, 172,
     36758, 213.71, 16, 481, 127.64, false},
    {"hta/nccl_parser_config", 0, hta::KernelType::kCommunication,
     "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevCo", true, 10, 24204, 2420.40, 1689, 3306,
     429.19, true},
    {"hta/nccl_parser_config", 0, hta::KernelType::kComputation,
     "void cudnn::ops::nchwToNhwcKernel<float, float, ", true, 316, 8063, 25.52, 2, 153, 29.92,
     false},
    {"hta/nccl_parser_config", 0, hta::KernelType::kComputation,
     "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, tru", true, 22, 6375, 289.77,
     204, 425, 102.56, false},
    {"hta/nccl_parser_config", 0, hta::KernelType::kComputation,
     "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<fl", true, 64,
     5816, 90.88, 17, 227, 68.99, false},
    {"hta/nccl_parser_config", 0, hta::KernelType::kComputation,
     "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, "
     "float, at::native::(an",
     true, 98, 5292, 54.00, 8, 230, 60.10, false},
    {"hta/negative_queue_length_values_check", 0, hta::KernelType::kCommunication,
     "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclD", true, 60, 138211, 2303.52, 25, 25951,
     6273.00, true},
    {"hta/negative_queue_length_values_check", 0, hta::KernelType::kComputation,
     "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x6", true, 4, 30969, 7742.25, 7706,
     7760, 25.25, false},
    {"hta/negative_queue_length_values_check", 0, hta::KernelType::kComputation,
     "void multi_tensor_apply_kernel<TensorListMetadat", true, 72, 25628, 355.94, 146, 411, 86.56,
     false},
    {"hta/negative_queue_length_values_check", 0, hta::KernelType::kComputation,
     "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_32x3_nt_align", true, 16, 25281,
     1580.06, 1543, 1649, 31.59, false},
    {"hta/negative_queue_length_values_check", 0, hta::KernelType::kComputation,
     "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align", true, 16, 20080,
     1255.00, 268, 1610, 586.39, false},
    {"hta/ns_resolution_trace", 0, hta::KernelType::kComputation,
     "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<fl", true, 128,
     20956, 163.72, 48, 378, 112.87, false},
    {"hta/ns_resolution_trace", 0, hta::KernelType::kComputation,
     "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, tru", true, 44, 20101, 456.84,
     241, 811, 260.47, false},
    {"hta/ns_resolution_trace", 0, hta::KernelType::kComputation,
     "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true", true, 128, 19271, 150.56,
     49, 385, 113.08, false},
    {"hta/ns_resolution_trace", 0, hta::KernelType::kComputation,
     "void cudnn::detail::dgrad_engine<float, 512, 6, ", true, 24, 18901, 787.54, 590, 1000, 127.92,
     false},
    {"hta/ns_resolution_trace", 0, hta::KernelType::kComputation,
     "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, "
     "float, at::native::(an",
     true, 196, 18273, 93.23, 13, 378, 98.42, false},
    {"hta/sampled_two_ranks", 0, hta::KernelType::kCommunication,
     "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclD", true, 5, 195327, 39065.40, 11727, 62783,
     19143.61, true},
    {"hta/sampled_two_ranks", 0, hta::KernelType::kComputation,
     "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_", true, 1,
     11773, 11773.00, 11773, 11773, 0.00, true},
    {"hta/sampled_two_ranks", 0, hta::KernelType::kComputation,
     "void split_embedding_codegen_forward_unweighted_", true, 1, 7366, 7366.00, 7366, 7366, 0.00,
     true},
    {"hta/sampled_two_ranks", 0, hta::KernelType::kComputation,
     "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_warp_per", true, 1,
     4671, 4671.00, 4671, 4671, 0.00, true},
    {"hta/sampled_two_ranks", 0, hta::KernelType::kComputation,
     "void split_embedding_backward_codegen_rowwise_adagrad_weighted_kernel_ct", true, 1, 4572,
     4572.00, 4572, 4572, 0.00, true},
    {"hta/sampled_two_ranks", 1, hta::KernelType::kCommunication,
     "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclD", true, 5, 168027, 33605.40, 8370, 57924,
     20173.16, true},
    {"hta/sampled_two_ranks", 1, hta::KernelType::kComputation,
     "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_", true, 1,
     28836, 28836.00, 28836, 28836, 0.00, true},
    {"hta/sampled_two_ranks", 1, hta::KernelType::kComputation,
     "void split_embedding_codegen_forward_unweighted_", true, 1, 18349, 18349.00, 18349, 18349,
     0.00, true},
    {"hta/sampled_two_ranks", 1, hta::KernelType::kComputation,
     "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_warp_per", true, 1,
     14696, 14696.00, 14696, 14696, 0.00, true},
    {"hta/sampled_two_ranks", 1, hta::KernelType::kComputation,
     "void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, in", true, 4,
     6172, 1543.00, 1404, 1657, 114.71, false},
    {"hta/trace_diff/control", 3, hta::KernelType::kCommunication,
     "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclW", true, 35, 105057, 3001.63, 17, 12606,
     3671.55, true},
    {"hta/trace_diff/control", 3, hta::KernelType::kMemory, "Memcpy HtoD (Pinned -> Device)", false,
     125, 41998, 335.98, 2, 7334, 1285.04, true},
    {"hta/trace_diff/control", 3, hta::KernelType::kComputation,
     "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_", true, 5,
     30284, 6056.80, 5679, 6513, 356.45, false},
    {"hta/trace_diff/control", 3, hta::KernelType::kCommunication,
     "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkE", true, 15, 27453, 1830.20, 65, 4796,
     1617.79, true},
    {"hta/trace_diff/control", 3, hta::KernelType::kComputation,
     "void split_embedding_codegen_forward_unweighted_", true, 5, 12694, 2538.80, 2534, 2546, 5.07,
     false},
    {"hta/trace_diff/test", 1, hta::KernelType::kCommunication,
     "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclW", true, 35, 123375, 3525.00, 19, 9800,
     4119.43, true},
    {"hta/trace_diff/test", 1, hta::KernelType::kMemory, "Memcpy DtoD (Device -> Device)", false,
     3840, 77503, 20.18, 2, 753, 74.96, true},
    {"hta/trace_diff/test", 1, hta::KernelType::kCommunication,
     "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkE", true, 15, 66859, 4457.27, 79, 12495,
     5779.63, true},
    {"hta/trace_diff/test", 1, hta::KernelType::kMemory, "Memcpy HtoD (Pinned -> Device)", false,
     125, 56134, 449.07, 3, 10221, 1759.37, true},
    {"hta/trace_diff/test", 1, hta::KernelType::kComputation,
     "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_", true, 5,
     42814, 8562.80, 8461, 8693, 83.89, false},
};

struct OthersRow {
  std::string folder;
  std::int64_t rank;
  hta::KernelType type;
  double sum;
};
const std::vector<OthersRow> kOthers = {
    {"hta/amd_trace", 0, hta::KernelType::kComputation, 11},
    {"hta/critical_path/alexnet", 0, hta::KernelType::kComputation, 419},
    {"hta/df_index_resolver", 1, hta::KernelType::kComputation, 129133},
    {"hta/nccl_parser_config", 0, hta::KernelType::kComputation, 28160},
    {"hta/negative_queue_length_values_check", 0, hta::KernelType::kComputation, 25362},
    {"hta/ns_resolution_trace", 0, hta::KernelType::kComputation, 191567},
    {"hta/sampled_two_ranks", 0, hta::KernelType::kComputation, 59998},
    {"hta/sampled_two_ranks", 1, hta::KernelType::kComputation, 52412},
    {"hta/trace_diff/control", 3, hta::KernelType::kComputation, 138787},
    {"hta/trace_diff/test", 1, hta::KernelType::kComputation, 226508},
};

struct IdleRow {
  std::string folder;
  std::int64_t rank, stream;
  double host_wait, kernel_wait, other;
};
const std::vector<IdleRow> kIdle = {
    {"hta/amd_trace", 0, 0, 8780, 0, 0},
    {"hta/critical_path/alexnet", 0, 7, 12855007, 104, 0},
    {"hta/critical_path/alexnet", 0, 20, 12011718, 3, 0},
    {"hta/df_index_resolver", 1, 7, 791330, 16727, 73829},
    {"hta/df_index_resolver", 1, 14, 933139, 5568, 4444},
    {"hta/nccl_parser_config", 0, 7, 357247, 2155, 0},
    {"hta/nccl_parser_config", 0, 40, 381499, 0, 0},
    {"hta/negative_queue_length_values_check", 0, 7, 0, 17159, 691231},
    {"hta/negative_queue_length_values_check", 0, 25, 628598, 85, 0},
    {"hta/negative_queue_length_values_check", 0, 27, 792592, 1000, 7135},
    {"hta/negative_queue_length_values_check", 0, 84, 62901, 12, 665192},
    {"hta/negative_queue_length_values_check", 0, 285, 0, 0, 675305},
    {"hta/negative_queue_length_values_check", 0, 363, 0, 75, 673182},
    {"hta/ns_resolution_trace", 0, 7, 1709, 8404, 0},
    {"hta/sampled_two_ranks", 0, 7, 213825, 1985, 261740},
    {"hta/sampled_two_ranks", 0, 23, 596037, 70, 34},
    {"hta/sampled_two_ranks", 0, 25, 0, 9, 47865},
    {"hta/sampled_two_ranks", 0, 84, 148934, 6, 0},
    {"hta/sampled_two_ranks", 0, 203, 0, 0, 0},
    {"hta/sampled_two_ranks", 1, 7, 156827, 1816, 281064},
    {"hta/sampled_two_ranks", 1, 23, 596313, 100, 0},
    {"hta/sampled_two_ranks", 1, 25, 0, 9, 53028},
    {"hta/sampled_two_ranks", 1, 84, 251860, 0, 23247},
    {"hta/sampled_two_ranks", 1, 203, 0, 0, 0},
    {"hta/trace_diff/control", 3, 7, 102154, 14226, 32183},
    {"hta/trace_diff/control", 3, 20, 346996, 621, 7470},
    {"hta/trace_diff/control", 3, 21, 237710, 71, 0},
    {"hta/trace_diff/control", 3, 22, 271786, 1253, 0},
    {"hta/trace_diff/test", 1, 7, 2960, 42372, 41756},
    {"hta/trace_diff/test", 1, 14, 520794, 1087, 14536},
    {"hta/trace_diff/test", 1, 15, 348483, 138, 38936},
    {"hta/trace_diff/test", 1, 16, 422925, 829, 0},
};

struct OverlapRow {
  std::string folder;
  std::int64_t rank;
  double percent;  // < 0: null (no communication)
};
const std::vector<OverlapRow> kOverlap = {
    {"hta/amd_trace", 0, -1},
    {"hta/critical_path/alexnet", 0, -1},
    {"hta/df_index_resolver", 1, 0.00},
    {"hta/nccl_parser_config", 0, 14.31},
    {"hta/negative_queue_length_values_check", 0, 1.37},
    {"hta/ns_resolution_trace", 0, -1},
    {"hta/sampled_two_ranks", 0, 11.81},
    {"hta/sampled_two_ranks", 1, 20.05},
    {"hta/trace_diff/control", 3, 47.03},
    {"hta/trace_diff/test", 1, 68.80},
};

struct LaunchRow {
  std::string folder;
  std::int64_t rank;
  double launches, cpu, gpu, delay, cpu_over_50, delay_over_100;
};
const std::vector<LaunchRow> kLaunches = {
    {"hta/amd_trace", 0, 0, 0, 0, 0, 0, 0},
    {"hta/critical_path/alexnet", 0, 98, 3113616, 66203, 39283, 11, 43},
    {"hta/df_index_resolver", 1, 17832, 156892, 753057, 10280212, 2, 6605},
    {"hta/nccl_parser_config", 0, 2516, 21289, 100462, 70623, 0, 180},
    {"hta/negative_queue_length_values_check", 0, 5224, 684500, 233886, 635597575, 110, 5083},
    {"hta/ns_resolution_trace", 0, 4876, 192088, 374521, 322052817, 663, 4713},
    {"hta/sampled_two_ranks", 0, 602, 5109, 302241, 9880122, 0, 469},
    {"hta/sampled_two_ranks", 1, 577, 4988, 306242, 9761662, 0, 442},
    {"hta/trace_diff/control", 3, 7875, 115050, 413947, 15865017, 25, 5111},
    {"hta/trace_diff/test", 1, 8310, 297921, 533840, 316928263, 65, 8142},
};

struct QueueRow {
  std::string folder;
  std::int64_t rank, stream;
  double samples, mean, max;
};
const std::vector<QueueRow> kQueues = {
    {"hta/amd_trace", 0, 0, 32, 0.500, 1},
    {"hta/critical_path/alexnet", 0, 7, 182, 3.346, 18},
    {"hta/critical_path/alexnet", 0, 20, 14, 0.643, 2},
    {"hta/df_index_resolver", 1, 7, 32432, 8.095, 73},
    {"hta/df_index_resolver", 1, 14, 3232, 2.073, 20},
    {"hta/nccl_parser_config", 0, 7, 5004, 0.814, 10},
    {"hta/nccl_parser_config", 0, 40, 28, 0.500, 1},
    {"hta/negative_queue_length_values_check", 0, 7, 9680, 656.681, 946},
    {"hta/negative_queue_length_values_check", 0, 25, 56, 1.357, 4},
    {"hta/negative_queue_length_values_check", 0, 27, 592, 3.574, 17},
    {"hta/negative_queue_length_values_check", 0, 84, 56, 1.464, 3},
    {"hta/negative_queue_length_values_check", 0, 285, 32, 2.750, 4},
    {"hta/negative_queue_length_values_check", 0, 363, 32, 2.750, 4},
    {"hta/ns_resolution_trace", 0, 7, 9752, 812.413, 1022},
    {"hta/sampled_two_ranks", 0, 7, 1052, 23.620, 76},
    {"hta/sampled_two_ranks", 0, 23, 126, 0.595, 4},
    {"hta/sampled_two_ranks", 0, 25, 16, 4.000, 8},
    {"hta/sampled_two_ranks", 0, 84, 8, 0.500, 1},
    {"hta/sampled_two_ranks", 0, 203, 2, 0.500, 1},
    {"hta/sampled_two_ranks", 1, 7, 1002, 24.666, 75},
    {"hta/sampled_two_ranks", 1, 23, 126, 0.548, 2},
    {"hta/sampled_two_ranks", 1, 25, 16, 4.000, 8},
    {"hta/sampled_two_ranks", 1, 84, 8, 0.500, 1},
    {"hta/sampled_two_ranks", 1, 203, 2, 0.500, 1},
    {"hta/trace_diff/control", 3, 7, 14940, 35.432, 287},
    {"hta/trace_diff/control", 3, 20, 470, 2.568, 10},
    {"hta/trace_diff/control", 3, 21, 100, 0.760, 2},
    {"hta/trace_diff/control", 3, 22, 240, 10.592, 22},
    {"hta/trace_diff/test", 1, 7, 15800, 522.390, 1013},
    {"hta/trace_diff/test", 1, 14, 480, 2.317, 9},
    {"hta/trace_diff/test", 1, 15, 100, 1.540, 5},
    {"hta/trace_diff/test", 1, 16, 240, 10.958, 23},
};

TEST(HtaConformance, ProfilerSteps) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const Steps& row : kSteps) {
    EXPECT_EQ(report_of(row.folder).profiler_steps, row.steps) << row.folder;
  }
}

TEST(HtaConformance, TemporalBreakdown) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const TemporalRow& row : kTemporal) {
    const hta::RankFigures* rank = rank_of(report_of(row.folder), row.rank);
    ASSERT_NE(rank, nullptr) << row.folder << " rank " << row.rank;
    const std::string what = row.folder + " rank " + std::to_string(row.rank);
    ASSERT_TRUE(rank->has_gpu_rows) << what;
    const hta::Temporal& t = rank->temporal;
    EXPECT_NEAR(us(t.kernel_span_ns), row.span, tolerance_us(row.folder, row.span)) << what;
    EXPECT_NEAR(us(t.idle_ns), row.idle, tolerance_us(row.folder, row.idle)) << what;
    EXPECT_NEAR(us(t.compute_ns), row.compute, tolerance_us(row.folder, row.compute)) << what;
    EXPECT_NEAR(us(t.non_compute_ns), row.non_compute, tolerance_us(row.folder, row.non_compute))
        << what;
    EXPECT_NEAR(t.idle_percent, row.idle_pct, 0.01 + 1e-9) << what;
    EXPECT_NEAR(t.compute_percent, row.compute_pct, 0.01 + 1e-9) << what;
    EXPECT_NEAR(t.non_compute_percent, row.non_compute_pct, 0.01 + 1e-9) << what;
  }
}

TEST(HtaConformance, KernelClassesSummedOverRanks) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const ClassRow& row : kClasses) {
    if (row.sum == 0) continue;  // zero-length artefact rows (conformance.md §4.6)
    const auto& classes = report_of(row.folder).kernel_classes;
    auto found = std::find_if(classes.begin(), classes.end(),
                              [&](const hta::ClassLabel& c) { return c.label == row.label; });
    ASSERT_NE(found, classes.end()) << row.folder << " " << row.label;
    EXPECT_NEAR(us(found->sum_ns), row.sum, tolerance_us(row.folder, row.sum))
        << row.folder << " " << row.label;
    EXPECT_NEAR(found->percent, row.percent, 0.1 + 1e-9) << row.folder << " " << row.label;
  }
}

// The labels with a nonzero sum are exactly those of the reference.
TEST(HtaConformance, NoExtraKernelClasses) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  std::map<std::string, std::set<std::string>> expected;
  for (const ClassRow& row : kClasses) {
    if (row.sum > 0) expected[row.folder].insert(row.label);
  }
  for (const auto& [folder, labels] : expected) {
    std::set<std::string> got;
    for (const hta::ClassLabel& c : report_of(folder).kernel_classes) {
      if (c.sum_ns > 0) got.insert(c.label);
    }
    EXPECT_EQ(got, labels) << folder;
  }
}

const hta::KernelStats* find_kernel(const hta::RankFigures& rank, const KernelRow& row) {
  const hta::KernelStats* match = nullptr;
  for (const hta::KernelStats& k : rank.kernels) {
    const bool same = row.prefix ? k.name.rfind(row.name, 0) == 0 : k.name == row.name;
    if (!same || k.type != row.type) continue;
    if (match != nullptr) return nullptr;  // the prefix must be unique
    match = &k;
  }
  return match;
}

TEST(HtaConformance, TopKernels) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const KernelRow& row : kKernels) {
    const hta::RankFigures* rank = rank_of(report_of(row.folder), row.rank);
    ASSERT_NE(rank, nullptr) << row.folder;
    const hta::KernelStats* k = find_kernel(*rank, row);
    ASSERT_NE(k, nullptr) << row.folder << " " << row.name;
    const std::string what = row.folder + " " + row.name;
    EXPECT_EQ(static_cast<double>(k->count), row.count) << what;
    EXPECT_NEAR(us(k->sum_ns), row.sum, tolerance_us(row.folder, row.sum)) << what;
    EXPECT_NEAR(us(k->min_ns), row.min, tolerance_us(row.folder, row.min)) << what;
    EXPECT_NEAR(us(k->max_ns), row.max, tolerance_us(row.folder, row.max)) << what;
    EXPECT_NEAR(k->mean_ns / 1000, row.mean, 0.01) << what;
    EXPECT_NEAR(k->std_ns / 1000, row.std, 0.01) << what;
    // HTA's statistics agree with the instances unless folding replaced them by totals, which
    // coincide for a kernel that ran once.
    EXPECT_EQ(!k->hta_stats_are_per_name_totals || k->count == 1, row.hta_stats_agree) << what;
  }
}

// HTA's own table: wrong rows show max = min = mean = sum and std 0; right rows are per instance.
TEST(HtaConformance, HtaKernelTableReproducesTheArtefact) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const KernelRow& row : kKernels) {
    const hta::RankFigures& rank = *rank_of(report_of(row.folder), row.rank);
    const hta::KernelStats& k = *find_kernel(rank, row);
    auto found = std::find_if(
        rank.hta_kernel_table.begin(), rank.hta_kernel_table.end(),
        [&](const hta::HtaKernelRow& r) { return r.name == k.name && r.type == k.type; });
    ASSERT_NE(found, rank.hta_kernel_table.end()) << row.folder << " " << row.name;
    EXPECT_EQ(found->sum_ns, k.sum_ns);
    if (row.hta_stats_agree) {
      EXPECT_EQ(found->max_ns, static_cast<double>(k.max_ns)) << row.name;
      EXPECT_NEAR(found->std_ns, k.std_ns, 1e-6) << row.name;
    } else {
      EXPECT_EQ(found->max_ns, static_cast<double>(k.sum_ns)) << row.name;
      EXPECT_EQ(found->min_ns, static_cast<double>(k.sum_ns)) << row.name;
      EXPECT_EQ(found->mean_ns, static_cast<double>(k.sum_ns)) << row.name;
      EXPECT_EQ(found->std_ns, 0.0) << row.name;
    }
  }
}

TEST(HtaConformance, OthersRows) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  std::map<std::string, std::size_t> expected_count;
  for (const OthersRow& row : kOthers) {
    const hta::RankFigures* rank = rank_of(report_of(row.folder), row.rank);
    ASSERT_NE(rank, nullptr) << row.folder;
    std::vector<const hta::KernelStats*> others;
    for (const hta::KernelStats& k : rank->others) {
      if (k.type == row.type) others.push_back(&k);
    }
    ASSERT_EQ(others.size(), 1U) << row.folder;
    EXPECT_NEAR(us(others[0]->sum_ns), row.sum, tolerance_us(row.folder, row.sum)) << row.folder;
    ++expected_count[row.folder];
  }
  for (const auto& [folder, count] : expected_count) {
    std::size_t got = 0;
    for (const hta::RankFigures& rank : report_of(folder).ranks) got += rank.others.size();
    EXPECT_EQ(got, count) << folder;
  }
}

TEST(HtaConformance, IdleTimePerStreamForEveryRank) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  std::map<std::pair<std::string, std::int64_t>, std::size_t> streams;
  for (const IdleRow& row : kIdle) {
    const hta::RankFigures* rank = rank_of(report_of(row.folder), row.rank);
    ASSERT_NE(rank, nullptr) << row.folder;
    auto found = std::find_if(rank->idle.begin(), rank->idle.end(),
                              [&](const hta::IdleStream& s) { return s.stream == row.stream; });
    const std::string what =
        row.folder + " rank " + std::to_string(row.rank) + " stream " + std::to_string(row.stream);
    ASSERT_NE(found, rank->idle.end()) << what;
    EXPECT_NEAR(us(found->host_wait_ns), row.host_wait, tolerance_us(row.folder, row.host_wait))
        << what;
    EXPECT_NEAR(us(found->kernel_wait_ns), row.kernel_wait,
                tolerance_us(row.folder, row.kernel_wait))
        << what;
    EXPECT_NEAR(us(found->other_ns), row.other, tolerance_us(row.folder, row.other)) << what;
    ++streams[{row.folder, row.rank}];
  }
  for (const auto& [key, count] : streams) {
    EXPECT_EQ(rank_of(report_of(key.first), key.second)->idle.size(), count) << key.first;
  }
}

// Stream 203 of sampled_two_ranks has one activity: HTA says `other: 0` with a null ratio.
TEST(HtaConformance, SingleActivityStreamHasNullRatio) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (std::int64_t r : {0, 1}) {
    const hta::RankFigures& rank = *rank_of(report_of("hta/sampled_two_ranks"), r);
    auto found = std::find_if(rank.idle.begin(), rank.idle.end(),
                              [](const hta::IdleStream& s) { return s.stream == 203; });
    ASSERT_NE(found, rank.idle.end());
    EXPECT_EQ(found->other_ns, 0);
    EXPECT_FALSE(found->other_ratio.has_value());
  }
}

TEST(HtaConformance, CommCompOverlap) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const OverlapRow& row : kOverlap) {
    const hta::RankFigures* rank = rank_of(report_of(row.folder), row.rank);
    ASSERT_NE(rank, nullptr) << row.folder;
    if (row.percent < 0) {
      EXPECT_FALSE(rank->comm_comp_overlap_percent.has_value()) << row.folder;
    } else {
      ASSERT_TRUE(rank->comm_comp_overlap_percent.has_value()) << row.folder;
      EXPECT_NEAR(*rank->comm_comp_overlap_percent, row.percent, 0.01 + 1e-9) << row.folder;
    }
  }
}

TEST(HtaConformance, LaunchStatistics) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const LaunchRow& row : kLaunches) {
    const hta::RankFigures* rank = rank_of(report_of(row.folder), row.rank);
    ASSERT_NE(rank, nullptr) << row.folder;
    const hta::LaunchStats& l = rank->launches;
    const std::string what = row.folder + " rank " + std::to_string(row.rank);
    EXPECT_EQ(static_cast<double>(l.pairs), row.launches) << what;
    EXPECT_NEAR(us(l.cpu_duration_ns), row.cpu, tolerance_us(row.folder, row.cpu)) << what;
    EXPECT_NEAR(us(l.gpu_duration_ns), row.gpu, tolerance_us(row.folder, row.gpu)) << what;
    EXPECT_NEAR(us(l.launch_delay_ns), row.delay, tolerance_us(row.folder, row.delay)) << what;
    EXPECT_EQ(static_cast<double>(l.cpu_duration_over_50us), row.cpu_over_50) << what;
    EXPECT_EQ(static_cast<double>(l.launch_delay_over_100us), row.delay_over_100) << what;
  }
}

TEST(HtaConformance, QueueLength) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  std::map<std::pair<std::string, std::int64_t>, std::size_t> streams;
  for (const QueueRow& row : kQueues) {
    const hta::RankFigures* rank = rank_of(report_of(row.folder), row.rank);
    ASSERT_NE(rank, nullptr) << row.folder;
    auto found = std::find_if(rank->queues.begin(), rank->queues.end(),
                              [&](const hta::QueueStream& q) { return q.stream == row.stream; });
    const std::string what =
        row.folder + " rank " + std::to_string(row.rank) + " stream " + std::to_string(row.stream);
    ASSERT_NE(found, rank->queues.end()) << what;
    EXPECT_EQ(static_cast<double>(found->samples), row.samples) << what;
    EXPECT_EQ(static_cast<double>(found->max), row.max) << what;
    EXPECT_NEAR(found->mean, row.mean, 0.02 * row.mean) << what;
    ++streams[{row.folder, row.rank}];
  }
  for (const auto& [key, count] : streams) {
    EXPECT_EQ(rank_of(report_of(key.first), key.second)->queues.size(), count) << key.first;
  }
}

// conformance.md §5 notes: the same rows with `hta_rounding` off (±0.001 µs).
struct Unrounded {
  std::string folder;
  double span, idle, compute, non_compute;
  std::vector<std::pair<std::string, double>> classes;
  std::vector<std::pair<std::int64_t, std::pair<double, double>>> idle_host_kernel;  // by stream
};

TEST(HtaConformance, RoundingOffValuesFromTheNotes) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const std::vector<Unrounded> table = {
      {"hta/amd_trace",
       8911.887,
       8762.845,
       110.881,
       38.161,
       {{"COMPUTATION", 110.881}, {"MEMORY", 38.161}},
       {{0, {8762.845, 0}}}},
      {"hta/nccl_parser_config",
       435587.561,
       336419.714,
       76935.828,
       22232.019,
       {{"COMPUTATION", 73350.149},
        {"COMMUNICATION", 20479.016},
        {"COMPUTATION overlapping COMMUNICATION", 3585.679},
        {"MEMORY", 1528.648},
        {"COMMUNICATION overlapping MEMORY", 224.355}},
       {{7, {355484.547, 1414.183}}, {40, {381488.447, 0}}}},
      {"hta/ns_resolution_trace",
       384634.463,
       6452.701,
       374738.006,
       3443.756,
       {{"COMPUTATION", 374738.006}, {"MEMORY", 3443.756}},
       {{7, {1347.125, 5105.576}}}},
  };
  for (const Unrounded& row : table) {
    const hta::HtaReport& report = report_of(row.folder, false);
    EXPECT_FALSE(report.rounding) << row.folder;
    const hta::RankFigures& rank = report.ranks.at(0);
    EXPECT_NEAR(us(rank.temporal.kernel_span_ns), row.span, 0.001) << row.folder;
    EXPECT_NEAR(us(rank.temporal.idle_ns), row.idle, 0.001) << row.folder;
    EXPECT_NEAR(us(rank.temporal.compute_ns), row.compute, 0.001) << row.folder;
    EXPECT_NEAR(us(rank.temporal.non_compute_ns), row.non_compute, 0.001) << row.folder;
    for (const auto& [label, sum] : row.classes) {
      // A named copy: clang before 16 cannot capture structured bindings in a lambda.
      const auto& wanted_label = label;
      auto found = std::find_if(report.kernel_classes.begin(), report.kernel_classes.end(),
                                [&](const hta::ClassLabel& c) { return c.label == wanted_label; });
      ASSERT_NE(found, report.kernel_classes.end()) << row.folder << " " << label;
      EXPECT_NEAR(us(found->sum_ns), sum, 0.001) << row.folder << " " << label;
    }
    for (const auto& [stream, waits] : row.idle_host_kernel) {
      const auto wanted_stream = stream;
      auto found = std::find_if(rank.idle.begin(), rank.idle.end(), [&](const hta::IdleStream& s) {
        return s.stream == wanted_stream;
      });
      ASSERT_NE(found, rank.idle.end()) << row.folder << " stream " << stream;
      EXPECT_NEAR(us(found->host_wait_ns), waits.first, 0.001) << row.folder;
      EXPECT_NEAR(us(found->kernel_wait_ns), waits.second, 0.001) << row.folder;
    }
  }
}

TEST(HtaConformance, RoundingOffPercentagesAndLaunches) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const hta::HtaReport& amd = report_of("hta/amd_trace", false);
  EXPECT_NEAR(amd.kernel_classes.at(0).percent, 74.4, 0.1);
  const hta::HtaReport& nccl = report_of("hta/nccl_parser_config", false);
  ASSERT_TRUE(nccl.ranks.at(0).comm_comp_overlap_percent.has_value());
  EXPECT_NEAR(*nccl.ranks[0].comm_comp_overlap_percent, 14.76, 0.01);
  const hta::LaunchStats& l = nccl.ranks[0].launches;
  EXPECT_EQ(l.pairs, 2516);
  EXPECT_NEAR(us(l.cpu_duration_ns), 23787.895, 0.001);
  EXPECT_NEAR(us(l.gpu_duration_ns), 102977.881, 0.001);
  EXPECT_NEAR(us(l.launch_delay_ns), 68120.684, 0.001);
  const hta::HtaReport& ns = report_of("hta/ns_resolution_trace", false);
  EXPECT_NEAR(ns.kernel_classes.at(0).percent, 99.1, 0.1);
  const hta::LaunchStats& n = ns.ranks.at(0).launches;
  EXPECT_EQ(n.pairs, 4876);
  EXPECT_NEAR(us(n.cpu_duration_ns), 195772.848, 0.001);
  EXPECT_NEAR(us(n.gpu_duration_ns), 378181.762, 0.001);
  EXPECT_NEAR(us(n.launch_delay_ns), 322049145.035, 0.001);
  EXPECT_EQ(n.cpu_duration_over_50us, 675);
}

}  // namespace
}  // namespace stepscope
