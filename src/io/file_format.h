// What a file that is not what a reader expected looks like, from its first bytes (after gzip),
// so that a checkpoint or a snapshot passed by mistake is named, not reported as a syntax error.
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
};

// At least the first 16 bytes are needed to tell a legacy checkpoint from a pickle.
FileFormat sniff_file_format(std::string_view head);

// " (this is a torch.save checkpoint, a zip archive, not a trace)": what to add to a reader's
// error when the file is of another known kind; empty when `format` is the one `expected` or
// unknown.
std::string wrong_format_hint(FileFormat format, FileFormat expected);

}  // namespace stepscope::io
