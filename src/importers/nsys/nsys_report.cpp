// `.nsys-rep` reports: Nsight Systems' own binary format, which only `nsys` reads. With `nsys`
// on PATH the report is exported to SQLite in a temporary folder and read from there.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "importers/nsys/nsys_reader.h"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX, for posix_spawn

namespace stepscope::nsys {

namespace {

std::string export_command(const std::string& report) {
  std::filesystem::path sqlite(report);
  sqlite.replace_extension(".sqlite");
  return "nsys export --type sqlite --output " + sqlite.string() + " " + report;
}

// The `nsys` that PATH names, if any.
std::optional<std::string> find_nsys() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::string_view dirs(path);
  while (!dirs.empty()) {
    const std::size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    dirs = colon == std::string_view::npos ? std::string_view{} : dirs.substr(colon + 1);
    if (dir.empty()) continue;
    const std::string candidate = std::string(dir) + "/nsys";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

// A fresh folder under the system's temporary folder, removed when the object goes.
class TemporaryFolder {
 public:
  static std::optional<TemporaryFolder> make() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "stepscope-nsys-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) return std::nullopt;
    return TemporaryFolder(pattern);
  }
  TemporaryFolder(TemporaryFolder&& other) noexcept : path_(std::move(other.path_)) {
    other.path_.clear();
  }
  TemporaryFolder& operator=(TemporaryFolder&&) = delete;
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  ~TemporaryFolder() {
    if (path_.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  explicit TemporaryFolder(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// Runs nsys with `arguments`, its output to `log` (never to stepscope's own output, which may
// be a report); the exit status, or -1 when it could not start.
int run_nsys(const std::string& nsys, std::vector<std::string> arguments, const std::string& log) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(nsys.c_str()));  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t child = 0;
  const int spawned = posix_spawn(&child, nsys.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

Result<Trace> read_report(const std::string& path, const LoadOptions& options,
                          std::vector<std::string>* notes) {
  auto failed = [&path](ErrorKind kind, std::string message) {
    Error error = make_error(kind, std::move(message));
    error.file = path;
    return error;
  };
  const std::optional<std::string> nsys = find_nsys();
  if (!nsys) {
    return failed(ErrorKind::kUnsupported,
                  "an Nsight Systems report (.nsys-rep) is read through its SQLite export, and "
                  "`nsys` is not on PATH: run `" +
                      export_command(path) + "` and pass the .sqlite file");
  }
  std::optional<TemporaryFolder> folder = TemporaryFolder::make();
  if (!folder) return failed(ErrorKind::kIo, "cannot make a temporary folder for the export");
  const std::string sqlite = folder->path() + "/report.sqlite";
  const std::string log = folder->path() + "/nsys.log";
  const int status = run_nsys(*nsys, {"export", "--type", "sqlite", "--output", sqlite, path}, log);
  if (status != 0 || !std::filesystem::exists(sqlite)) {
    return failed(ErrorKind::kNotTrace, "`nsys export` failed (exit status " +
                                            std::to_string(status) + "): run `" +
                                            export_command(path) + "` to see why");
  }
  std::vector<std::string> read_notes;
  Result<Trace> trace = read_sqlite(sqlite, options, &read_notes);
  if (!trace) {
    Error error = std::move(trace).error();
    error.file = path;
    return error;
  }
  trace->source_path = path;
  if (notes != nullptr) {
    notes->push_back(path + ": read through `nsys export --type sqlite` (" + *nsys +
                     ") into a temporary file, removed after");
    for (std::string& line : read_notes) {
      // The temporary's name means nothing to the user: the notes name the report.
      if (line.starts_with(sqlite)) line.replace(0, sqlite.size(), path);
      notes->push_back(std::move(line));
    }
  }
  return trace;
}

}  // namespace stepscope::nsys
