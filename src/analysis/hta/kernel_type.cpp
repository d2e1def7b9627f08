#include <array>

#include "stepscope/analysis/hta/hta_report.h"

namespace stepscope::hta {

namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}
bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// hta/common/types.py @f4d0062c `ComputeKernelGroupingPattern`: what is not computation.
bool excluded_from_computation(std::string_view name) {
  static constexpr std::array<std::string_view, 10> kPrefixes = {
      "nccl",    "hip",    "hccl",   "Stream Wait Event", "runFunction",
      "job_exe", "packet", "pe_exe", "cpum_exe_subgraph", "collective_subgraph_execution"};
  for (std::string_view prefix : kPrefixes) {
    if (starts_with(name, prefix)) return true;
  }
  for (std::string_view part : {"Memcpy", "Memset", "dma", "Sync"}) {
    if (contains(name, part)) return true;
  }
  return starts_with(name, "cuda") && contains(name.substr(4), "LaunchKernel");
}

}  // namespace

std::string_view to_string(KernelType type) {
  switch (type) {
    case KernelType::kComputation:
      return "COMPUTATION";
    case KernelType::kCommunication:
      return "COMMUNICATION";
    case KernelType::kMemory:
      return "MEMORY";
    case KernelType::kOther:
      return "OTHER";
  }
  return "OTHER";
}

KernelType kernel_type(std::string_view name) {
  if (starts_with(name, "nccl") || starts_with(name, "hip") || starts_with(name, "hccl") ||
      contains(name, "ncclKernel")) {
    return KernelType::kCommunication;
  }
  for (std::string_view prefix : {"Memcpy", "Memset", "hipMemcpy", "hipMemset", "dma"}) {
    if (starts_with(name, prefix)) return KernelType::kMemory;
  }
  return excluded_from_computation(name) ? KernelType::kOther : KernelType::kComputation;
}

}  // namespace stepscope::hta
