// Loading traces, whatever their format: a file's kind is guessed from its first bytes and the
// file handed to the reader of that kind (format_registry.h); folders, ranks, duplicate ranks,
// --skip-bad and running out of memory are handled here, once for every format.
#include <algorithm>
#include <array>
#include <filesystem>
#include <new>
#include <optional>
#include <regex>

#include "importers/kineto/kineto_reader.h"
#include "load/format_registry.h"
#include "stepscope/load.h"

namespace stepscope {

namespace {

namespace fs = std::filesystem;

// The start of the message for a file of a known kind that no reader reads (a checkpoint, a
// snapshot): a folder passes over such a file, as it does JSON that is not a trace.
constexpr std::string_view kNotATracePrefix = "not a trace: this is ";

std::optional<std::int64_t> rank_from_file_name(const std::string& file_name) {
  static const std::regex kRankPattern(R"(rank[-_]?(\d{1,9}))", std::regex::icase);
  std::smatch match;
  if (std::regex_search(file_name, match, kRankPattern)) return std::stoll(match[1].str());
  return std::nullopt;
}

// The files of a folder taken as traces, by name; each one's format is then read from its bytes.
constexpr std::array<std::string_view, 5> kTraceFileSuffixes{".json", ".json.gz", ".sqlite",
                                                             ".nsys-rep", ".qdrep"};

bool looks_like_trace_file(const fs::path& path) {
  const std::string name = path.filename().string();
  auto ends_with = [&name](std::string_view suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return std::any_of(kTraceFileSuffixes.begin(), kTraceFileSuffixes.end(), ends_with);
}

bool is_not_a_trace(const Error& error) {
  return error.message.starts_with("not a Chrome trace") ||
         error.message.starts_with(kNotATracePrefix);
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

// The file read by the reader of its kind; a kind that no reader reads is named, with what reads
// it or what to do with it.
Result<Trace> read_by_kind(const std::string& path, const LoadOptions& options,
                           std::vector<std::string>* notes) {
  STEPSCOPE_ASSIGN_OR_RETURN(const io::FileFormat format, guess_file_format(path));
  // JSON's reader names what it finds in a file it cannot read (a checkpoint inside gzip, text
  // that is not JSON): it takes every kind that has no reader of its own and no name.
  const TraceReaderRow* row = reader_for(format);
  if (row == nullptr && format == io::FileFormat::kUnknown) row = reader_for(io::FileFormat::kJson);
  if (row == nullptr) {
    Error error = make_error(ErrorKind::kNotTrace,
                             std::string(kNotATracePrefix) + io::describe_file_format(format));
    error.file = path;
    return error;
  }
  return row->read(path, options, notes);
}

Result<Trace> load_trace_file_unguarded(const std::string& path, const LoadOptions& options,
                                        std::vector<std::string>* notes) {
  Result<Trace> trace = read_by_kind(path, options, notes);
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
        make_error(ErrorKind::kNotTrace,
                   "no trace files (*.json, *.json.gz, *.sqlite, *.nsys-rep) in this folder");
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

namespace {

// One wording for a path that is not there, whichever entry point was asked.
std::optional<Error> missing(const std::string& path) {
  std::error_code error_code;
  if (path == "-" || fs::exists(path, error_code)) return std::nullopt;
  Error error = make_error(ErrorKind::kIo, "no such file or folder");
  error.file = path;
  return error;
}

}  // namespace

Result<Trace> load_trace_file(const std::string& path, const LoadOptions& options) {
  if (auto error = missing(path)) return std::move(*error);
  return load_file_noting(path, options, nullptr);
}

Result<TraceSet> load_traces(const std::string& path, const LoadOptions& options) {
  std::error_code error_code;
  if (path != "-" && fs::is_directory(path, error_code)) return load_folder(path, options);
  if (auto error = missing(path)) return std::move(*error);
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
  return kineto::read_text(json, name);
}

}  // namespace stepscope
