// Which host spans belong to the input pipeline. PyTorch's profiler names every call on a
// DataLoader's iterator `enumerate(DataLoader)#<Iterator>.<method>` (DataPipes alike); the rules
// and analyses that set data loading apart ask here, so the names are spelled once.
#pragma once

#include <string_view>

namespace stepscope {

// Any call on a DataLoader or DataPipe iterator: creating it, fetching from it, shutting it down.
[[nodiscard]] constexpr bool is_data_loading_name(std::string_view name) {
  return name.starts_with("enumerate(DataLoader)#") || name.starts_with("enumerate(DataPipe)#");
}

// A fetch of the next batch: the host waits for input. A DataPipe records only its fetches.
[[nodiscard]] constexpr bool is_data_loader_span(std::string_view name) {
  if (name.starts_with("enumerate(DataPipe)#")) return true;
  return name.starts_with("enumerate(DataLoader)#") && name.ends_with(".__next__");
}

}  // namespace stepscope
