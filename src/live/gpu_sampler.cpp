#include "live/gpu_sampler.h"

#include <array>

namespace stepscope::live {

namespace {

std::string device_text(nvml::Return (*get)(nvml::Device, char*, unsigned int),
                        nvml::Device device) {
  if (get == nullptr) return {};
  std::array<char, 96> buffer{};
  if (get(device, buffer.data(), buffer.size()) != nvml::kSuccess) return {};
  return std::string(buffer.data());
}

std::vector<GpuProcess> list_processes(const nvml::Library& nvml, nvml::Device device,
                                       const std::set<std::int32_t>& tree) {
  std::vector<GpuProcess> out;
  if (nvml.compute_processes == nullptr) return out;
  std::vector<nvml::ProcessInfo> infos(32);
  unsigned int count = static_cast<unsigned int>(infos.size());
  nvml::Return r = nvml.compute_processes(device, &count, infos.data());
  if (r == nvml::kErrorInsufficientSize) {  // count now holds the number needed
    infos.resize(count + 8);
    count = static_cast<unsigned int>(infos.size());
    r = nvml.compute_processes(device, &count, infos.data());
  }
  if (r != nvml::kSuccess) return out;
  for (unsigned int i = 0; i < count && i < infos.size(); ++i) {
    GpuProcess p;
    p.pid = infos[i].pid;
    if (infos[i].used_gpu_memory != nvml::kValueNotAvailable) {
      p.used_memory_bytes = infos[i].used_gpu_memory;
    }
    p.in_tree = tree.contains(static_cast<std::int32_t>(infos[i].pid));
    out.push_back(p);
  }
  return out;
}

std::optional<double> rate(std::optional<std::uint64_t> now, std::optional<std::uint64_t> before,
                           double seconds) {
  if (!now || !before || *now < *before || seconds <= 0) return std::nullopt;
  return static_cast<double>(*now - *before) / seconds;
}

}  // namespace

Result<GpuSampler> GpuSampler::open(const std::string& library_path) {
  GpuSampler sampler;
  STEPSCOPE_ASSIGN_OR_RETURN(sampler.nvml_, nvml::Library::load(library_path));
  const nvml::Library& nvml = *sampler.nvml_;
  unsigned int count = 0;
  if (const nvml::Return r = nvml.device_count(&count); r != nvml::kSuccess) {
    return make_error(ErrorKind::kUnsupported, "NVML cannot count the GPUs: " + nvml.describe(r));
  }
  for (unsigned int i = 0; i < count; ++i) {
    Device device;
    if (nvml.device_by_index(i, &device.handle) != nvml::kSuccess) continue;
    sampler.infos_.push_back(
        GpuInfo{i, device_text(nvml.name, device.handle), device_text(nvml.uuid, device.handle)});
    device.slow.index = i;
    sampler.devices_.push_back(std::move(device));
  }
  if (sampler.devices_.empty())
    return make_error(ErrorKind::kUnsupported, "the NVIDIA driver sees no GPU");
  return sampler;
}

void GpuSampler::sample_slow(std::int64_t now_ns, const std::set<std::int32_t>& tree, Device& d) {
  const nvml::Library& nvml = *nvml_;
  d.slow.processes = list_processes(nvml, d.handle, tree);
  unsigned int milliwatts = 0;
  if (nvml.power_limit && nvml.power_limit(d.handle, &milliwatts) == nvml::kSuccess) {
    d.slow.power_limit_w = milliwatts / 1000.0;
  }
  if (!d.pcie_counters || nvml.field_values == nullptr) return;
  std::array<nvml::FieldValue, 2> fields{};
  fields[0].field_id = nvml::kFieldPcieTxBytes;
  fields[1].field_id = nvml::kFieldPcieRxBytes;
  if (nvml.field_values(d.handle, 2, fields.data()) != nvml::kSuccess ||
      fields[0].result != nvml::kSuccess || fields[1].result != nvml::kSuccess) {
    d.pcie_counters = false;  // an older driver: no PCIe figures for this device
    return;
  }
  const double seconds = static_cast<double>(now_ns - d.counters_ns) / 1e9;
  d.slow.pcie_tx_bytes_per_s = rate(fields[0].value.ull, d.tx_bytes, seconds);
  d.slow.pcie_rx_bytes_per_s = rate(fields[1].value.ull, d.rx_bytes, seconds);
  d.tx_bytes = fields[0].value.ull;
  d.rx_bytes = fields[1].value.ull;
  d.counters_ns = now_ns;
}

void GpuSampler::sample(std::int64_t now_ns, bool slow_figures, const std::set<std::int32_t>& tree,
                        std::vector<GpuSample>& out) {
  const nvml::Library& nvml = *nvml_;
  out.clear();
  for (Device& d : devices_) {
    if (slow_figures) sample_slow(now_ns, tree, d);
    GpuSample s = d.slow;
    nvml::Utilization utilization{};
    if (nvml.utilization && nvml.utilization(d.handle, &utilization) == nvml::kSuccess) {
      s.utilization_share = utilization.gpu / 100.0;  // NVML says percent
      s.memory_utilization_share = utilization.memory / 100.0;
    }
    nvml::Memory memory{};
    if (nvml.memory && nvml.memory(d.handle, &memory) == nvml::kSuccess) {
      s.memory_used_bytes = memory.used;
      s.memory_total_bytes = memory.total;
    }
    unsigned int value = 0;
    if (nvml.power && nvml.power(d.handle, &value) == nvml::kSuccess) s.power_w = value / 1000.0;
    if (nvml.clock && nvml.clock(d.handle, nvml::kClockSm, &value) == nvml::kSuccess) {
      s.sm_clock_mhz = value;
    }
    if (nvml.clock && nvml.clock(d.handle, nvml::kClockMem, &value) == nvml::kSuccess) {
      s.memory_clock_mhz = value;
    }
    if (nvml.temperature &&
        nvml.temperature(d.handle, nvml::kTemperatureGpu, &value) == nvml::kSuccess) {
      s.temperature_c = value;
    }
    out.push_back(std::move(s));
  }
}

}  // namespace stepscope::live
