// Re-reading one event's JSON from its source: the importer keeps only the fields analyses
// need, and every other `args` entry stays reachable through the event's byte range.
#include <algorithm>
#include <vector>

#include "io/byte_source.h"
#include "stepscope/load.h"

namespace stepscope {

Result<std::string> event_json(const Trace& trace, EventIndex event) {
  // Every failure past the index check means the file is no longer what was loaded: I/O.
  auto fail = [&trace](std::string message, ErrorKind kind = ErrorKind::kIo) {
    Error error = make_error(kind, std::move(message));
    error.file = trace.source_path;
    return error;
  };
  if (event < 0 || static_cast<std::size_t>(event) >= trace.events.size()) {
    return fail("no event " + std::to_string(event) + " in this trace", ErrorKind::kBadOption);
  }
  // Other formats have no event text to read again: their readers keep every field they map.
  if (trace.origin.format != TraceFormat::kKinetoJson) {
    return fail("an event's source text is kept for JSON traces only, not for an " +
                    std::string(to_string(trace.origin.format)),
                ErrorKind::kUnsupported);
  }
  Result<std::unique_ptr<io::ByteSource>> source = io::open_byte_source(trace.source_path);
  if (!source) return fail("cannot reopen the trace: " + source.error().message);
  const std::uint64_t offset = trace.events.source_offset[event];
  const std::uint32_t length = trace.events.source_length[event];
  // Read (and for gzip, decompress) up to the event: a sequential pass, fine for a lookup.
  std::vector<char> chunk(1 << 20);
  std::uint64_t position = 0;
  std::string text;
  while (text.size() < length) {
    Result<std::size_t> got = (*source)->read(chunk.data(), chunk.size());
    if (!got) return fail(got.error().message, got.error().kind);
    if (*got == 0) return fail("the trace changed since it was loaded: it ends before the event");
    const std::uint64_t chunk_end = position + *got;
    if (chunk_end > offset) {
      const std::uint64_t from = std::max(offset, position) - position;
      const std::uint64_t to = std::min<std::uint64_t>(chunk_end, offset + length) - position;
      text.append(chunk.data() + from, chunk.data() + to);
    }
    position = chunk_end;
  }
  if (text.empty() || text.front() != '{' || text.back() != '}') {
    return fail("the trace changed since it was loaded: no event at byte " +
                std::to_string(offset));
  }
  return text;
}

}  // namespace stepscope
