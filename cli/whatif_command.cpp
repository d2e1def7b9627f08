#include "whatif_command.h"

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyze_command.h"
#include "common.h"
#include "stepscope/output_check.h"
#include "stepscope/report.h"
#include "terminal_width.h"

namespace stepscope::cli {

namespace {

struct WhatIfArguments {
  std::string path;
  AnalysisArguments analysis;
  std::optional<double> loader_left;
  bool no_syncs = false;
  std::optional<double> launch_us;
  std::vector<std::string> ops;
  std::vector<std::string> kernels;
  bool tensor_cores = false;
  int top = 10;
  std::size_t width = 0;  // --width; 0: ask the terminal
  std::string json_output;
  bool quiet = false;
};

Result<WhatIfChange> change_of(const WhatIfArguments& a) {
  WhatIfChange change;
  change.loader_left = a.loader_left.value_or(1.0);
  change.no_syncs = a.no_syncs;
  if (a.launch_us) change.launch_ns = static_cast<std::int64_t>(*a.launch_us * 1e3);
  for (const std::string& text : a.ops) {
    Result<OpSpeedup> op = parse_op_speedup(text);
    if (!op) return op.error();
    change.ops.push_back(std::move(op).value());
  }
  for (const std::string& text : a.kernels) {
    Result<KernelSpeedup> kernel = parse_kernel_speedup(text);
    if (!kernel) return kernel.error();
    change.kernels.push_back(*kernel);
  }
  change.tensor_cores = a.tensor_cores;
  if (change.empty()) {
    return make_error(ErrorKind::kBadOption,
                      "nothing to change: give --loader, --no-syncs, --launch-us, --op, --kernels "
                      "or --tensor-cores");
  }
  return change;
}

int run_whatif(const WhatIfArguments& a) {
  Result<WhatIfChange> change = change_of(a);
  if (!change) return fail(change.error());
  if (Status s = check_output_paths({a.path}, {{"--json", a.json_output}}); !s) {
    return fail(s.error());
  }
  const std::size_t width = report_width(a.width);
  ReportPtr report =
      analyze_with_progress(a.path, a.analysis, FolderReportArguments{}, a.top, a.quiet, width);
  if (!report) return kExitBadInput;
  Result<WhatIfResult> result = report_what_if(*report, *change, a.top);
  if (!result) return fail(result.error());
  if (!a.json_output.empty() && !write_output(a.json_output, render_what_if_json(*result))) {
    return kExitBadInput;
  }
  if (a.json_output != "-")
    fmt::print("{}", render_what_if_text(*result, TextOptions{a.top, width}));
  return kExitOk;
}

}  // namespace

void register_whatif_command(CLI::App& app, int& exit_status) {
  auto a = std::make_shared<WhatIfArguments>();
  CLI::App* command = app.add_subcommand(
      "whatif", "Predict a fix's step time from a trace, with the critical path");
  command->add_option("PATH", a->path, "trace file, or a folder with --rank")->required();
  add_analysis_options(*command, a->analysis);
  command
      ->add_option("--loader", a->loader_left,
                   "share of the data-loading wait left (0: batches ready at once)")
      ->type_name("SHARE")
      ->check(CLI::Range(0.0, 1.0));
  command->add_flag("--no-syncs", a->no_syncs,
                    "blocking calls (synchronize, .item()) stop waiting for the GPU");
  command
      ->add_option("--launch-us", a->launch_us,
                   "each launch call costs at most this many µs (CUDA graphs: about 2)")
      ->type_name("US")
      ->check(CLI::Range(0.0, 1e9));
  command
      ->add_option("--op", a->ops,
                   "an op N times faster, host time and the GPU work it owns (repeatable)")
      ->type_name("OP=Nx");
  command
      ->add_option("--kernels", a->kernels,
                   "a kernel group N times faster (fp32-matmul, communication)")
      ->type_name("GROUP=Nx");
  command->add_flag("--tensor-cores", a->tensor_cores,
                    "fp32 matmuls on tensor cores (the GPU's bf16 peak, autocast's casts)");
  add_top_option(*command, a->top);
  add_width_option(*command, a->width);
  add_json_option(*command, a->json_output, "the prediction and both paths");
  add_quiet_flag(*command, a->quiet, "no progress bar");
  command->footer(
      "Examples:\n"
      "  stepscope whatif trace.json.gz --loader 0\n"
      "  stepscope whatif trace.json.gz --no-syncs --launch-us 2\n"
      "  stepscope whatif trace.json.gz --op aten::mm=2x --json whatif.json\n"
      "  stepscope whatif trace.json.gz --tensor-cores\n"
      "  stepscope whatif trace.json.gz --kernels communication=2x");
  command->callback([a, &exit_status] { exit_status = run_whatif(*a); });
}

}  // namespace stepscope::cli
