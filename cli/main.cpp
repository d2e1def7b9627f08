// The stepscope command: each subcommand registers its options and a callback; main parses and
// maps what escapes to an exit status (cli/common.h). The library does the work.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <system_error>

#include "allocator.h"
#include "analyze_command.h"
#include "common.h"
#include "diff_command.h"
#include "memory_command.h"
#include "merge_command.h"
#include "monitor_command.h"
#include "plan_command.h"
#include "report_command.h"
#include "rules_command.h"
#include "run_command.h"
#include "scaling_command.h"
#include "summarize_command.h"
#include "whatif_command.h"

namespace {

bool is_output_failure(const std::error_code& code) {
  return code == std::errc::bad_file_descriptor || code == std::errc::broken_pipe ||
         code == std::errc::no_space_on_device || code == std::errc::io_error ||
         code == std::errc::file_too_large;
}

int run(int argc, char** argv) {
  namespace cli = stepscope::cli;
  cli::bound_allocator_caching();
  CLI::App app{"stepscope: a performance doctor for PyTorch traces and Nsight exports",
               "stepscope"};
  app.set_version_flag("--version", std::string("stepscope ") + STEPSCOPE_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  stepscope analyze trace.json.gz\n"
      "  stepscope report traces/ -o report.html\n"
      "  stepscope diff before.json.gz after.json.gz\n"
      "Run `stepscope COMMAND --help` for a command's options.\n"
      "Exit status: 0 done, 1 internal error, 2 bad input or usage, 3 `diff --fail-if-slower`.");
  int exit_status = cli::kExitBadInput;  // set by the chosen subcommand's callback
  cli::register_analyze_command(app, exit_status);
  cli::register_diff_command(app, exit_status);
  cli::register_memory_command(app, exit_status);
  cli::register_plan_command(app, exit_status);
  cli::register_report_command(app, exit_status);
  cli::register_rules_command(app, exit_status);
  cli::register_monitor_command(app, exit_status);
  cli::register_run_command(app, exit_status);
  cli::register_whatif_command(app, exit_status);
  cli::register_summarize_command(app, exit_status);
  cli::register_merge_command(app, exit_status);
  cli::register_scaling_command(app, exit_status);
  try {
    app.parse(argc, argv);  // runs the chosen subcommand's callback
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    app.exit(e);
    // `stepscope monitor python train.py --epochs 3` reads --epochs as its own option.
    if (app.got_subcommand("monitor")) {
      fmt::print(stderr, "Put `--` before the command: stepscope monitor [OPTIONS] -- COMMAND\n");
    }
    if (app.got_subcommand("run")) {
      fmt::print(stderr, "Put `--` before the command: stepscope run [OPTIONS] -- COMMAND\n");
    }
    return cli::kExitBadInput;
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return cli::kExitBadInput;
  } catch (const std::system_error& e) {
    // Standard output closed (`>&-`), a full disk or a failing device while printing: the
    // user's redirection, not a fault of stepscope.
    if (is_output_failure(e.code())) {
      fmt::print(stderr, "stepscope: cannot write the output: {}\n",
                 cli::printable(e.code().message()));
      return cli::kExitBadInput;
    }
    fmt::print(stderr, "stepscope: internal error: {}\n", cli::printable(e.what()));
    return cli::kExitInternal;
  } catch (const std::exception& e) {
    fmt::print(stderr, "stepscope: internal error: {}\n", cli::printable(e.what()));
    return cli::kExitInternal;
  }
  return exit_status;
}

}  // namespace

int main(int argc, char** argv) {
  // What escapes run(): a failure while building the command line or while reporting an error.
  try {
    const int status = run(argc, argv);
    // Short outputs sit in stdio's buffer until exit, where a failed write would go unseen. A
    // failed run has said what went wrong already.
    const bool written = std::fflush(stdout) == 0 && std::ferror(stdout) == 0;
    if (!written && status == stepscope::cli::kExitOk) {
      std::fputs("stepscope: cannot write the output to standard output\n", stderr);
      return stepscope::cli::kExitBadInput;
    }
    return status;
  } catch (...) {
    std::fputs("stepscope: internal error while starting or reporting\n", stderr);
    return stepscope::cli::kExitInternal;
  }
}
