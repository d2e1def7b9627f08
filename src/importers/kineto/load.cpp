// Loading a trace file or a folder: splitting, parsing and building run either on one thread or
// on two that share the splitting and parsing, one of them building in file order (pipeline.h).
#include <algorithm>
#include <filesystem>
#include <new>
#include <optional>
#include <regex>

#include "importers/kineto/event_splitter.h"
#include "importers/kineto/pipeline.h"
#include "importers/kineto/read_in_parts.h"
#include "importers/kineto/trace_builder.h"
#include "io/byte_source.h"
#include "io/inflate_ahead.h"
#include "stepscope/load.h"

namespace stepscope {

namespace {

namespace fs = std::filesystem;
std::string explain_not_a_trace(const kineto::TopLevelFields& top) {
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

// Two threads pay off from a few megabytes of JSON (measured on 2 cores: 15 MB of JSON 60 -> 48
// ms, control's 35 MB 103 -> 74 ms, 1.8 MB the same either way).
constexpr std::uint64_t kParallelFromBytes = 8ULL << 20;

std::uint64_t expected_decompressed_bytes(const io::ByteSource& source) {
  constexpr std::uint64_t kCompressionRatio = 12;
  return source.raw_bytes_total() * (source.is_compressed() ? kCompressionRatio : 1);
}

unsigned effective_threads(const LoadOptions& options, const io::ByteSource& source) {
  if (options.threads != 0) return options.threads;
  return expected_decompressed_bytes(source) >= kParallelFromBytes ? 2 : 1;
}

// An upper estimate: profiler events take at least ~100 bytes of JSON, and gzip compresses trace
// JSON about ten times. Capped, for sparse or huge files: the columns grow as needed past the cap
// (and TraceBuilder::reserve asks for less under an address-space limit).
std::size_t expected_events(const io::ByteSource& source) {
  constexpr std::uint64_t kMinEventBytes = 100;
  constexpr std::uint64_t kMaxReservedEvents = 1U << 26;
  return static_cast<std::size_t>(std::min<std::uint64_t>(
      expected_decompressed_bytes(source) / kMinEventBytes + 1024, kMaxReservedEvents));
}

// A mapped trace this large is read in parts on two threads (read_in_parts.h), each part read as
// one thread reads a trace, with nothing handed between threads per event (with the pipeline's
// hand-over of parsed events, two threads spend about a tenth more CPU than one). Smaller ones,
// and streams, which cannot be entered in the middle, take the pipeline.
constexpr std::uint64_t kTwoPartsFromBytes = 32ULL << 20;

std::optional<kineto::PartPlan> part_plan(const io::ByteSource& source, unsigned threads) {
  const std::string_view mapped = source.mapped();
  if (threads < 2 || mapped.size() < kTwoPartsFromBytes) return std::nullopt;
  return kineto::plan_parts(mapped);
}

// A .json.gz this large (by its gzip trailer) is inflated ahead into memory on one thread while
// the other reads behind it, which then reads a later part (io/inflate_ahead.h); larger ones are
// streamed, so that the text is never held whole.
constexpr std::uint64_t kInflateAheadUpToBytes = 256ULL << 20;

// `notes`, when given, receives what the importer accepted rather than refused. `inflating`:
// the source is a .json.gz inflated ahead.
Result<Trace> load_from_source(io::ByteSource& source, const std::string& name,
                               const LoadOptions& options,
                               std::vector<std::string>* notes = nullptr,
                               io::InflatingBuffer* inflating = nullptr) {
  Trace trace;
  trace.source_path = name;
  kineto::EventSplitter splitter(source);
  kineto::TraceBuilder builder(trace);
  const unsigned threads = effective_threads(options, source);
  const std::optional<kineto::PartPlan> plan =
      inflating == nullptr ? part_plan(source, threads) : std::nullopt;
  // A trace read in parts: their columns are joined by moving pages, which need their own.
  builder.reserve(expected_events(source), inflating != nullptr || plan.has_value());
  const kineto::ProgressTick tick = [&options, &source] {
    if (options.progress) options.progress(source.raw_bytes_consumed(), source.raw_bytes_total());
  };
  Status status = Done{};
  if (inflating != nullptr) {
    status =
        kineto::run_inflating_ahead(splitter, builder, *inflating, expected_events(source), tick);
  } else if (plan) {
    status = kineto::run_in_parts(splitter, builder, source, *plan, expected_events(source), tick);
  } else if (threads >= 2) {
    // Both threads split (and inflate) or parse as work comes, and this one builds.
    status = kineto::run_parallel(splitter, builder, threads - 1, tick);
  } else {
    status = kineto::run_sequential(splitter, builder, tick);
  }
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
  if (Status s = builder.finish(splitter.top_level(), threads); !s)
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

std::optional<std::int64_t> rank_from_file_name(const std::string& file_name) {
  static const std::regex kRankPattern(R"(rank[-_]?(\d{1,9}))", std::regex::icase);
  std::smatch match;
  if (std::regex_search(file_name, match, kRankPattern)) return std::stoll(match[1].str());
  return std::nullopt;
}

bool looks_like_trace_file(const fs::path& path) {
  const std::string name = path.filename().string();
  auto ends_with = [&name](std::string_view suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".json") || ends_with(".json.gz");
}

bool is_not_a_trace(const Error& error) {
  return error.message.rfind("not a Chrome trace", 0) == 0;
}

// Why a folder entry with a trace's name cannot be read as one, or nothing when it can: a
// symlink loop, a dangling symlink, a FIFO or a device is a bad file, not silently passed over.
std::optional<std::string> unreadable_entry(const fs::directory_entry& entry) {
  std::error_code error;
  const fs::file_status status = entry.status(error);
  if (error) {
    if (error == std::errc::too_many_symbolic_link_levels) return "a symlink loop";
    if (error == std::errc::no_such_file_or_directory) return "a dangling symlink";
    return "cannot read: " + error.message();
  }
  if (status.type() == fs::file_type::not_found) return "a dangling symlink";
  if (status.type() == fs::file_type::regular) return std::nullopt;
  if (status.type() == fs::file_type::fifo) return "a FIFO, not a regular file";
  if (status.type() == fs::file_type::directory) return "a folder, not a trace file";
  return "not a regular file";
}

Result<Trace> load_file_noting(const std::string& path, const LoadOptions& options,
                               std::vector<std::string>* notes);

Result<TraceSet> load_folder(const std::string& folder, const LoadOptions& options) {
  STEPSCOPE_ASSIGN_OR_RETURN(TraceFolder listing, list_trace_folder(folder, options));
  TraceSet set;
  set.skipped = std::move(listing.skipped);
  std::int64_t order = 0;
  for (const std::string& file : listing.files) {
    FolderMember member = load_folder_member(file, order, options);
    set.notes.insert(set.notes.end(), member.notes.begin(), member.notes.end());
    if (member.skipped) set.skipped.push_back(std::move(*member.skipped));
    if (member.error) return std::move(*member.error);
    if (!member.trace) continue;
    ++order;
    if (options.rank && member.trace->rank != *options.rank) continue;
    set.ranks.push_back(std::move(*member.trace));
  }
  std::stable_sort(set.ranks.begin(), set.ranks.end(),
                   [](const Trace& a, const Trace& b) { return a.rank < b.rank; });
  std::vector<std::int64_t> ranks;
  std::vector<std::string> files;
  for (const Trace& trace : set.ranks) {
    ranks.push_back(trace.rank);
    files.push_back(trace.source_path);
  }
  note_duplicate_ranks(ranks, files, &set.notes);
  if (set.ranks.empty()) {
    Error error = make_error(options.rank ? ErrorKind::kBadOption : ErrorKind::kNotTrace,
                             options.rank ? "no trace of rank " + std::to_string(*options.rank)
                                          : "no loadable trace in this folder");
    error.file = folder;
    return error;
  }
  return set;
}

// A .json.gz read with two threads, inflated ahead; nothing when it does not take that way, or
// when its text outgrew its gzip trailer's size (then it is streamed).
std::optional<Result<Trace>> load_inflating_ahead(const std::string& path,
                                                  const LoadOptions& options,
                                                  std::vector<std::string>* notes) {
  if (options.threads == 1 || path == "-") return std::nullopt;
  std::unique_ptr<io::InflatingBuffer> buffer =
      io::inflating_buffer_for(path, kTwoPartsFromBytes, kInflateAheadUpToBytes);
  if (!buffer) return std::nullopt;
  Result<Trace> trace = load_from_source(*buffer, path, options, notes, buffer.get());
  if (!trace && buffer->overflowed()) return std::nullopt;
  return trace;
}

Result<Trace> load_opened(const std::string& path, const LoadOptions& options,
                          std::vector<std::string>* notes) {
  Result<std::unique_ptr<io::ByteSource>> source = io::open_byte_source(path);
  if (!source) {
    Error error = std::move(source).error();
    error.file = path;
    return error;
  }
  return load_from_source(**source, path, options, notes);
}

Result<Trace> load_trace_file_unguarded(const std::string& path, const LoadOptions& options,
                                        std::vector<std::string>* notes) {
  std::optional<Result<Trace>> inflated_ahead = load_inflating_ahead(path, options, notes);
  Result<Trace> trace =
      inflated_ahead ? std::move(*inflated_ahead) : load_opened(path, options, notes);
  if (trace && trace->rank_source != RankSource::kDistributedInfo) {
    if (auto rank = rank_from_file_name(fs::path(path).filename().string())) {
      trace->rank = *rank;
      trace->rank_source = RankSource::kFileName;
    }
  }
  return trace;
}

// Out of memory is a fact about this file (its size against the machine), not an internal
// error: it names the file, and a folder run skips it under --skip-bad.
Result<Trace> load_file_noting(const std::string& path, const LoadOptions& options,
                               std::vector<std::string>* notes) {
  try {
    return load_trace_file_unguarded(path, options, notes);
  } catch (const std::bad_alloc&) {
    Error error = make_error(ErrorKind::kLimitExceeded, "out of memory reading this file");
    error.file = path;
    return error;
  }
}

}  // namespace

Result<TraceFolder> list_trace_folder(const std::string& folder, const LoadOptions& options) {
  TraceFolder listing;
  std::vector<std::pair<fs::path, std::string>> unreadable;
  std::error_code walk_error;
  for (const auto& entry : fs::directory_iterator(folder, walk_error)) {
    if (!looks_like_trace_file(entry.path())) continue;
    if (auto why = unreadable_entry(entry)) {
      unreadable.emplace_back(entry.path(), *why);
    } else {
      listing.files.push_back(entry.path().string());
    }
  }
  if (walk_error) {
    Error error = make_error(ErrorKind::kIo, "cannot list the folder: " + walk_error.message());
    error.file = folder;
    return error;
  }
  std::sort(unreadable.begin(), unreadable.end());
  std::sort(listing.files.begin(), listing.files.end());
  if (listing.files.empty() && unreadable.empty()) {
    Error error =
        make_error(ErrorKind::kNotTrace, "no trace files (*.json, *.json.gz) in this folder");
    error.file = folder;
    return error;
  }
  for (const auto& [file, why] : unreadable) {
    Error error = make_error(ErrorKind::kIo, why);
    error.file = file.string();
    if (!options.skip_bad) return error;
    listing.skipped.push_back({file.string(), error.describe()});
  }
  return listing;
}

FolderMember load_folder_member(const std::string& file, std::int64_t order,
                                const LoadOptions& options) {
  FolderMember member;
  Result<Trace> loaded = load_file_noting(file, options, &member.notes);
  if (!loaded) {
    // A skipped file is reported once, as skipped (a note as well printed it twice).
    if (is_not_a_trace(loaded.error()) || options.skip_bad) {
      member.skipped = SkippedFile{file, loaded.error().describe()};
    } else {
      member.error = std::move(loaded).error();
    }
    return member;
  }
  // load_file_noting already took a rank from distributedInfo or the file name.
  if (loaded->rank_source != RankSource::kDistributedInfo &&
      loaded->rank_source != RankSource::kFileName) {
    loaded->rank = order;
    loaded->rank_source = RankSource::kFileOrder;
  }
  member.trace = std::move(loaded).value();
  return member;
}

void note_duplicate_ranks(const std::vector<std::int64_t>& ranks,
                          const std::vector<std::string>& files, std::vector<std::string>* notes) {
  for (std::size_t i = 1; i < ranks.size(); ++i) {
    if (ranks[i] == ranks[i - 1]) {
      notes->push_back("rank " + std::to_string(ranks[i]) + " appears in both " + files[i - 1] +
                       " and " + files[i]);
    }
  }
}

Result<Trace> load_trace_file(const std::string& path, const LoadOptions& options) {
  return load_file_noting(path, options, nullptr);
}

Result<TraceSet> load_traces(const std::string& path, const LoadOptions& options) {
  std::error_code error_code;
  if (path != "-" && fs::is_directory(path, error_code)) return load_folder(path, options);
  if (path != "-" && !fs::exists(path, error_code)) {
    Error error = make_error(ErrorKind::kIo, "no such file or folder");
    error.file = path;
    return error;
  }
  TraceSet set;
  STEPSCOPE_ASSIGN_OR_RETURN(Trace trace, load_file_noting(path, options, &set.notes));
  if (options.rank && trace.rank != *options.rank) {
    Error error =
        make_error(ErrorKind::kBadOption, "the trace is rank " + std::to_string(trace.rank) +
                                              ", not " + std::to_string(*options.rank));
    error.file = path;
    return error;
  }
  set.ranks.push_back(std::move(trace));
  return set;
}

Result<Trace> load_trace_text(std::string_view json, const std::string& name) {
  auto source = io::memory_byte_source(json.data(), json.size());
  LoadOptions options;
  options.threads = 1;
  return load_from_source(*source, name, options);
}

}  // namespace stepscope
