#include "diagnosis/rule.h"
#include "diagnosis/rules/rules.h"

namespace stepscope {

const std::vector<Rule>& all_rules() {
  static const std::vector<Rule> kRules = {
      {{"input-bound", "The GPU waits for the DataLoader", Bottleneck::kInputPipeline,
        "GPU idle during DataLoader spans (first owner of idle) >= 5 % of the mean step and "
        ">= 100 µs per step (CPU-only traces: data loading, the same); below that the input "
        "pipeline does not limit the step; with worker processes already in use the advice "
        "changes; in `stepscope run` traces, the input pipeline's sampled Python "
        "functions with >= 2 % of its samples are the evidence"},
       rules::check_input_bound},
      {{"launch-bound", "The GPU waits for the host to launch work", Bottleneck::kHostOverhead,
        "GPU idle whose next activity was launched only after the idle began (host wait), "
        "DataLoader and post-sync idle excluded (third owner of idle), >= 10 % of the mean "
        "step; reported as "
        "inference-launch-bound when the trace has no backward pass or optimizer and its matrix "
        "multiplies have a leading dimension of 1"},
       rules::check_launch_bound},
      {{"host-work-idle", "The GPU idles while the host does other work", Bottleneck::kHostOverhead,
        "GPU idle that no DataLoader wait, sync or late launch owns (the last owner of idle) "
        ">= 10 % of the mean step; idle at step boundaries is normal below that"},
       rules::check_host_work_idle},
      {{"host-device-sync", "Blocking host-device syncs inside the step",
        Bottleneck::kHostDeviceSync,
        "GPU idle after blocking calls (synchronize, synchronous copies, .item()), for at most "
        "as long as each call blocked and not while the host waits for the DataLoader (second "
        "owner of idle), >= 3 % of the mean step, or the kept steps replayed without the "
        "syncs >= 3 % shorter (many short syncs keep the host from running ahead: the idle "
        "they cause shows up later); one logging sync per step costs less on any step of a few "
        "milliseconds"},
       rules::check_host_device_sync},
      {{"per-token-sync", "The generation loop syncs with the GPU at every token",
        Bottleneck::kHostDeviceSync,
        "forward-only trace whose blocking calls each end a repeated forward pass that embeds "
        "token ids and picks a token (aten::embedding; argmax / topk / multinomial over <= 8 "
        "rows of logits; 3 in 4 passes alike, >= 3 passes); the GPU idle after them (second owner "
        "of idle) >= 3 % of the mean step, as for "
        "host-device-sync, which then stays silent so the idle is counted once"},
       rules::check_per_token_sync},
      {{"tensor-cores-idle", "Float32 matrix math on a GPU with tensor cores",
        Bottleneck::kGpuCompute,
        "fp32 GEMM / convolution kernels >= 10 % of kernel time on compute capability >= 7.0; "
        "below that a change of precision is not worth its numerical risk"},
       rules::check_tensor_cores_idle},
      {{"transfers", "Pageable or device-to-host copies on the critical path",
        Bottleneck::kMemoryTraffic,
        "pageable H2D and D2H copy time with no kernel running >= 3 % of the mean step"},
       rules::check_transfers},
      {{"exposed-communication", "Collectives not overlapped with computation",
        Bottleneck::kCommunication,
        "communication with no computation running >= 10 % of the mean step; below that overlap "
        "tuning rarely pays for its complexity"},
       rules::check_exposed_communication},
      {{"cpu-collectives", "CPU collectives (gloo) with nothing else running",
        Bottleneck::kCommunication,
        "CPU-only trace, time inside collectives (gloo:*, c10d::*, record_param_comms, any "
        "thread) while the step's thread runs no other op >= 10 % of the mean step; waiting for "
        "a slow peer counts here too (the job view of `stepscope analyze FOLDER` separates it)"},
       rules::check_cpu_collectives},
      {{"autograd-in-inference", "Inference with autograd on", Bottleneck::kHostOverhead,
        ">= 10 autograd nodes per kept step (ops with a `Sequence number`) in a trace with no "
        "backward pass and no optimizer; a forward pass that needs no gradient builds no graph"},
       rules::check_autograd_in_inference},
      {{"dropout-in-inference", "model.eval() missing: dropout active in inference",
        Bottleneck::kGpuCompute,
        ">= 1 dropout mask (aten::bernoulli_, native_dropout, fused dropout kernels) per kept step "
        "in a trace with no backward pass and no optimizer; in eval() mode dropout draws none"},
       rules::check_dropout_in_inference},
      {{"kv-cache-missing", "Generation without a KV cache", Bottleneck::kGpuCompute,
        ">= 4 successive forward passes, in a trace with no backward pass or optimizer, whose "
        "attention (scaled_dot_product_attention, bmm / matmul of Q·Kᵀ and P·V) has query length "
        "= key length >= 2, growing by one each pass with a token picked (argmax / topk / "
        "multinomial) in between; cached decoding has query length 1 (needs record_shapes=True)"},
       rules::check_kv_cache_missing},
      {{"unfused-optimizer", "The optimizer steps one parameter at a time",
        Bottleneck::kHostOverhead,
        ">= 30 kernels per step inside Optimizer.step with no multi-tensor or fused kernel, and "
        "the optimizer >= 3 % of the step"},
       rules::check_unfused_optimizer},
      {{"framework-overhead", "CPU run: many tiny ops, time lost between them",
        Bottleneck::kHostOverhead,
        "CPU-only trace, >= 50 top-level ops per kept step with at least half under 20 µs, and "
        "host time between ops plus time inside ops under 20 µs >= 30 % of the mean step; fewer "
        "or longer ops mean the step is doing work"},
       rules::check_framework_overhead},
      {{"thread-oversubscription", "CPU run: more threads than cores", Bottleneck::kHostOverhead,
        "CPU-only trace recorded by stepscope.torch.profile (the `stepscope_host` metadata; "
        "silent without it): local processes x intra-op threads + DataLoader workers x 1 > "
        "cores available to the process; at one thread per core nothing waits for a core, "
        "above it OpenMP barriers wait for descheduled threads"},
       rules::check_thread_oversubscription},
      {{"memory-growth", "GPU memory grows step over step", Bottleneck::kMemoryCapacity,
        "allocated memory at the start of each kept step rises by > 1 MiB at every step "
        "boundary over >= 3 kept steps (needs profile_memory=True); reserved-unused: at the "
        "allocation peak the allocator reserves >= 2x what tensors use and >= 1 GiB more"},
       rules::check_memory_growth},
      {{"allocator-churn", "cudaMalloc / cudaFree in steady state", Bottleneck::kMemoryCapacity,
        "host time in cudaMalloc / cudaFree in kept steps after the first >= 1 % of the step"},
       rules::check_allocator_churn},
      {{"fusion", "Chains of small elementwise kernels", Bottleneck::kMemoryTraffic,
        "chains of >= 4 consecutive elementwise kernels < 20 µs, < 10 µs apart; what fusing them "
        "saves (span minus the longest kernel) >= 5 % of the step"},
       rules::check_fusion},
      {{"unaligned-shapes", "Half-precision GEMM dimensions not multiples of 8 / 16",
        Bottleneck::kGpuCompute,
        "fp16 GEMM / conv dims not multiples of 8, bf16 / int8 not multiples of 16 (dims >= 8 of "
        "the last two axes), their GPU time >= 3 % of the step"},
       rules::check_unaligned_shapes},
      {{"low-occupancy", "Busy GPU, underused SMs", Bottleneck::kGpuCompute,
        "GPU utilization >= 60 % and kernels with fewer blocks than half the SMs (blocks per SM "
        "< 0.5) >= 30 % of kernel time"},
       rules::check_low_occupancy},
      {{"memory-capacity", "GPU memory close to the device's capacity", Bottleneck::kMemoryCapacity,
        "the peak of the memory curve (reserved, else allocated) leaves < 10 % of the device's "
        "totalGlobalMem free (high severity under 5 %); the CUDA context, NCCL buffers and "
        "workspaces are not in the trace's totals, so less than 10 % is already tight "
        "(needs profile_memory=True)"},
       rules::check_memory_capacity},
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
