#include "load/format_registry.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>

#include "importers/kineto/kineto_reader.h"
#include "importers/nsys/nsys_reader.h"

namespace stepscope {

namespace {

constexpr std::array kReaders{
    TraceReaderRow{io::FileFormat::kJson, "PyTorch profiler (Kineto) JSON", &kineto::read_file},
    TraceReaderRow{io::FileFormat::kGzip, "PyTorch profiler (Kineto) JSON, gzip-compressed",
                   &kineto::read_file},
    TraceReaderRow{io::FileFormat::kSqlite, "Nsight Systems SQLite export", &nsys::read_sqlite},
    TraceReaderRow{io::FileFormat::kNsightReport, "Nsight Systems report (.nsys-rep)",
                   &nsys::read_report},
};

bool named_like_nsight_report(const std::string& path) {
  return path.ends_with(".nsys-rep") || path.ends_with(".qdrep");
}

}  // namespace

std::span<const TraceReaderRow> trace_readers() { return kReaders; }

const TraceReaderRow* reader_for(io::FileFormat format) {
  const auto* row = std::find_if(kReaders.begin(), kReaders.end(),
                                 [format](const TraceReaderRow& r) { return r.format == format; });
  return row == kReaders.end() ? nullptr : row;
}

Result<io::FileFormat> guess_file_format(const std::string& path) {
  // A stream (standard input, a FIFO, a process substitution) cannot be read twice: it goes to
  // the reader that streams, unsniffed.
  std::error_code error_code;
  if (path == "-" || !std::filesystem::is_regular_file(path, error_code)) {
    return io::FileFormat::kJson;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    Error error = make_error(ErrorKind::kIo, "cannot open the file");
    error.file = path;
    return error;
  }
  constexpr std::size_t kHeadBytes = 64;
  std::string head(kHeadBytes, '\0');
  file.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(file.gcount()));
  const io::FileFormat format = io::sniff_file_format(head);
  if (format == io::FileFormat::kUnknown && named_like_nsight_report(path)) {
    return io::FileFormat::kNsightReport;
  }
  return format;
}

}  // namespace stepscope
