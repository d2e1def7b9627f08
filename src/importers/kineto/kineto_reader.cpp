// Reading one Kineto trace: the source opened (mapped, streamed, or inflated ahead), read as its
// read plan says, then finished (sorted and linked) by the builder.
#include "importers/kineto/kineto_reader.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "importers/kineto/event_splitter.h"
#include "importers/kineto/read_plan.h"
#include "importers/kineto/trace_builder.h"
#include "io/byte_source.h"
#include "io/inflate_ahead.h"

namespace stepscope::kineto {

namespace {

std::string explain_not_a_trace(const TopLevelFields& top) {
  std::string message = "not a Chrome trace: the JSON object has no \"traceEvents\" array";
  if (!top.other_keys.empty()) {
    message += " (keys: ";
    for (std::size_t i = 0; i < top.other_keys.size(); ++i) {
      message += (i ? ", " : "") + top.other_keys[i];
    }
    message += ")";
  }
  if (std::find(top.other_keys.begin(), top.other_keys.end(), "nodes") != top.other_keys.end()) {
    message += "; this looks like a PyTorch execution trace (_et), which stepscope does not read";
  }
  return message;
}

// `notes`, when given, receives what the importer accepted rather than refused. `inflating`:
// the source is a .json.gz inflated ahead.
Result<Trace> read_source(io::ByteSource& source, const std::string& name,
                          const LoadOptions& options, std::vector<std::string>* notes,
                          io::InflatingBuffer* inflating = nullptr) {
  Trace trace;
  trace.source_path = name;
  trace.origin.format = TraceFormat::kKinetoJson;
  EventSplitter splitter(source);
  TraceBuilder builder(trace);
  const ReadPlan plan = plan_reading(source, options, inflating != nullptr);
  const ProgressTick tick = [&options, &source] {
    if (options.progress) options.progress(source.raw_bytes_consumed(), source.raw_bytes_total());
  };
  Status status = read_as_planned(plan, splitter, builder, source, inflating, tick);
  auto fail = [&name](Error error) {
    error.file = name;
    return error;
  };
  if (!status) return fail(std::move(status).error());
  if (!splitter.top_level().saw_trace_events) {
    return fail(make_error(ErrorKind::kNotTrace, explain_not_a_trace(splitter.top_level())));
  }
  if (trace.stats.events_seen == 0)
    return fail(make_error(ErrorKind::kNotTrace, "empty trace: traceEvents has no events"));
  if (Status s = builder.finish(splitter.top_level(), plan.threads); !s)
    return fail(std::move(s).error());
  trace.stats.input_bytes = splitter.bytes_read();
  if (notes != nullptr) {
    for (std::string& line : builder.notes().describe(name)) notes->push_back(std::move(line));
  }
  if (trace.distributed.rank >= 0) {
    trace.rank = trace.distributed.rank;
    trace.rank_source = RankSource::kDistributedInfo;
  }
  return trace;
}

// A .json.gz read with two threads, inflated ahead; nothing when it does not take that way, or
// when its text outgrew its gzip trailer's size (then it is streamed).
std::optional<Result<Trace>> read_inflating_ahead(const std::string& path,
                                                  const LoadOptions& options,
                                                  std::vector<std::string>* notes) {
  if (options.threads == 1 || path == "-") return std::nullopt;
  std::unique_ptr<io::InflatingBuffer> buffer =
      io::inflating_buffer_for(path, kInflateAheadFromBytes, kInflateAheadUpToBytes);
  if (!buffer) return std::nullopt;
  Result<Trace> trace = read_source(*buffer, path, options, notes, buffer.get());
  if (!trace && buffer->overflowed()) return std::nullopt;
  return trace;
}

}  // namespace

Result<Trace> read_file(const std::string& path, const LoadOptions& options,
                        std::vector<std::string>* notes) {
  if (std::optional<Result<Trace>> trace = read_inflating_ahead(path, options, notes)) {
    return std::move(*trace);
  }
  Result<std::unique_ptr<io::ByteSource>> source = io::open_byte_source(path);
  if (!source) {
    Error error = std::move(source).error();
    error.file = path;
    return error;
  }
  return read_source(**source, path, options, notes);
}

Result<Trace> read_text(std::string_view json, const std::string& name) {
  auto source = io::memory_byte_source(json.data(), json.size());
  LoadOptions options;
  options.threads = 1;
  return read_source(*source, name, options, nullptr);
}

}  // namespace stepscope::kineto
