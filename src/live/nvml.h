// The few NVML entry points the monitor uses, declared here rather than taken from nvml.h so that
// stepscope builds without CUDA and runs where no driver is installed: the library is opened at
// run time with dlopen("libnvidia-ml.so.1") and each function looked up by name.
//
// Declarations follow NVIDIA's nvml.h (NVML API version 12); all are stable C ABI:
//   nvmlInit_v2(), nvmlShutdown(), nvmlErrorString(ret)
//   nvmlDeviceGetCount_v2(&count), nvmlDeviceGetHandleByIndex_v2(i, &device)
//   nvmlDeviceGetName / GetUUID(device, char* buffer, unsigned length)
//   nvmlDeviceGetUtilizationRates(device, &{gpu %, memory %})   averaged by the driver over its
//                                                                own period (1/6 s to 1 s)
//   nvmlDeviceGetMemoryInfo(device, &{total, free, used} bytes)
//   nvmlDeviceGetPowerUsage / GetEnforcedPowerLimit(device, &milliwatts)
//   nvmlDeviceGetClockInfo(device, NVML_CLOCK_SM = 1 | NVML_CLOCK_MEM = 2, &MHz)
//   nvmlDeviceGetTemperature(device, NVML_TEMPERATURE_GPU = 0, &degrees C)
//   nvmlDeviceGetComputeRunningProcesses_v3 (or _v2, same layout)(device, &count, infos)
//   nvmlDeviceGetFieldValues(device, count, values) for NVML_FI_DEV_PCIE_COUNT_TX_BYTES = 197 and
//     RX_BYTES = 198: cumulative byte counters (drivers R550 and later). The older
//     nvmlDeviceGetPcieThroughput blocks 20 ms per call and direction, so it is not used.
// Any function but the first five may be missing from an old driver: its figure is then absent.
#pragma once

#include <memory>
#include <string>

#include "stepscope/error.h"

namespace stepscope::live::nvml {

using Return = int;  // nvmlReturn_t
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorInsufficientSize = 7;
using Device = struct DeviceOpaque*;  // nvmlDevice_t

inline constexpr int kClockSm = 1;
inline constexpr int kClockMem = 2;
inline constexpr int kTemperatureGpu = 0;
inline constexpr unsigned kFieldPcieTxBytes = 197;
inline constexpr unsigned kFieldPcieRxBytes = 198;
inline constexpr unsigned long long kValueNotAvailable = ~0ULL;

struct Utilization {
  unsigned int gpu;
  unsigned int memory;
};
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
struct ProcessInfo {  // nvmlProcessInfo_t (v2 layout)
  unsigned int pid;
  unsigned long long used_gpu_memory;  // kValueNotAvailable when the driver cannot tell
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
struct FieldValue {  // nvmlFieldValue_t
  unsigned int field_id;
  unsigned int scope_id;
  long long timestamp_us;
  long long latency_us;
  int value_type;
  Return result;
  union {
    double d;
    unsigned int ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
  } value;
};
static_assert(sizeof(ProcessInfo) == 24 && sizeof(FieldValue) == 40, "NVML ABI layouts");

// The loaded library: dlopen handle and the entry points, initialised on load and shut down
// (then closed) on destruction. One object per monitor; nothing global.
class Library {
 public:
  // Fails with a sentence a user can act on: no library, no symbols, or nvmlInit failed.
  static Result<std::unique_ptr<Library>> load(const std::string& path);
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  [[nodiscard]] std::string describe(Return result) const;

  Return (*init)() = nullptr;
  Return (*shutdown)() = nullptr;
  const char* (*error_string)(Return) = nullptr;
  Return (*device_count)(unsigned int*) = nullptr;
  Return (*device_by_index)(unsigned int, Device*) = nullptr;
  Return (*name)(Device, char*, unsigned int) = nullptr;
  Return (*uuid)(Device, char*, unsigned int) = nullptr;
  Return (*utilization)(Device, Utilization*) = nullptr;
  Return (*memory)(Device, Memory*) = nullptr;
  Return (*power)(Device, unsigned int*) = nullptr;
  Return (*power_limit)(Device, unsigned int*) = nullptr;
  Return (*clock)(Device, int, unsigned int*) = nullptr;
  Return (*temperature)(Device, int, unsigned int*) = nullptr;
  Return (*compute_processes)(Device, unsigned int*, ProcessInfo*) = nullptr;
  Return (*field_values)(Device, int, FieldValue*) = nullptr;

 private:
  Library() = default;
  void* handle_ = nullptr;
  bool initialised_ = false;
};

}  // namespace stepscope::live::nvml
