#include "stepscope/run/run.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

namespace stepscope::run {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kTraceSuffix = ".pt.trace.json.gz";
constexpr std::string_view kNoteSuffix = ".note.txt";
constexpr std::string_view kOutOfMemorySuffix = ".oom.pickle";
// Prints the folder of the stepscope package without importing it (no extension loaded).
constexpr const char* kLocateHook =
    "import importlib.util as u, os; s = u.find_spec('stepscope'); "
    "print(os.path.join(list(s.submodule_search_locations)[0], '_run', 'startup') if s else '')";

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The program's path as execvp would find it; empty when it is not on PATH.
fs::path resolve_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::istringstream folders(path ? path : "");
  for (std::string folder; std::getline(folders, folder, ':');) {
    fs::path candidate = fs::path(folder.empty() ? "." : folder) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

// The interpreter named by a `#!` line when it is Python ("#!/usr/bin/env python3" too).
std::string shebang_python(const fs::path& script) {
  std::ifstream in(script, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line) || !line.starts_with("#!")) return {};
  std::istringstream words(line.substr(2));
  std::vector<std::string> parts{std::istream_iterator<std::string>(words), {}};
  if (!parts.empty() && fs::path(parts[0]).filename() == "env") parts.erase(parts.begin());
  if (parts.empty() || !fs::path(parts[0]).filename().string().starts_with("python")) return {};
  return parts[0];
}

// Runs `argv` and returns its standard output; standard error is left to the terminal.
Result<std::string> capture_output(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::array<int, 2> pipe_ends{};
  if (::pipe2(pipe_ends.data(), O_CLOEXEC) != 0) {
    return make_error(ErrorKind::kIo, std::string("cannot make a pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_ends[1]);
  std::string output;
  if (spawned == 0) {
    std::array<char, 4096> buffer{};
    ssize_t got = 0;
    while ((got = ::read(pipe_ends[0], buffer.data(), buffer.size())) != 0) {
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) break;
      output.append(buffer.data(), static_cast<std::size_t>(got));
    }
  }
  ::close(pipe_ends[0]);
  if (spawned != 0) {
    return make_error(ErrorKind::kBadOption,
                      fmt::format("cannot run {}: {}", argv[0], std::strerror(spawned)));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return make_error(ErrorKind::kBadOption, fmt::format("{} failed", argv[0]));
  }
  return output;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

std::string python_for_command(const std::vector<std::string>& command) {
  if (command.empty()) return "python3";
  if (fs::path(command[0]).filename().string().starts_with("python")) return command[0];
  const fs::path program = resolve_program(command[0]);
  if (!program.empty()) {
    if (std::string interpreter = shebang_python(program); !interpreter.empty()) {
      return interpreter;
    }
  }
  return "python3";
}

Result<fs::path> find_hook_folder(const std::vector<std::string>& command) {
  if (const char* overridden = std::getenv("STEPSCOPE_RUN_HOOK_DIR");
      overridden != nullptr && *overridden != '\0') {
    return fs::absolute(overridden);
  }
  const std::string python = python_for_command(command);
  Result<std::string> output = capture_output({python, "-c", kLocateHook});
  std::string folder = output ? *output : std::string();
  while (!folder.empty() && (folder.back() == '\n' || folder.back() == '\r')) folder.pop_back();
  std::error_code error;
  if (folder.empty() || !fs::is_regular_file(fs::path(folder) / "sitecustomize.py", error)) {
    return make_error(ErrorKind::kBadOption,
                      fmt::format("{} cannot import the stepscope package, which holds the "
                                  "recorder: `pip install .` (or stepscope) into the environment "
                                  "of the command's Python, or set STEPSCOPE_RUN_HOOK_DIR to the "
                                  "package's _run/startup folder",
                                  python));
  }
  return fs::path(folder);
}

EnvironmentEntries hook_environment(const RunSettings& settings, const fs::path& hook_folder,
                                    const char* existing_pythonpath) {
  std::string pythonpath = hook_folder.string();
  if (existing_pythonpath != nullptr && *existing_pythonpath != '\0') {
    pythonpath += ':';
    pythonpath += existing_pythonpath;
  }
  EnvironmentEntries entries = {
      {"PYTHONPATH", pythonpath},
      {"STEPSCOPE_RUN_OUT", settings.out.string()},
      {"STEPSCOPE_RUN_SKIP", std::to_string(settings.skip)},
      {"STEPSCOPE_RUN_STEPS", std::to_string(settings.steps)},
      {"STEPSCOPE_RUN_STEP_FN", settings.step_fn},
      {"STEPSCOPE_RUN_SECONDS", fmt::format("{}", settings.seconds)},
      {"STEPSCOPE_RUN_STACKS", settings.stacks ? "1" : "0"},
      {"STEPSCOPE_RUN_STOP_AFTER_WINDOW", settings.stop_after_window ? "1" : "0"},
      {"STEPSCOPE_RUN_MEMORY", settings.memory ? "1" : "0"},
  };
  return entries;
}

Status export_environment(const EnvironmentEntries& entries) {
  for (const auto& [name, value] : entries) {
    if (::setenv(name.c_str(), value.c_str(), 1) != 0) {
      return make_error(ErrorKind::kIo,
                        fmt::format("cannot set {}: {}", name, std::strerror(errno)));
    }
  }
  return Done{};
}

std::string default_out_folder_name(std::time_t now) {
  std::tm local{};
  ::localtime_r(&now, &local);
  std::array<char, 32> stamp{};
  const std::size_t length = std::strftime(stamp.data(), stamp.size(), "%Y%m%d-%H%M%S", &local);
  return "stepscope-run-" + std::string(stamp.data(), length);
}

RunOutputs collect_outputs(const fs::path& out) {
  RunOutputs outputs;
  std::vector<fs::path> notes;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(out, error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with('.') || !entry.is_regular_file(error)) continue;
    if (ends_with(name, kTraceSuffix)) outputs.traces.push_back(entry.path());
    if (ends_with(name, kNoteSuffix)) notes.push_back(entry.path());
    if (ends_with(name, kOutOfMemorySuffix))
      outputs.out_of_memory_snapshots.push_back(entry.path());
  }
  std::sort(outputs.traces.begin(), outputs.traces.end());
  std::sort(outputs.out_of_memory_snapshots.begin(), outputs.out_of_memory_snapshots.end());
  std::sort(notes.begin(), notes.end());
  for (const fs::path& note : notes) {
    std::string text = read_text(note);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    if (!text.empty()) outputs.notes.push_back(std::move(text));
  }
  return outputs;
}

Status prepare_out_folder(const fs::path& out) {
  std::error_code error;
  fs::create_directories(out, error);
  if (error || !fs::is_directory(out, error)) {
    Error failure = make_error(ErrorKind::kIo, "cannot create the out folder: " + error.message());
    failure.file = out.string();
    return failure;
  }
  if (!collect_outputs(out).traces.empty()) {
    Error failure =
        make_error(ErrorKind::kBadOption,
                   "the out folder already holds traces of an earlier run; choose another --out");
    failure.file = out.string();
    return failure;
  }
  return Done{};
}

}  // namespace stepscope::run
