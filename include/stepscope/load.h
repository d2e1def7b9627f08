// Loading traces: a file or a folder of them, one Trace per rank. A file's format is read from its
// first bytes, not its name: PyTorch profiler (Kineto) JSON, plain or gzip-compressed, and Nsight
// Systems SQLite exports.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/error.h"
#include "stepscope/trace.h"

namespace stepscope {

// Called now and then while loading with the input bytes read so far and the total.
using ProgressCallback = std::function<void(std::uint64_t done, std::uint64_t total)>;

struct LoadOptions {
  bool skip_bad = false;  // folder: skip files that fail to load, and list them
  // 1: read and parse on one thread; 2: split, parse and build on separate threads (and the
  // analyses on two); 0: pick by input size (two from about 8 MB of JSON).
  unsigned threads = 0;
  std::optional<std::int64_t> rank;  // folder: load only this rank
  ProgressCallback progress;         // may be empty
};

struct SkippedFile {
  std::string path;
  std::string reason;
};

struct TraceSet {
  std::vector<Trace> ranks;  // sorted by rank
  std::vector<SkippedFile> skipped;
  std::vector<std::string> notes;  // how ranks were found, duplicates, files that are not traces
};

// A folder's trace files in name order, and the entries that cannot be read (an error unless
// `skip_bad`). load_traces loads them all; `analyze` on a large folder loads them one at a time.
struct TraceFolder {
  std::vector<std::string> files;
  std::vector<SkippedFile> skipped;
};
Result<TraceFolder> list_trace_folder(const std::string& folder, const LoadOptions& options);

// One file of a folder: a trace, or a file skipped (not a trace; bad under `skip_bad`), or the
// error that stops the folder. A trace without a rank of its own (distributedInfo or a rank in
// its file name) takes `order`, its position among the folder's traces.
struct FolderMember {
  std::optional<Trace> trace;
  std::optional<SkippedFile> skipped;
  std::optional<Error> error;
  std::vector<std::string> notes;
};
FolderMember load_folder_member(const std::string& file, std::int64_t order,
                                const LoadOptions& options);

// Notes each rank that two files claim; `ranks` sorted, `files[i]` the file of ranks[i].
void note_duplicate_ranks(const std::vector<std::int64_t>& ranks,
                          const std::vector<std::string>& files, std::vector<std::string>* notes);

// Loads one file, in whichever format its first bytes show.
Result<Trace> load_trace_file(const std::string& path, const LoadOptions& options = {});

// Loads a file, or every trace in a folder (not recursive): files named `*.json`, `*.json.gz`,
// `*.sqlite`, `*.nsys-rep`, each read by the format its bytes show.
Result<TraceSet> load_traces(const std::string& path, const LoadOptions& options = {});

// The JSON text of one event as the file holds it, read again from the trace's source file:
// every `args` entry the importer does not keep is reachable this way (JSON traces only).
Result<std::string> event_json(const Trace& trace, EventIndex event);

// Parses trace JSON held in memory (tests, fuzzing, Python). `name` stands for the file name.
Result<Trace> load_trace_text(std::string_view json, const std::string& name);

}  // namespace stepscope
