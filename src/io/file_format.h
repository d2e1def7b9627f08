// What kind of file this is, from its first bytes, never its name: the loader picks a reader by it
// (load/format_registry.h), and a reader handed a file of another kind (a checkpoint or a snapshot
// passed by mistake, found after gzip) names that kind rather than report a syntax error.
#pragma once

#include <string>
#include <string_view>

namespace stepscope::io {

enum class FileFormat {
  kUnknown,
  kJson,                   // '{' or '[' after optional whitespace or a byte order mark
  kPickle,                 // a pickle protocol 2+ header (memory snapshots)
  kTorchZipCheckpoint,     // torch.save's default format: a zip archive
  kTorchLegacyCheckpoint,  // torch.save(..., _use_new_zipfile_serialization=False)
  kGzip,                   // gzip (a compressed trace: what it holds is seen once inflated)
  kZstd,                   // a zstd frame
  kSqlite,                 // "SQLite format 3\0" (Nsight Systems' export)
  kPerfettoProtobuf,       // a Perfetto trace: a TracePacket field tag first (rocprofv3, .pftrace)
  kNsightReport,           // an Nsight Systems report (.nsys-rep): known by its name only
};

// At least the first 16 bytes are needed to tell a legacy checkpoint from a pickle, and to see
// SQLite's header.
FileFormat sniff_file_format(std::string_view head);

// "a torch.save checkpoint (zip archive), not a trace or a memory snapshot": the kind in words,
// with what reads it or what to do with it.
std::string describe_file_format(FileFormat format);

// " (this is a torch.save checkpoint, a zip archive, not a trace)": what to add to a reader's
// error when the file is of another known kind; empty when `format` is the one `expected` or
// unknown.
std::string wrong_format_hint(FileFormat format, FileFormat expected);

}  // namespace stepscope::io
