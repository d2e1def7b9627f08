#include "plan_command.h"

#include <fmt/format.h>

#include <memory>
#include <string>

#include "common.h"
#include "stepscope/memory/plan.h"
#include "stepscope/memory/plan_document.h"
#include "stepscope/output_check.h"

namespace stepscope::cli {

namespace {

struct PlanArguments {
  std::string path;
  std::string json_output;  // "" none, "-" stdout
  int shards = 1;
  double margin = 0.10;
  std::int64_t effective_batch = 0;  // 0: the measured batch
  double link_gbps = memory::kDefaultLinkGBps;
  bool no_report = false;
};

int run_plan(const PlanArguments& a) {
  if (Status s = check_output_paths({a.path}, {{"--json", a.json_output}}); !s)
    return fail(s.error());
  Result<memory::PlanMeasurement> measured = memory::read_plan_measurement(a.path);
  if (!measured) return fail(measured.error());
  measured->shards = a.shards;
  measured->safety_margin = a.margin;
  measured->effective_batch = a.effective_batch;
  measured->link_gbps = a.link_gbps;
  Result<memory::MemoryPlan> plan = memory::plan_memory(*measured);
  if (!plan) return fail(plan.error());
  if (!a.json_output.empty() && !write_output(a.json_output, memory::render_plan_json(*plan))) {
    return kExitBadInput;
  }
  if (!a.no_report && a.json_output != "-") fmt::print("{}", memory::render_plan_text(*plan));
  return kExitOk;
}

}  // namespace

void register_plan_command(CLI::App& app, int& exit_status) {
  auto a = std::make_shared<PlanArguments>();
  CLI::App* command = app.add_subcommand(
      "plan", "Memory plan from a measurement saved by stepscope.torch.memory_plan");
  command->add_option("MEASUREMENT", a->path, "measurement JSON file")->required();
  command->add_option("--shards", a->shards, "GPUs for the ZeRO / FSDP rows (1: none)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  command->add_option("--margin", a->margin, "share of the capacity kept free, in [0, 1)")
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  command
      ->add_option("--batch", a->effective_batch,
                   "effective batch to accumulate (default: the larger one measured)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  command
      ->add_option("--link-gbps", a->link_gbps,
                   "GPU link bus bandwidth, GB/s (nccl-tests busbw), for ZeRO / FSDP costs")
      ->check(CLI::Range(0.001, 1e6))
      ->capture_default_str();
  add_json_option(*command, a->json_output, "the plan");
  add_no_report_flag(*command, a->no_report);
  command->footer(
      "Every figure is an estimate from the measurement (docs/memory-plan.md).\n"
      "Examples:\n"
      "  stepscope plan measurement.json\n"
      "  stepscope plan measurement.json --shards 8 --batch 256 --json plan.json");
  command->callback([a, &exit_status] { exit_status = run_plan(*a); });
}

}  // namespace stepscope::cli
