// Samples every GPU through NVML (see nvml.h): utilisation, memory, power, clocks, temperature,
// PCIe bytes where the driver counts them, and the processes holding a context.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "live/nvml.h"
#include "stepscope/error.h"
#include "stepscope/live/sample.h"

namespace stepscope::live {

class GpuSampler {
 public:
  // Fails, with the reason in words, when there is no library, no driver or no device.
  static Result<GpuSampler> open(const std::string& library_path);

  [[nodiscard]] const std::vector<GpuInfo>& devices() const { return infos_; }

  // One GpuSample per device. With `slow_figures`, also the process list, power limit and PCIe
  // counters, which change slowly or cost more (the monitor asks about once a second; in between
  // the last values are repeated). `tree` holds the monitored pids.
  void sample(std::int64_t now_ns, bool slow_figures, const std::set<std::int32_t>& tree,
              std::vector<GpuSample>& out);

 private:
  struct Device {
    nvml::Device handle = nullptr;
    bool pcie_counters = true;  // until the driver says otherwise
    std::optional<std::uint64_t> tx_bytes;
    std::optional<std::uint64_t> rx_bytes;
    std::int64_t counters_ns = 0;
    GpuSample slow;  // the last slow figures
  };
  void sample_slow(std::int64_t now_ns, const std::set<std::int32_t>& tree, Device& device);

  std::unique_ptr<nvml::Library> nvml_;
  std::vector<Device> devices_;
  std::vector<GpuInfo> infos_;
};

}  // namespace stepscope::live
