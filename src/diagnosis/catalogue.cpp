#include "diagnosis/rule.h"
#include "diagnosis/rules/rules.h"

namespace stepscope {

const std::vector<Rule>& all_rules() {
  static const std::vector<Rule> kRules = {
      {{"input-bound", "The GPU waits for the DataLoader", Bottleneck::kInputPipeline,
        "DataLoader time with the GPU idle >= 5 % of the mean step (CPU-only traces: data "
        "loading >= 5 % of the step); below that the input pipeline does not limit the step"},
       rules::check_input_bound},
      {{"launch-bound", "The GPU waits for the host to launch work", Bottleneck::kHostOverhead,
        "GPU idle whose next activity was launched only after the idle began (host wait), "
        "DataLoader and post-sync idle excluded, >= 10 % of the mean step"},
       rules::check_launch_bound},
      {{"host-device-sync", "Blocking host-device syncs inside the step",
        Bottleneck::kHostDeviceSync,
        "GPU idle after blocking calls (synchronize, synchronous copies, .item()) >= 3 % of the "
        "mean step; one logging sync per step costs less on any step of a few milliseconds"},
       rules::check_host_device_sync},
      {{"tensor-cores-idle", "Float32 matrix math on a GPU with tensor cores",
        Bottleneck::kGpuCompute,
        "fp32 GEMM / convolution kernels >= 10 % of kernel time on compute capability >= 7.0; "
        "below that a change of precision is not worth its numerical risk"},
       rules::check_tensor_cores_idle},
      {{"transfers", "Pageable or device-to-host copies on the critical path",
        Bottleneck::kMemoryTraffic,
        "pageable H2D and D2H copy time with no kernel running >= 3 % of the mean step"},
       rules::check_transfers},
  };
  return kRules;
}

const std::vector<RuleDescription>& rule_catalogue() {
  static const std::vector<RuleDescription> kDescriptions = [] {
    std::vector<RuleDescription> out;
    for (const Rule& rule : all_rules()) out.push_back(rule.description);
    return out;
  }();
  return kDescriptions;
}

}  // namespace stepscope
