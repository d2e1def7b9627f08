// Loading traces: a file (`.json`, `.json.gz`) or a folder of them, one Trace per rank.
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
  // 1: read and parse on one thread; 2: split, parse and build on separate threads;
  // 0: pick by input size (threads only pay off on inputs of a hundred megabytes or more).
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

// Loads one file; gzip is recognised by its magic bytes, not by the name.
Result<Trace> load_trace_file(const std::string& path, const LoadOptions& options = {});

// Loads a file or every `*.json` / `*.json.gz` in a folder (not recursive).
Result<TraceSet> load_traces(const std::string& path, const LoadOptions& options = {});

// The JSON text of one event as the file holds it, read again from the trace's source file:
// every `args` entry the importer does not keep is reachable this way.
Result<std::string> event_json(const Trace& trace, EventIndex event);

// Parses trace JSON held in memory (tests, fuzzing, Python). `name` stands for the file name.
Result<Trace> load_trace_text(std::string_view json, const std::string& name);

}  // namespace stepscope
