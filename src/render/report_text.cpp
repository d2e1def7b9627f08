// The compact terminal report of `stepscope analyze`.
#include <fmt/format.h>

#include <algorithm>

#include "diagnosis/host_timeline.h"
#include "render/dropped_data.h"
#include "render/terminal/collective_bandwidth_text.h"
#include "render/terminal/compute_efficiency_text.h"
#include "render/terminal/critical_path_text.h"
#include "render/terminal/diagnosis_text.h"
#include "render/terminal/gpu_metrics_text.h"
#include "render/terminal/gpu_temporal_text.h"
#include "render/terminal/hta_text.h"
#include "render/terminal/idle_time_text.h"
#include "render/terminal/kernel_breakdown_text.h"
#include "render/terminal/launches_text.h"
#include "render/terminal/memory_text.h"
#include "render/terminal/module_view_text.h"
#include "render/terminal/operators_text.h"
#include "render/terminal/phases_text.h"
#include "render/terminal/queue_length_text.h"
#include "render/terminal/step_breakdown_text.h"
#include "render/terminal/steps_text.h"
#include "render/text_format.h"
#include "report/report_model.h"
#include "stepscope/analysis/data_loading.h"
#include "stepscope/job/job_report.h"

namespace stepscope {

namespace {

using render::format_bytes;
using render::format_count;
using render::printable;

// Where the rank number came from, in words a reader needs no glossary for.
std::string_view rank_origin(RankSource source) {
  switch (source) {
    case RankSource::kDistributedInfo:
      return "from the trace's distributedInfo";
    case RankSource::kFileName:
      return "from the file name";
    case RankSource::kFileOrder:
      return "from the file order in the folder";
    case RankSource::kDefaultZero:
      return "no rank in the trace";
  }
  return "origin unknown";
}

std::string rank_header(const RankReport& rank, std::size_t width) {
  const Trace& trace = *rank.analyses.trace;
  std::string device;
  if (!trace.devices.empty()) {
    device =
        fmt::format(", {} × {}", trace.devices.size(), printable(trace.devices.front().name, 40));
  }
  std::string producer;
  if (trace.origin.format == TraceFormat::kNsightSqlite && !trace.origin.producer.empty()) {
    producer = fmt::format(" · {}", printable(trace.origin.producer, 80));
  }
  std::string out = "\n";
  out += render::wrap_hanging(
      "━━ ",
      fmt::format("rank {} ({}) · {}{} · {} events, {} input, {:.0f} B/event in memory{}",
                  trace.rank, rank_origin(trace.rank_source), printable(trace.source_path, 80),
                  producer, format_count(trace.stats.events_seen),
                  format_bytes(static_cast<std::int64_t>(trace.stats.input_bytes)),
                  static_cast<double>(trace.bytes()) /
                      static_cast<double>(std::max<std::uint64_t>(trace.stats.events_seen, 1)),
                  device),
      width, 3);
  return out;
}

std::string skipped_events(const Trace& trace) {
  std::string out;
  for (const std::string& line : render::dropped_events(trace)) out += "  " + line + "\n";
  return out;
}

// Whether any name in the trace is a DataLoader span (the strings, not the events: far fewer).
bool names_data_loading(const Trace& trace) {
  for (StringId id = 0; id < trace.strings.size(); ++id) {
    if (is_data_loader_span(trace.strings.view(id))) return true;
  }
  return false;
}

// What an Nsight Systems export does not hold, each with how to record it.
std::vector<std::string> not_in_nsight_export(const RankAnalyses& a) {
  std::vector<std::string> missing;
  if (is_cpu_only(*a.trace)) {
    missing.emplace_back("GPU kernels, copies and communication (nsys profile --trace=cuda,nvtx)");
  }
  if (!a.modules.applicable) {
    missing.emplace_back(
        "modules and file:line (Nsight exports have none: a PyTorch profiler trace with "
        "with_stack=True)");
  }
  if (!a.compute_efficiency.applicable && !a.steps.kept().empty()) {
    missing.emplace_back(
        "FLOPs and op shapes (torch.autograd.profiler.emit_nvtx(record_shapes=True))");
  }
  if (!names_data_loading(*a.trace)) {
    missing.emplace_back("DataLoader waits (an NVTX range named data_loading around each fetch)");
  }
  if (!a.memory.applicable) missing.emplace_back("memory (nsys profile --cuda-memory-usage=true)");
  return missing;
}

// What the trace does not hold, each with how to record it: one line instead of empty sections.
std::string not_in_trace(const RankAnalyses& a, std::size_t width) {
  std::vector<std::string> missing;
  if (a.trace->origin.format == TraceFormat::kNsightSqlite) {
    missing = not_in_nsight_export(a);
  } else {
    if (is_cpu_only(*a.trace)) {
      missing.emplace_back(
          "GPU kernels, copies and communication (profile with ProfilerActivity.CUDA)");
    }
    if (!a.modules.applicable) missing.emplace_back("modules and file:line (with_stack=True)");
    if (!a.compute_efficiency.applicable && !a.steps.kept().empty()) {
      missing.emplace_back("FLOPs (record_shapes=True or with_flops=True)");
    }
    if (!a.memory.applicable) missing.emplace_back("memory (profile_memory=True)");
  }
  if (missing.empty()) return {};
  std::string list;
  for (const std::string& item : missing) {
    if (!list.empty()) list += "; ";
    list += item;
  }
  std::string out = "\n";
  out += render::wrap_hanging("not in this trace: ", list, width, 2);
  return out;
}

}  // namespace

std::string render_rank_text(const RankReport& rank, int top, std::size_t width) {
  const RankAnalyses& a = rank.analyses;
  std::string out = rank_header(rank, width);
  out += skipped_events(*a.trace);
  out += render::render_text(rank.diagnosis, top, width);
  out += render::render_text(a.steps, a.step_time, top, width);
  // A section with nothing to say is left out: the steps section already says when no step
  // is kept, and not_in_trace says what else the trace lacks and how to record it.
  if (a.step_breakdown.applicable) out += render::render_text(a.step_breakdown, top, width);
  if (a.phases.applicable) out += render::render_text(a.phases, top, width);
  if (a.critical_path.applicable) {
    out += render::render_text(a.critical_path, "Critical path", top, width);
  }
  const bool gpu = !is_cpu_only(*a.trace);
  if (gpu && a.gpu_temporal.applicable) out += render::render_text(a.gpu_temporal, top, width);
  if (gpu && a.kernels.applicable) out += render::render_text(a.kernels, top, width);
  if (gpu && a.idle.applicable) out += render::render_text(a.idle, top, width);
  if (a.bandwidth.applicable) out += render::render_text(a.bandwidth, top, width);
  if (a.operators.applicable) out += render::render_text(a.operators, top, width);
  out += render::render_text(a.compute_efficiency, top, width);
  if (a.modules.applicable) out += render::render_text(a.modules, top, width);
  if (gpu && a.launches.applicable) out += render::render_text(a.launches, top, width);
  if (gpu && a.queue_length.applicable) out += render::render_text(a.queue_length, top, width);
  if (gpu && a.gpu_metrics.applicable) out += render::render_text(a.gpu_metrics, top, width);
  out += render::render_text(*a.trace, a.memory, top, width);
  out += not_in_trace(a, width);
  return render::fit_lines(out, width);
}

std::string render_text(const Report& report, int top) {
  return render_text(report, TextOptions{top, render::kDefaultTextWidth});
}

std::string render_text(const Report& report, const TextOptions& options) {
  const std::size_t width = std::max(options.width, render::kMinimumTextWidth);
  const int top = options.top;
  std::string out = render::wrap_hanging(
      "",
      fmt::format("stepscope {} · {} · mode {}", STEPSCOPE_VERSION,
                  printable(report.request.path, 100), to_string(report.request.analysis.mode)),
      width, 2);
  for (const SkippedFile& skipped : report.traces.skipped) {
    out += render::wrap_hanging("skipped: ", printable(skipped.reason, 200), width, 9);
  }
  for (const std::string& note : report.traces.notes) {
    out += render::wrap_hanging("note: ", printable(note, 200), width, 6);
  }
  if (report.hta) out += render::render_text(*report.hta, top, width);
  if (report.job) {
    out += job::render_job_text(*report.job, options);
    // The job answers for a folder; each rank's full report only on request.
    if (!report.request.per_rank) return render::fit_lines(out, width);
  }
  for (const RankReport& rank : report.ranks) out += render_rank_text(rank, top, width);
  // A streamed folder's ranks were rendered before their traces were dropped.
  for (const RenderedRank& rank : report.rendered) out += rank.text;
  // The last guarantee: a line the sections could not lay out (a figure line on a narrow
  // terminal) is wrapped rather than left to overflow.
  return render::fit_lines(out, width);
}

}  // namespace stepscope
