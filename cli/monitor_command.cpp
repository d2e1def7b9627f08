#include "monitor_command.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <charconv>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common.h"
#include "stepscope/live/child_process.h"
#include "stepscope/live/monitor.h"
#include "stepscope/output_check.h"
#include "stepscope/report.h"

namespace stepscope::cli {

namespace {

struct MonitorArguments {
  std::string interval = "100ms";
  std::string json_output;  // the timeline as JSON; "" none
  std::string csv_output;   // the samples as CSV; "" none
  bool quiet = false;
  bool no_report = false;
  bool no_gpu = false;
  std::vector<std::string> command;
};

constexpr auto kStatusPeriod = std::chrono::milliseconds(500);

// "100ms", "0.5s", or a bare number of seconds.
std::optional<std::int64_t> parse_interval_ns(const std::string& text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || !std::isfinite(value) || value <= 0) return std::nullopt;
  const std::string_view unit(end, text.data() + text.size() - end);
  double scale = 0;
  if (unit == "ms") {
    scale = 1e6;
  } else if (unit == "s" || unit.empty()) {
    scale = 1e9;
  } else {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(std::llround(value * scale));
}

// CPU time of this whole process (sampling thread, waiting thread, start-up), in seconds.
double own_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Both outputs are attempted; false when either failed (reported already), so that a run whose
// command succeeded still exits non-zero when its record was lost.
bool write_outputs(const MonitorArguments& a, const live::Timeline& timeline,
                   const live::MonitorSummary& summary) {
  bool written = true;
  if (!a.json_output.empty()) {
    written &= write_output(a.json_output, live::render_timeline_json(timeline, summary));
  }
  if (!a.csv_output.empty()) {
    written &= write_output(a.csv_output, live::render_timeline_csv(timeline));
  }
  return written;
}

int run_monitor(const MonitorArguments& a) {
  const std::optional<std::int64_t> interval = parse_interval_ns(a.interval);
  if (!interval || *interval < 1'000'000) {
    return fail("--interval wants a duration of at least 1ms, e.g. 100ms or 0.5s");
  }
  // Outputs are checked before the run, not found unwritable after hours of training.
  if (Status s = check_output_paths({}, {{"-o", a.json_output}, {"--csv", a.csv_output}}); !s) {
    return fail(s.error().describe());
  }
  for (const std::string& output : {a.json_output, a.csv_output}) {
    if (Status s = probe_output_path(output); !s) return fail(s.error().describe());
  }
  Result<live::ChildProcess> child = live::ChildProcess::spawn(a.command);
  if (!child) {
    fail(child.error().message);
    return live::spawn_failure_status(child.error());
  }
  live::MonitorOptions options;
  options.interval_ns = *interval;
  options.sample_gpus = !a.no_gpu;
  Result<std::unique_ptr<live::Monitor>> monitor = live::Monitor::start(child->pid(), options);
  if (!monitor) {  // the command runs on unwatched: its exit status still matters most
    fmt::print(stderr, "stepscope: cannot monitor: {}\n", printable(monitor.error().describe()));
    return child->wait(kStatusPeriod, {});
  }
  live::Monitor& m = **monitor;
  if (!a.quiet && !m.gpu_status().empty() && !a.no_gpu) {
    fmt::print(stderr, "stepscope: no GPU figures: {}; sampling the CPU side only\n",
               printable(m.gpu_status()));
  }
  const bool live_status = !a.quiet && stderr_is_terminal();
  bool drawn = false;
  const int exit_status = child->wait(kStatusPeriod, [&] {
    if (!live_status) return;
    fmt::print(stderr, "\r\033[K{}", live::render_status_line(m.status()));
    std::fflush(stderr);
    drawn = true;
  });
  m.stop();
  if (drawn) fmt::print(stderr, "\r\033[K");
  live::Timeline timeline = m.timeline();
  timeline.command = a.command;
  timeline.exit_status = exit_status;
  timeline.monitor_cpu_seconds = own_cpu_seconds();
  const live::MonitorSummary summary = live::summarize(timeline);
  if (!a.no_report) {
    fmt::print(stderr, "\n{}exit status: {}\n", live::render_summary_text(summary), exit_status);
  }
  if (!write_outputs(a, timeline, summary) && exit_status == 0) return kExitBadInput;
  return exit_status;
}

}  // namespace

void register_monitor_command(CLI::App& app, int& exit_status) {
  auto a = std::make_shared<MonitorArguments>();
  CLI::App* command = app.add_subcommand(
      "monitor", "Run a command and watch its GPU and CPU use; say what bounds it");
  command->add_option("--interval", a->interval, "sampling interval, e.g. 100ms or 0.5s")
      ->capture_default_str();
  command->add_option("-o,--output", a->json_output, "write the timeline as JSON to FILE")
      ->type_name("FILE");
  command->add_option("--csv", a->csv_output, "write the samples as CSV to FILE")
      ->type_name("FILE");
  command->add_flag("--no-gpu", a->no_gpu, "do not load NVML; sample the CPU side only");
  add_quiet_flag(*command, a->quiet, "no live status and no NVML notice");
  add_no_report_flag(*command, a->no_report);
  command->add_option("COMMAND", a->command, "the command to run, after --")->required();
  command->footer(
      "Examples:\n"
      "  stepscope monitor -- python train.py --epochs 1\n"
      "  stepscope monitor --interval 0.5s -o timeline.json -- python train.py\n"
      "Exit status: the command's; 126 or 127 when it cannot be run; 2 when an output failed.");
  command->callback([a, &exit_status] { exit_status = run_monitor(*a); });
}

}  // namespace stepscope::cli
