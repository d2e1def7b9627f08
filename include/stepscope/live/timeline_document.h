// A monitor timeline read back from its JSON document (schema "stepscope.monitor", written by
// render_timeline_json and described in docs/monitor.md), reduced to what `stepscope report`
// draws: the header, the summary's distributions and verdict, and one series per figure.
//
//   if (live::is_timeline_document(path)) {
//     Result<live::MonitorTimelineDocument> doc = live::read_timeline_document(path);
//     if (doc) write_output_file(out, live::render_monitor_html(*doc));
//   }
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stepscope/error.h"
#include "stepscope/live/monitor.h"

namespace stepscope::live {

// One GPU's series, aligned with MonitorTimelineDocument::time_us; NaN where the sample did not
// report the figure (or did not list the GPU).
struct GpuSeries {
  std::uint32_t index = 0;
  std::string name;
  std::vector<double> utilization_share;
  std::vector<double> memory_utilization_share;
  std::vector<double> memory_used_share;  // used / total bytes
};

// A process of the monitored tree, as first seen in the samples.
struct TimelineProcess {
  std::int32_t pid = 0;
  std::string name;
  bool is_root = false;
};

// The verdict as written: plain text, `bottleneck` as its name.
struct TimelineVerdict {
  std::string bottleneck;
  std::string id;
  std::string headline;
  std::vector<std::string> reasons;
  std::string next_step;
};

struct MonitorTimelineDocument {
  // Header.
  std::vector<std::string> command;
  double duration_s = 0;
  double requested_interval_s = 0;
  std::int32_t cpu_count = 0;
  std::uint64_t machine_memory_total_bytes = 0;
  std::optional<std::int32_t> exit_status;
  std::string gpu_status;  // empty when NVML answered
  std::vector<GpuInfo> gpus;
  std::int64_t samples_taken = 0;
  std::int64_t sample_stride = 1;
  // Summary: the distributions by their names in the document, in its order, and the verdict.
  std::vector<std::pair<std::string, Distribution>> distributions;
  TimelineVerdict verdict;
  // Series, one value per sample.
  std::vector<double> time_us;
  std::vector<double> main_cpu_cores;     // the process with `root: true`; 0 once it is gone
  std::vector<double> workers_cpu_cores;  // the other processes, summed
  std::vector<double> machine_cpu_share;
  std::vector<double> tree_rss_bytes;      // all processes, summed
  std::vector<GpuSeries> gpu_series;       // one per GPU, in the order of `gpus`
  std::vector<TimelineProcess> processes;  // distinct pids, the first 1000

  // The distribution named `name`, or nullptr.
  [[nodiscard]] const Distribution* distribution(std::string_view name) const&;
  const Distribution* distribution(std::string_view name) && = delete;  // would dangle
};

// True when `path` is a `.json` file whose top-level "schema" (looked for in its first few
// kilobytes) is "stepscope.monitor". False for anything else, unreadable files included.
[[nodiscard]] bool is_timeline_document(const std::string& path);

// Parses a timeline document. Errors name `file` and, where known, the byte offset.
[[nodiscard]] Result<MonitorTimelineDocument> parse_timeline_document(std::string_view json,
                                                                      const std::string& file);
[[nodiscard]] Result<MonitorTimelineDocument> read_timeline_document(const std::string& path);

// The self-contained HTML page of a timeline: the verdict, the distributions, charts over time.
[[nodiscard]] std::string render_monitor_html(const MonitorTimelineDocument& document);

}  // namespace stepscope::live
