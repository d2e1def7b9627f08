// stepscope._core: the Python boundary. Calls the library's analyze() and renderers, and turns an
// Error into stepscope.TraceError (a ValueError) whose message is Error::describe(). No logic of
// its own beyond checking arguments.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <unistd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "stepscope/live/monitor.h"
#include "stepscope/report.h"
#include "stepscope/snapshot_report.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// Carries an Error's description to Python as stepscope.TraceError.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Steps = std::optional<std::pair<std::int64_t, std::int64_t>>;

stepscope::AnalyzeRequest make_request(const std::string& path, const std::string& mode,
                                       std::optional<std::int64_t> rank, const Steps& steps,
                                       int top, bool skip_bad, int threads) {
  stepscope::AnalyzeRequest request;
  request.path = path;
  const std::optional<stepscope::Mode> parsed = stepscope::parse_mode(mode);
  if (!parsed) {
    throw nb::value_error(
        ("mode must be 'native', 'compat-hta' or 'compat-tb', not '" + mode + "'").c_str());
  }
  request.analysis.mode = *parsed;
  if (steps) {
    if (steps->first > steps->second) {
      throw nb::value_error("steps must be (first, last) with first <= last");
    }
    request.analysis.steps = stepscope::StepRange{steps->first, steps->second};
  }
  if (top < 1) throw nb::value_error("top must be at least 1");
  request.analysis.top = top;
  if (threads < 0 || threads > 2) {
    throw nb::value_error("threads must be 1, 2, or 0 (pick by input size)");
  }
  request.load.threads = static_cast<unsigned>(threads);
  request.load.skip_bad = skip_bad;
  request.load.rank = rank;
  return request;
}

// Runs the analysis without the GIL and renders with `render`.
template <typename Render>
auto run(const stepscope::AnalyzeRequest& request, Render render) {
  nb::gil_scoped_release release;
  stepscope::Result<stepscope::ReportPtr> report = stepscope::analyze(request);
  if (!report) throw TraceError(report.error().describe());
  return render(**report);
}

// Samples the calling process and its children on a C++ thread (which never takes the GIL)
// between start() and stop(); then renders the timeline and the summary.
class LiveMonitor {
 public:
  LiveMonitor(double interval_s, bool gpus) {
    if (!(interval_s >= 0.001 && interval_s <= 3600)) {
      throw nb::value_error("interval must be between 0.001 and 3600 seconds");
    }
    options_.interval_ns = static_cast<std::int64_t>(interval_s * 1e9);
    options_.sample_gpus = gpus;
  }

  void start() {
    if (monitor_) throw std::runtime_error("the monitor was already started");
    nb::gil_scoped_release release;  // loading NVML can take a while
    auto started = stepscope::live::Monitor::start(static_cast<std::int32_t>(::getpid()), options_);
    if (!started) throw std::runtime_error(started.error().describe());
    monitor_ = std::move(*started);
  }

  void stop() {
    if (!monitor_) throw std::runtime_error("the monitor was not started");
    if (stopped_) return;
    {
      nb::gil_scoped_release release;
      monitor_->stop();
    }
    timeline_ = monitor_->timeline();
    summary_ = stepscope::live::summarize(timeline_);
    stopped_ = true;
  }

  [[nodiscard]] std::string timeline_json() const {
    require_stopped();
    return stepscope::live::render_timeline_json(timeline_, summary_);
  }
  [[nodiscard]] std::string timeline_csv() const {
    require_stopped();
    return stepscope::live::render_timeline_csv(timeline_);
  }
  [[nodiscard]] std::string summary_text() const {
    require_stopped();
    return stepscope::live::render_summary_text(summary_);
  }
  [[nodiscard]] std::string status_line() const {
    if (!monitor_) return stepscope::live::render_status_line({});
    return stepscope::live::render_status_line(monitor_->status());
  }
  [[nodiscard]] std::string gpu_status() const {
    return monitor_ ? monitor_->gpu_status() : std::string();
  }

 private:
  void require_stopped() const {
    if (!stopped_) throw std::runtime_error("stop() the monitor first");
  }
  stepscope::live::MonitorOptions options_;
  std::unique_ptr<stepscope::live::Monitor> monitor_;
  bool stopped_ = false;
  stepscope::live::Timeline timeline_;
  stepscope::live::MonitorSummary summary_;
};

}  // namespace

void bind_job(nb::module_& m);          // job_bindings.cpp
void bind_memory_plan(nb::module_& m);  // plan_bindings.cpp

