#include "support/shared_traces.h"

#include <cstdlib>
#include <filesystem>

namespace stepscope::testing {

std::string shared_traces_dir() {
  if (const char* overridden = std::getenv("STEPSCOPE_SHARED_TRACES")) return overridden;
  return STEPSCOPE_SHARED_TRACES;
}

bool shared_traces_present() { return std::filesystem::is_directory(shared_traces_dir() + "/hta"); }

TraceSet load_shared(const std::string& relative) {
  Result<TraceSet> set = load_traces(shared_traces_dir() + "/" + relative);
  if (!set) {
    ADD_FAILURE() << "could not load " << relative << ": " << set.error().describe();
    return {};
  }
  return std::move(set).value();
}

}  // namespace stepscope::testing
