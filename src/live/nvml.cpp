#include "live/nvml.h"

#include <dlfcn.h>

namespace stepscope::live::nvml {

namespace {

template <typename F>
void bind(void* handle, const char* symbol, F& out) {
  out = reinterpret_cast<F>(::dlsym(handle, symbol));
}

template <typename F>
void bind_first(void* handle, const char* symbol, const char* fallback, F& out) {
  bind(handle, symbol, out);
  if (out == nullptr) bind(handle, fallback, out);
}

}  // namespace

Result<std::unique_ptr<Library>> Library::load(const std::string& path) {
  std::unique_ptr<Library> library(new Library());
  library->handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library->handle_ == nullptr) {
    // dlerror repeats the name; "cannot open shared object file" means no driver is installed.
    const char* error = ::dlerror();
    const std::string why = error != nullptr ? error : "";
    if (why.empty() || why.find("No such file") != std::string::npos) {
      return make_error(ErrorKind::kUnsupported,
                        "NVML (" + path + ") is not installed: no NVIDIA driver here");
    }
    return make_error(ErrorKind::kUnsupported, "NVML (" + path + ") cannot be loaded: " + why);
  }
  void* h = library->handle_;
  Library& l = *library;
  bind_first(h, "nvmlInit_v2", "nvmlInit", l.init);
  bind(h, "nvmlShutdown", l.shutdown);
  bind(h, "nvmlErrorString", l.error_string);
  bind_first(h, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", l.device_count);
  bind_first(h, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex", l.device_by_index);
  if (!l.init || !l.shutdown || !l.error_string || !l.device_count || !l.device_by_index) {
    return make_error(ErrorKind::kUnsupported,
                      path + " lacks the NVML entry points stepscope needs");
  }
  bind(h, "nvmlDeviceGetName", l.name);
  bind(h, "nvmlDeviceGetUUID", l.uuid);
  bind(h, "nvmlDeviceGetUtilizationRates", l.utilization);
  bind(h, "nvmlDeviceGetMemoryInfo", l.memory);
  bind(h, "nvmlDeviceGetPowerUsage", l.power);
  bind(h, "nvmlDeviceGetEnforcedPowerLimit", l.power_limit);
  bind(h, "nvmlDeviceGetClockInfo", l.clock);
  bind(h, "nvmlDeviceGetTemperature", l.temperature);
  bind_first(h, "nvmlDeviceGetComputeRunningProcesses_v3",
             "nvmlDeviceGetComputeRunningProcesses_v2", l.compute_processes);
  bind(h, "nvmlDeviceGetFieldValues", l.field_values);
  if (const Return r = l.init(); r != kSuccess) {
    return make_error(ErrorKind::kUnsupported,
                      "the NVIDIA driver did not start (nvmlInit: " + l.describe(r) + ")");
  }
  l.initialised_ = true;
  return library;
}

Library::~Library() {
  if (initialised_) shutdown();
  if (handle_ != nullptr) ::dlclose(handle_);
}

std::string Library::describe(Return result) const {
  const char* text = error_string ? error_string(result) : nullptr;
  return text ? std::string(text) : "NVML error " + std::to_string(result);
}

}  // namespace stepscope::live::nvml
