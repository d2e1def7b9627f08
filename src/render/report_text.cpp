// The compact terminal report of `stepscope analyze`.
#include <fmt/format.h>

#include "diagnosis/host_timeline.h"
#include "render/terminal/collective_bandwidth_text.h"
#include "render/terminal/compute_efficiency_text.h"
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
#include "stepscope/job/job_report.h"

namespace stepscope {

namespace {

using render::format_bytes;
using render::format_count;
using render::printable;

std::string rank_header(const RankReport& rank) {
  const Trace& trace = *rank.analyses.trace;
  std::string device;
  if (!trace.devices.empty()) {
    device =
        fmt::format(", {} × {}", trace.devices.size(), printable(trace.devices.front().name, 40));
  }
  return fmt::format(
      "\n━━ rank {} (from {}) · {} · {} events, {} input, {:.0f} B/event in memory{}\n", trace.rank,
      to_string(trace.rank_source), printable(trace.source_path, 80),
      format_count(trace.stats.events_seen),
      format_bytes(static_cast<std::int64_t>(trace.stats.input_bytes)),
      static_cast<double>(trace.bytes()) /
          static_cast<double>(std::max<std::uint64_t>(trace.stats.events_seen, 1)),
      device);
}

std::string skipped_events(const Trace& trace) {
  const ImportStats& s = trace.stats;
  std::string out;
  if (s.invalid_complete_events > 0) {
    out += fmt::format("  skipped {} complete events without ts/dur or with dur < 0\n",
                       format_count(s.invalid_complete_events));
  }
  if (s.unmatched_begin_end > 0) {
    out += fmt::format("  skipped {} unmatched B/E events\n", format_count(s.unmatched_begin_end));
  }
  return out;
}

}  // namespace

std::string render_text(const Report& report, int top) {
  std::string out =
      fmt::format("stepscope {} · {} · mode {}\n", STEPSCOPE_VERSION,
                  printable(report.request.path, 100), to_string(report.request.analysis.mode));
  for (const SkippedFile& skipped : report.traces.skipped) {
    out += "skipped: " + printable(skipped.reason, 200) + "\n";
  }
  for (const std::string& note : report.traces.notes) out += "note: " + printable(note, 200) + "\n";
  if (report.hta) out += render::render_text(*report.hta, top);
  if (report.job) {
    out += job::render_job_text(*report.job, top);
    // The job answers for a folder; each rank's full report only on request.
    if (!report.request.per_rank) return out;
  }
  for (const RankReport& rank : report.ranks) out += render_rank_text(rank, top);
  // A streamed folder's ranks were rendered before their traces were dropped.
  for (const RenderedRank& rank : report.rendered) out += rank.text;
  return out;
}

std::string render_rank_text(const RankReport& rank, int top) {
  std::string out = rank_header(rank);
  out += skipped_events(*rank.analyses.trace);
  out += render::render_text(rank.diagnosis, top);
  out += render::render_text(rank.analyses.steps, rank.analyses.step_time, top);
  out += render::render_text(rank.analyses.step_breakdown, top);
  out += render::render_text(rank.analyses.phases, top);
  // A CPU-only run has no GPU to describe: its GPU sections are left out, not printed as
  // "not applicable" lines.
  const bool gpu = !is_cpu_only(*rank.analyses.trace);
  if (gpu) {
    out += render::render_text(rank.analyses.gpu_temporal, top);
    out += render::render_text(rank.analyses.kernels, top);
    out += render::render_text(rank.analyses.idle, top);
  }
  if (rank.analyses.bandwidth.applicable) {
    out += render::render_text(rank.analyses.bandwidth, top);
  }
  out += render::render_text(rank.analyses.operators, top);
  out += render::render_text(rank.analyses.compute_efficiency, top);
  out += render::render_text(rank.analyses.modules, top);
  if (gpu) {
    out += render::render_text(rank.analyses.launches, top);
    out += render::render_text(rank.analyses.queue_length, top);
    out += render::render_text(rank.analyses.gpu_metrics, top);
  }
  out += render::render_text(*rank.analyses.trace, rank.analyses.memory, top);
  return out;
}

}  // namespace stepscope
