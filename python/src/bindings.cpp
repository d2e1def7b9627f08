// stepscope._core: the Python boundary. Analyses and comparisons are held as library objects
// (native_report.h, native_diff.h); an Error becomes the TraceError subclass of its kind
// (errors.h), whose message is Error::describe(). No logic of its own beyond checking arguments.
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

#include "errors.h"
#include "native_diff.h"
#include "native_report.h"
#include "stepscope/live/monitor.h"
#include "stepscope/report.h"
#include "stepscope/snapshot_report.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

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
void bind_output(nb::module_& m);       // output.cpp

NB_MODULE(_core, m) {
  m.doc() = "stepscope's compiled core: load, analyse and render PyTorch profiler traces";
  stepscope_python::bind_errors(m);
  stepscope_python::bind_native_report(m);
  stepscope_python::bind_native_diff(m);
  bind_output(m);
  bind_job(m);
  bind_memory_plan(m);

  m.def(
      "version", [] { return std::string(STEPSCOPE_VERSION); }, "The stepscope library version.");
  m.def(
      "json_schema_version", [] { return stepscope::kJsonSchemaVersion; },
      "Version of the JSON document NativeReport.to_json returns.");

  m.def(
      "memory_snapshot",
      [](const std::string& path, int top) {
        if (top < 1) stepscope_python::raise_bad_option("top must be at least 1");
        nb::gil_scoped_release release;
        const stepscope::MemorySnapshot snapshot =
            stepscope_python::value_or_raise(stepscope::load_memory_snapshot(path));
        const stepscope::SnapshotReport report = stepscope::analyze_memory_snapshot(snapshot, top);
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
