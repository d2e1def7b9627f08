#include "io/file_format.h"

#include <array>

namespace stepscope::io {

namespace {

// torch.save's legacy files start with the pickled magic number 0x1950a86a20f9469cfc6c.
constexpr std::string_view kLegacyTorchMagic{
    "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 14};
constexpr std::string_view kZipMagic{"PK\x03\x04", 4};

bool is_json_start(std::string_view head) {
  if (head.starts_with("\xef\xbb\xbf")) head.remove_prefix(3);
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (head[first] == '{' || head[first] == '[');
}

std::string_view describe(FileFormat format) {
  switch (format) {
    case FileFormat::kJson:
      return "JSON: a profiler trace is read with `stepscope analyze`";
    case FileFormat::kPickle:
      return "a pickle: a memory snapshot is read with `stepscope memory`";
    case FileFormat::kTorchZipCheckpoint:
      return "a torch.save checkpoint (zip archive), not a trace or a memory snapshot";
    case FileFormat::kTorchLegacyCheckpoint:
      return "a torch.save checkpoint (legacy pickle format), not a trace or a memory snapshot";
    case FileFormat::kUnknown:
      break;
  }
  return {};
}

}  // namespace

FileFormat sniff_file_format(std::string_view head) {
  if (head.starts_with(kZipMagic)) return FileFormat::kTorchZipCheckpoint;
  if (head.starts_with(kLegacyTorchMagic)) return FileFormat::kTorchLegacyCheckpoint;
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 &&
      static_cast<unsigned char>(head[1]) >= 2 && static_cast<unsigned char>(head[1]) <= 5) {
    return FileFormat::kPickle;
  }
  if (is_json_start(head)) return FileFormat::kJson;
  return FileFormat::kUnknown;
}

std::string wrong_format_hint(FileFormat format, FileFormat expected) {
  if (format == expected || format == FileFormat::kUnknown) return {};
  return " (this is " + std::string(describe(format)) + ")";
}

}  // namespace stepscope::io
