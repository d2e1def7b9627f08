#include "io/file_format.h"

#include <algorithm>
#include <array>

namespace stepscope::io {

namespace {

// torch.save's legacy files start with the pickled magic number 0x1950a86a20f9469cfc6c.
constexpr std::string_view kLegacyTorchMagic{
    "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 14};
constexpr std::string_view kZipMagic{"PK\x03\x04", 4};
constexpr std::string_view kGzipMagic{"\x1f\x8b", 2};
constexpr std::string_view kZstdMagic{"\x28\xb5\x2f\xfd", 4};
constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};

// A Perfetto trace is a sequence of `packet` fields (number 1, length-delimited): tag 0x0a, then
// the packet's length as a varint, and binary fields: a text file that starts with a blank line
// is not one.
bool is_perfetto_start(std::string_view head) {
  if (head.size() < 2 || head[0] != '\x0a' || head[1] == '\0') return false;
  const std::string_view rest = head.substr(1, 15);
  return std::any_of(rest.begin(), rest.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x09 || byte > 0x7e;
  });
}

bool is_json_start(std::string_view head) {
  if (head.starts_with("\xef\xbb\xbf")) head.remove_prefix(3);
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (head[first] == '{' || head[first] == '[');
}

}  // namespace

std::string describe_file_format(FileFormat format) {
  switch (format) {
    case FileFormat::kJson:
      return "JSON: a profiler trace is read with `stepscope analyze`";
    case FileFormat::kPickle:
      return "a pickle: a memory snapshot is read with `stepscope memory`";
    case FileFormat::kTorchZipCheckpoint:
      return "a torch.save checkpoint (zip archive), not a trace or a memory snapshot";
    case FileFormat::kTorchLegacyCheckpoint:
      return "a torch.save checkpoint (legacy pickle format), not a trace or a memory snapshot";
    case FileFormat::kGzip:
      return "gzip-compressed: a compressed profiler trace is read with `stepscope analyze`";
    case FileFormat::kZstd:
      return "zstd-compressed, which stepscope does not inflate: run `zstd -d FILE` first";
    case FileFormat::kSqlite:
      return "an SQLite database: an Nsight Systems export is read with `stepscope analyze`";
    case FileFormat::kPerfettoProtobuf:
      return "a Perfetto protobuf trace (rocprofv3 or Perfetto), which stepscope does not read; "
             "stepscope reads PyTorch profiler JSON and Nsight Systems SQLite exports";
    case FileFormat::kNsightReport:
      return "an Nsight Systems report: export it with `nsys export --type sqlite FILE` and "
             "analyse the .sqlite file";
    case FileFormat::kUnknown:
      break;
  }
  return {};
}

FileFormat sniff_file_format(std::string_view head) {
  if (head.starts_with(kGzipMagic)) return FileFormat::kGzip;
  if (head.starts_with(kZstdMagic)) return FileFormat::kZstd;
  if (head.starts_with(kSqliteMagic)) return FileFormat::kSqlite;
  if (head.starts_with(kZipMagic)) return FileFormat::kTorchZipCheckpoint;
  if (head.starts_with(kLegacyTorchMagic)) return FileFormat::kTorchLegacyCheckpoint;
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 &&
      static_cast<unsigned char>(head[1]) >= 2 && static_cast<unsigned char>(head[1]) <= 5) {
    return FileFormat::kPickle;
  }
  if (is_json_start(head)) return FileFormat::kJson;
  if (is_perfetto_start(head)) return FileFormat::kPerfettoProtobuf;
  return FileFormat::kUnknown;
}

std::string wrong_format_hint(FileFormat format, FileFormat expected) {
  if (format == expected || format == FileFormat::kUnknown) return {};
  return " (this is " + describe_file_format(format) + ")";
}

}  // namespace stepscope::io
