#include <string>
#include <vector>

#include "annotate/markers.h"
#include "annotate/trace_events_splicer.h"
#include "io/atomic_output.h"
#include "io/byte_source.h"
#include "report/report_model.h"
#include "stepscope/annotate.h"

namespace stepscope {

namespace {

constexpr std::size_t kChunkBytes = 1U << 20;

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Error about(Error error, const std::string& file) {
  if (error.file.empty()) error.file = file;
  return error;
}

// Streams the source through the splicer into `output`; the source is never held whole.
Status copy_with_markers(const std::string& source_path, io::ByteSource& source,
                         annotate::TraceEventsSplicer& splicer, io::AtomicOutputFile& output) {
  std::vector<char> buffer(kChunkBytes);
  std::string spliced;
  for (;;) {
    Result<std::size_t> read = source.read(buffer.data(), buffer.size());
    if (!read) return about(std::move(read).error(), source_path);
    if (*read == 0) break;
    spliced.clear();
    if (Status s = splicer.push({buffer.data(), *read}, spliced); !s) {
      return about(std::move(s).error(), source_path);
    }
    STEPSCOPE_TRY(output.write(spliced));
  }
  if (Status s = splicer.finish(); !s) return about(std::move(s).error(), source_path);
  return Done{};
}

}  // namespace

Status write_annotated_trace(const std::string& source_path, const Trace& trace,
                             const Diagnosis& diagnosis, const std::string& out_path) {
  // The markers are spliced into the trace's own JSON text: other formats have none.
  if (trace.origin.format != TraceFormat::kKinetoJson) {
    return about(make_error(ErrorKind::kUnsupported,
                            "--annotate writes the findings into a PyTorch profiler JSON trace; "
                            "this is an " +
                                std::string(to_string(trace.origin.format))),
                 source_path);
  }
  Result<std::unique_ptr<io::ByteSource>> source = io::open_byte_source(source_path);
  if (!source) return about(std::move(source).error(), source_path);
  const auto compression =
      ends_with(out_path, ".gz") ? io::Compression::kGzip : io::Compression::kNone;
  STEPSCOPE_ASSIGN_OR_RETURN(const std::unique_ptr<io::AtomicOutputFile> output,
                             io::AtomicOutputFile::create(out_path, compression));
  annotate::TraceEventsSplicer splicer(annotate::finding_markers_json(trace, diagnosis));
  // On an error the output object is destroyed uncommitted, which removes its temporary.
  STEPSCOPE_TRY(copy_with_markers(source_path, **source, splicer, *output));
  return output->commit();
}

Status write_annotated_report(const Report& report, const std::string& out_path) {
  if (report.ranks.size() != 1) {
    Error error = make_error(ErrorKind::kBadOption,
                             "--annotate needs a single trace file; this input holds " +
                                 std::to_string(report.ranks.size()) + " traces");
    error.file = report.request.path;
    return error;
  }
  const RankReport& rank = report.ranks.front();
  return write_annotated_trace(rank.analyses.trace->source_path, *rank.analyses.trace,
                               rank.diagnosis, out_path);
}

}  // namespace stepscope
