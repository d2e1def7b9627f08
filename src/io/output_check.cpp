#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "io/atomic_output.h"
#include "stepscope/output_check.h"

namespace stepscope {

namespace {

namespace fs = std::filesystem;

struct FileId {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const FileId&) const = default;
};

std::optional<FileId> id_of(const std::string& path, struct stat* info_out = nullptr) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  if (info_out != nullptr) *info_out = info;
  return FileId{info.st_dev, info.st_ino};
}

struct InputFile {
  FileId id;
  std::string path;
};

// Every file an input names: itself, or for a folder each file in it (a trace folder is read
// one level deep).
std::vector<InputFile> input_files(const std::vector<std::string>& inputs) {
  std::vector<InputFile> files;
  for (const std::string& input : inputs) {
    if (input.empty() || input == "-") continue;
    struct stat info {};
    const std::optional<FileId> id = id_of(input, &info);
    if (!id) continue;  // the loader reports a missing input
    files.push_back({*id, input});
    if (!S_ISDIR(info.st_mode)) continue;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(input, error)) {
      const std::string path = entry.path().string();
      if (auto entry_id = id_of(path)) files.push_back({*entry_id, path});
    }
  }
  return files;
}

Error refuse(const std::string& file, const std::string& message) {
  Error error = make_error(ErrorKind::kBadOption, message);
  error.file = file;
  return error;
}

// Where an output will land: its device and inode when it exists, else its resolved absolute
// path (two outputs that do not exist yet collide when those are equal).
struct OutputTarget {
  std::optional<FileId> id;
  std::string resolved;
  bool is_device = false;  // a character device (/dev/null) is harmless to share
};

}  // namespace

Status check_output_paths(const std::vector<std::string>& inputs,
                          const std::vector<OutputPath>& outputs) {
  const std::vector<InputFile> files = input_files(inputs);
  std::vector<std::pair<const OutputPath*, OutputTarget>> seen;
  for (const OutputPath& output : outputs) {
    if (output.path.empty()) continue;
    OutputTarget target;
    if (output.path == "-") {
      target.resolved = "-";
    } else {
      Result<std::string> resolved = io::resolve_output_path(output.path);
      if (!resolved) {
        Error error = std::move(resolved).error();
        error.kind = ErrorKind::kBadOption;
        error.message = output.option + ": " + error.message;
        return error;
      }
      struct stat info {};
      target.id = id_of(*resolved, &info);
      target.is_device = target.id && S_ISCHR(info.st_mode);
      std::error_code error;
      const fs::path absolute = fs::weakly_canonical(fs::absolute(*resolved, error), error);
      target.resolved = error ? *resolved : absolute.string();
    }
    if (target.id && !target.is_device) {
      for (const InputFile& input : files) {
        if (input.id == *target.id) {
          return refuse(output.path, output.option + " would overwrite the input " + input.path +
                                         "; choose another output file");
        }
      }
    }
    for (const auto& [other, other_target] : seen) {
      const bool same = (target.id && other_target.id) ? *target.id == *other_target.id
                                                       : target.resolved == other_target.resolved;
      if (same && !(target.is_device && other_target.is_device)) {
        return refuse(output.path, output.option + " and " + other->option +
                                       " name the same file; give each its own");
      }
    }
    seen.emplace_back(&output, std::move(target));
  }
  return Done{};
}

Status probe_output_path(const std::string& path) {
  if (path.empty() || path == "-") return Done{};
  STEPSCOPE_ASSIGN_OR_RETURN(std::string destination, io::resolve_output_path(path));
  struct stat info {};
  if (::stat(destination.c_str(), &info) == 0 && !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode)) {
    if (::access(destination.c_str(), W_OK) != 0) {
      Error error = make_error(
          ErrorKind::kIo, std::string("cannot write the output file: ") + std::strerror(errno));
      error.file = path;
      return error;
    }
    return Done{};
  }
  // Created and dropped uncommitted: the temporary is removed, the destination untouched.
  STEPSCOPE_ASSIGN_OR_RETURN(auto file, io::AtomicOutputFile::create(path, io::Compression::kNone));
  file.reset();
  return Done{};
}

}  // namespace stepscope
