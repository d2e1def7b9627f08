#include "run_command.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyze_command.h"
#include "common.h"
#include "stepscope/live/child_process.h"
#include "stepscope/report.h"
#include "stepscope/run/run.h"
#include "stepscope/snapshot_report.h"
#include "terminal_width.h"

namespace stepscope::cli {

namespace {

namespace fs = std::filesystem;

struct RunArguments {
  std::string out;  // "" a new stepscope-run-YYYYmmdd-HHMMSS in the working directory
  int skip = 5;
  int steps = 5;
  std::string step_fn;
  double seconds = 0;
  bool stacks = false;
  bool stop_after_window = false;
  bool memory = false;
  bool quiet = false;
  std::vector<std::string> command;
};

constexpr auto kWaitTick = std::chrono::milliseconds(500);
constexpr int kTop = 10;

std::optional<std::string> check_arguments(const RunArguments& a) {
  if (a.skip < 0) return "--skip wants 0 or more steps";
  if (a.steps < 1) return "--steps wants 1 or more steps";
  if (a.seconds < 0) return "--seconds wants a duration of 0 or more seconds";
  if (!a.step_fn.empty()) {
    const std::size_t colon = a.step_fn.find(':');
    if (colon == 0 || colon == std::string::npos || colon + 1 == a.step_fn.size()) {
      return "--step-fn wants module:function, e.g. train:train_step or __main__:step";
    }
  }
  return std::nullopt;
}

run::RunSettings settings_from(const RunArguments& a, const fs::path& out) {
  run::RunSettings settings;
  settings.out = out;
  settings.skip = a.skip;
  settings.steps = a.steps;
  settings.step_fn = a.step_fn;
  settings.seconds = a.seconds;
  settings.stacks = a.stacks;
  settings.stop_after_window = a.stop_after_window;
  settings.memory = a.memory;
  return settings;
}

// The diagnosis as `stepscope analyze` prints it, and report.html beside the traces: of the one
// trace when there is one (its full report), else of the folder (the job, then its ranks).
void diagnose(const fs::path& out, const run::RunOutputs& outputs, bool quiet) {
  const std::size_t width = report_width(0);
  const fs::path input = outputs.traces.size() == 1 ? outputs.traces.front() : out;
  ReportPtr report = analyze_with_progress(input.string(), AnalysisArguments{},
                                           FolderReportArguments{}, kTop, quiet, width);
  if (!report) return;  // the error is printed; the command's status still stands
  fmt::print("{}", render_text(*report, TextOptions{kTop, width}));
  std::fflush(stdout);
  const fs::path html = out / "report.html";
  if (write_output(html.string(), render_html(*report, kTop)) && !quiet) {
    fmt::print(stderr, "stepscope run: wrote {}\n", printable(html.string()));
  }
}

// --memory: each out-of-memory snapshot diagnosed as `stepscope memory` does.
void diagnose_out_of_memory(const std::vector<fs::path>& snapshots) {
  const std::size_t width = report_width(0);
  for (const fs::path& path : snapshots) {
    fmt::print("\nOut of CUDA memory: the allocator's state at the error ({})\n",
               printable(path.string()));
    Result<MemorySnapshot> snapshot = load_memory_snapshot(path.string(), {});
    if (!snapshot) {
      fail(snapshot.error());
      continue;
    }
    const SnapshotReport report = analyze_memory_snapshot(*snapshot, kTop);
    fmt::print("{}", render_snapshot_text(report, TextOptions{kTop, width}));
  }
  std::fflush(stdout);
}

void report_outputs(const fs::path& out, bool quiet) {
  const run::RunOutputs outputs = run::collect_outputs(out);
  for (const std::string& note : outputs.notes) {
    fmt::print(stderr, "stepscope run: note: {}\n", printable(note));
  }
  diagnose_out_of_memory(outputs.out_of_memory_snapshots);
  if (outputs.traces.empty()) {
    if (outputs.notes.empty()) {
      fmt::print(stderr,
                 "stepscope run: no trace was written: no process imported torch and ran past "
                 "--skip steps (optimizer steps, model forwards or --step-fn calls); try --skip 0, "
                 "--step-fn or --seconds\n");
    }
    return;
  }
  diagnose(out, outputs, quiet);
}

int run_run(const RunArguments& a) {
  if (const auto problem = check_arguments(a)) return fail(*problem);
  const fs::path out = fs::absolute(
      a.out.empty() ? fs::path(run::default_out_folder_name(std::time(nullptr))) : fs::path(a.out));
  if (Status s = run::prepare_out_folder(out); !s) return fail(s.error());
  Result<fs::path> hook = run::find_hook_folder(a.command);
  if (!hook) return fail(hook.error());
  const run::RunSettings settings = settings_from(a, out);
  if (Status s = run::export_environment(
          run::hook_environment(settings, *hook, std::getenv("PYTHONPATH")));
      !s) {
    return fail(s.error());
  }
  if (!a.quiet) fmt::print(stderr, "stepscope run: traces go to {}\n", printable(out.string()));
  int exit_status = 0;
  {
    Result<live::ChildProcess> child = live::ChildProcess::spawn(a.command);
    if (!child) {
      fail(child.error().message);
      return live::spawn_failure_status(child.error());
    }
    exit_status = child->wait(kWaitTick, {});
  }  // the child's signal handling ends here: a Ctrl-C during the analysis stops stepscope
  report_outputs(out, a.quiet);
  return exit_status;
}

}  // namespace

void register_run_command(CLI::App& app, int& exit_status) {
  auto a = std::make_shared<RunArguments>();
  CLI::App* command =
      app.add_subcommand("run", "Run a PyTorch program unchanged; record and diagnose a few steps");
  command
      ->add_option("--out", a->out,
                   "traces and report.html (default: new stepscope-run-DATE-TIME here)")
      ->type_name("DIR");
  command->add_option("--skip", a->skip, "steps left out before recording (warm-up)")
      ->capture_default_str();
  command->add_option("--steps", a->steps, "steps recorded")->capture_default_str();
  command
      ->add_option("--step-fn", a->step_fn,
                   "its calls are the steps (default: optimizer steps, else forwards)")
      ->type_name("MODULE:FUNCTION");
  command
      ->add_option("--seconds", a->seconds,
                   "no step S s after torch is imported: record the next S seconds")
      ->type_name("S");
  command->add_flag("--stacks", a->stacks, "record Python stacks (with_stack; more overhead)");
  command->add_flag("--stop-after-window", a->stop_after_window,
                    "end the program (status 0) once its window is written");
  command->add_flag("--memory", a->memory,
                    "CUDA: allocator history; diagnose an out-of-memory error");
  add_quiet_flag(*command, a->quiet, "no progress and no notices");
  command->add_option("COMMAND", a->command, "the command to run, after --")->required();
  command->footer(
      "Examples:\n"
      "  stepscope run -- python train.py --epochs 1\n"
      "  stepscope run --out traces --skip 10 --steps 3 -- torchrun --nproc-per-node 2 train.py\n"
      "  stepscope run --step-fn __main__:generate -- python serve.py\n"
      "Exit status: the command's; 126 or 127 when it cannot be run;\n"
      "2 when stepscope fails before starting it.\n"
      "Off: STEPSCOPE_RUN_DISABLE=1 runs the command without recording.");
  command->callback([a, &exit_status] { exit_status = run_run(*a); });
}

}  // namespace stepscope::cli
