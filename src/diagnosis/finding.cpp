#include "stepscope/diagnosis/finding.h"

namespace stepscope {

std::string_view to_string(Bottleneck bottleneck) {
  switch (bottleneck) {
    case Bottleneck::kInputPipeline:
      return "input_pipeline";
    case Bottleneck::kHostOverhead:
      return "host_launch_overhead";
    case Bottleneck::kHostDeviceSync:
      return "host_device_sync";
    case Bottleneck::kGpuCompute:
      return "gpu_compute";
    case Bottleneck::kMemoryTraffic:
      return "memory_traffic";
    case Bottleneck::kCommunication:
      return "communication";
    case Bottleneck::kMemoryCapacity:
      return "memory_capacity";
    case Bottleneck::kHealthy:
      return "healthy";
    case Bottleneck::kUndetermined:
      return "undetermined";
  }
  return "unknown";
}

std::string_view to_string(StepPart part) {
  switch (part) {
    case StepPart::kDataLoading:
      return "data_loading";
    case StepPart::kForward:
      return "forward";
    case StepPart::kBackward:
      return "backward";
    case StepPart::kOptimizer:
      return "optimizer";
    case StepPart::kCommunication:
      return "communication";
    case StepPart::kWholeStep:
      return "whole_step";
  }
  return "unknown";
}

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::kInfo:
      return "info";
    case Severity::kLow:
      return "low";
    case Severity::kMedium:
      return "medium";
    case Severity::kHigh:
      return "high";
  }
  return "info";
}

// A fifth of the step or more is the first thing to fix; under 1 % is not worth a change.
Severity severity_for(double likely_share) {
  if (likely_share >= 0.20) return Severity::kHigh;
  if (likely_share >= 0.05) return Severity::kMedium;
  if (likely_share >= 0.01) return Severity::kLow;
  return Severity::kInfo;
}

}  // namespace stepscope