NB_MODULE(_core, m) {
  m.doc() = "stepscope's compiled core: load, analyse and render PyTorch profiler traces";
  nb::exception<TraceError>(m, "TraceError", PyExc_ValueError);
  bind_job(m);
  bind_memory_plan(m);

  m.def(
      "version", [] { return std::string(STEPSCOPE_VERSION); }, "The stepscope library version.");
  m.def(
      "json_schema_version", [] { return stepscope::kJsonSchemaVersion; },
      "Version of the JSON document analyze_json returns.");

  m.def(
      "analyze_json",
      [](const std::string& path, const std::string& mode, std::optional<std::int64_t> rank,
         const Steps& steps, int top, bool skip_bad, int threads) {
        const auto request = make_request(path, mode, rank, steps, top, skip_bad, threads);
        return run(request, [](const stepscope::Report& r) { return stepscope::render_json(r); });
      },
      "path"_a, "mode"_a = "native", "rank"_a = nb::none(), "steps"_a = nb::none(), "top"_a = 10,
      "skip_bad"_a = false, "threads"_a = 2,
      "Analyse a trace file or folder; the report as JSON text. Raises TraceError on bad input.");

  m.def(
      "analyze_text",
      [](const std::string& path, const std::string& mode, std::optional<std::int64_t> rank,
         const Steps& steps, int top, bool skip_bad, int threads) {
        const auto request = make_request(path, mode, rank, steps, top, skip_bad, threads);
        return run(request,
                   [top](const stepscope::Report& r) { return stepscope::render_text(r, top); });
      },
      "path"_a, "mode"_a = "native", "rank"_a = nb::none(), "steps"_a = nb::none(), "top"_a = 10,
      "skip_bad"_a = false, "threads"_a = 2,
      "Analyse a trace file or folder; the terminal report. Raises TraceError on bad input.");

  m.def(
      "analyze_both",
      [](const std::string& path, const std::string& mode, std::optional<std::int64_t> rank,
         const Steps& steps, int top, bool skip_bad, int threads) {
        const auto request = make_request(path, mode, rank, steps, top, skip_bad, threads);
        return run(request, [top](const stepscope::Report& r) {
          return std::make_pair(stepscope::render_json(r), stepscope::render_text(r, top));
        });
      },
      "path"_a, "mode"_a = "native", "rank"_a = nb::none(), "steps"_a = nb::none(), "top"_a = 10,
      "skip_bad"_a = false, "threads"_a = 2,
      "One analysis, both renderings: (JSON text, terminal report).");

  m.def(
      "analyze_html",
      [](const std::string& path, const std::string& mode, std::optional<std::int64_t> rank,
         const Steps& steps, int top, bool skip_bad, int threads) {
        const auto request = make_request(path, mode, rank, steps, top, skip_bad, threads);
        return run(request,
                   [top](const stepscope::Report& r) { return stepscope::render_html(r, top); });
      },
      "path"_a, "mode"_a = "native", "rank"_a = nb::none(), "steps"_a = nb::none(), "top"_a = 10,
      "skip_bad"_a = false, "threads"_a = 2,
      "Analyse a trace file or folder; the self-contained HTML report.");

  m.def(
      "memory_snapshot",
      [](const std::string& path, int top) {
        if (top < 1) throw nb::value_error("top must be at least 1");
        nb::gil_scoped_release release;
        stepscope::Result<stepscope::MemorySnapshot> snapshot =
            stepscope::load_memory_snapshot(path);
        if (!snapshot) throw TraceError(snapshot.error().describe());
        const stepscope::SnapshotReport report = stepscope::analyze_memory_snapshot(*snapshot, top);
        return std::make_pair(stepscope::render_snapshot_json(report, top),
                              stepscope::render_snapshot_text(report, top));
      },
      "path"_a, "top"_a = 10,
      "Read a CUDA memory snapshot (torch.cuda.memory._dump_snapshot()) without executing "
      "anything from it: (JSON text, terminal report). Raises TraceError on bad input.");

  nb::class_<LiveMonitor>(m, "LiveMonitor",
                          "Samples this process and its children (CPU, memory, GPUs) on a "
                          "background thread between start() and stop().")
      .def(nb::init<double, bool>(), "interval"_a = 0.1, "gpus"_a = true)
      .def("start", &LiveMonitor::start, "Start sampling.")
      .def("stop", &LiveMonitor::stop, "Stop sampling (idempotent).")
      .def("timeline_json", &LiveMonitor::timeline_json,
           "The timeline with its summary and verdict, as JSON text (schema stepscope.monitor).")
      .def("timeline_csv", &LiveMonitor::timeline_csv, "The samples as CSV text.")
      .def("summary_text", &LiveMonitor::summary_text, "The summary for a terminal.")
      .def("status_line", &LiveMonitor::status_line, "The latest figures on one line.")
      .def("gpu_status", &LiveMonitor::gpu_status,
           "Empty when NVML answered; otherwise why there are no GPU figures.");
}
