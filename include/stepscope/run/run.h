// `stepscope run -- COMMAND`: what it takes to record a trace of an unmodified PyTorch program.
// The command runs with stepscope's start-up hook (a `sitecustomize` inside the installed Python
// package) first on PYTHONPATH and its settings in STEPSCOPE_RUN_* variables; each Python process
// that imports torch records a window of steps into the out folder (docs/run.md).
#pragma once

#include <ctime>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "stepscope/error.h"

namespace stepscope::run {

struct RunSettings {
  std::filesystem::path out;  // absolute: the child may change its directory
  int skip = 5;               // steps left out before the window (warm-up)
  int steps = 5;              // steps recorded
  std::string step_fn;        // "module:function": steps are its calls; "" found by the hooks
  double seconds = 0;         // > 0: a time window when no step is found
  bool stacks = false;        // with_stack
  bool stop_after_window = false;
  bool memory = false;  // the CUDA allocator's history, and a snapshot at an out-of-memory error
};

using EnvironmentEntries = std::vector<std::pair<std::string, std::string>>;

// Where the start-up hook sits: $STEPSCOPE_RUN_HOOK_DIR when set, else the `_run/startup` folder
// of the `stepscope` package as found by the command's own Python (see python_for_command). A
// kBadOption error says how to install the package.
Result<std::filesystem::path> find_hook_folder(const std::vector<std::string>& command);

// The interpreter that will run the command's Python: COMMAND itself when its name starts with
// "python", else the interpreter of its `#!` line when that names Python (torchrun, a console
// script), else "python3".
[[nodiscard]] std::string python_for_command(const std::vector<std::string>& command);

// PYTHONPATH with the hook first (`existing_pythonpath` kept after it) and the settings.
[[nodiscard]] EnvironmentEntries hook_environment(const RunSettings& settings,
                                                  const std::filesystem::path& hook_folder,
                                                  const char* existing_pythonpath);

// Sets `entries` in this process's environment, for the child it starts next to inherit.
Status export_environment(const EnvironmentEntries& entries);

// "stepscope-run-YYYYmmdd-HHMMSS" in local time.
[[nodiscard]] std::string default_out_folder_name(std::time_t now);

// What the recorders left in the out folder.
struct RunOutputs {
  std::vector<std::filesystem::path> traces;  // rank*.pt.trace.json.gz, sorted
  std::vector<std::string> notes;             // the contents of *.note.txt, sorted by file name
  // rank*.oom.pickle (--memory): CUDA memory snapshots taken at an out-of-memory error, sorted
  std::vector<std::filesystem::path> out_of_memory_snapshots;
};
[[nodiscard]] RunOutputs collect_outputs(const std::filesystem::path& out);

// The out folder, created; an error when it already holds traces (they would be analysed with
// the new ones).
Status prepare_out_folder(const std::filesystem::path& out);

}  // namespace stepscope::run
