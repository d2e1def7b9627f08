// `stepscope run`'s preparation: the child's environment (the hook first on PYTHONPATH, the
// settings), the interpreter that will run the program's Python, the default out folder, and
// what the recorders left behind.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "stepscope/run/run.h"

namespace stepscope::run {
namespace {

namespace fs = std::filesystem;

fs::path fresh_folder(const std::string& name) {
  fs::path folder =
      fs::temp_directory_path() / ("stepscope_run_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

std::map<std::string, std::string> as_map(const EnvironmentEntries& entries) {
  return {entries.begin(), entries.end()};
}

TEST(RunHook, HookComesFirstOnPythonpathAndTheSettingsFollow) {
  RunSettings settings;
  settings.out = "/tmp/out";
  settings.skip = 2;
  settings.steps = 7;
  settings.step_fn = "train:step";
  settings.stacks = true;
  auto env = as_map(hook_environment(settings, "/pkg/stepscope/_run/startup", "/mine:/theirs"));
  EXPECT_EQ(env["PYTHONPATH"], "/pkg/stepscope/_run/startup:/mine:/theirs");
  EXPECT_EQ(env["STEPSCOPE_RUN_OUT"], "/tmp/out");
  EXPECT_EQ(env["STEPSCOPE_RUN_SKIP"], "2");
  EXPECT_EQ(env["STEPSCOPE_RUN_STEPS"], "7");
  EXPECT_EQ(env["STEPSCOPE_RUN_STEP_FN"], "train:step");
  EXPECT_EQ(env["STEPSCOPE_RUN_STACKS"], "1");
  EXPECT_EQ(env["STEPSCOPE_RUN_STOP_AFTER_WINDOW"], "0");
  EXPECT_EQ(env["STEPSCOPE_RUN_MEMORY"], "0");
  settings.memory = true;
  EXPECT_EQ(as_map(hook_environment(settings, "/hook", nullptr))["STEPSCOPE_RUN_MEMORY"], "1");
  EXPECT_EQ(as_map(hook_environment(settings, "/hook", nullptr))["PYTHONPATH"], "/hook");
  EXPECT_EQ(as_map(hook_environment(settings, "/hook", ""))["PYTHONPATH"], "/hook");
}

TEST(RunHook, PythonOfTheCommandFromItsNameOrItsShebang) {
  EXPECT_EQ(python_for_command({"/venv/bin/python3.11", "train.py"}), "/venv/bin/python3.11");
  EXPECT_EQ(python_for_command({"python", "-m", "pkg"}), "python");
  const fs::path folder = fresh_folder("shebang");
  const fs::path launcher = folder / "torchrun";
  std::ofstream(launcher) << "#!/venv/bin/python3 -u\nimport sys\n";
  ::chmod(launcher.c_str(), 0755);
  EXPECT_EQ(python_for_command({launcher.string(), "train.py"}), "/venv/bin/python3");
  const fs::path env_launcher = folder / "tool";
  std::ofstream(env_launcher) << "#!/usr/bin/env python3.12\n";
  ::chmod(env_launcher.c_str(), 0755);
  EXPECT_EQ(python_for_command({env_launcher.string()}), "python3.12");
  const fs::path shell = folder / "job.sh";
  std::ofstream(shell) << "#!/bin/sh\npython train.py\n";
  ::chmod(shell.c_str(), 0755);
  EXPECT_EQ(python_for_command({shell.string()}), "python3");
  fs::remove_all(folder);
}

TEST(RunHook, DefaultOutFolderIsNamedByTheLocalTime) {
  std::tm when{};
  when.tm_year = 2026 - 1900;
  when.tm_mon = 0;
  when.tm_mday = 2;
  when.tm_hour = 3;
  when.tm_min = 4;
  when.tm_sec = 5;
  when.tm_isdst = -1;
  EXPECT_EQ(default_out_folder_name(std::mktime(&when)), "stepscope-run-20260102-030405");
}

TEST(RunHook, OutputsAreTheTracesAndNotesAndAFolderWithTracesIsRefused) {
  const fs::path folder = fresh_folder("outputs");
  ASSERT_TRUE(prepare_out_folder(folder / "new").ok());
  EXPECT_TRUE(fs::is_directory(folder / "new"));
  std::ofstream(folder / "rank1.pt.trace.json.gz") << "x";
  std::ofstream(folder / "rank0.pt.trace.json.gz") << "x";
  std::ofstream(folder / ".rank2.pt.trace.json.gz.123.gz") << "x";  // being written
  std::ofstream(folder / "rank0.pid9.note.txt") << "the script profiles itself\n";
  std::ofstream(folder / "report.html") << "<html>";
  std::ofstream(folder / "rank3.oom.pickle") << "x";      // --memory, at the error
  std::ofstream(folder / "rank3.memory.pickle") << "x";   // --memory, the window's end
  std::ofstream(folder / ".rank1.oom.pickle.77") << "x";  // being written
  const RunOutputs outputs = collect_outputs(folder);
  ASSERT_EQ(outputs.out_of_memory_snapshots.size(), 1U);
  EXPECT_EQ(outputs.out_of_memory_snapshots[0].filename(), "rank3.oom.pickle");
  ASSERT_EQ(outputs.traces.size(), 2U);
  EXPECT_EQ(outputs.traces[0].filename(), "rank0.pt.trace.json.gz");
  EXPECT_EQ(outputs.traces[1].filename(), "rank1.pt.trace.json.gz");
  ASSERT_EQ(outputs.notes.size(), 1U);
  EXPECT_EQ(outputs.notes[0], "the script profiles itself");
  const Status refused = prepare_out_folder(folder);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::kBadOption);
  EXPECT_EQ(refused.error().file, folder.string());
  fs::remove_all(folder);
}

TEST(RunHook, HookFolderOverrideIsTaken) {
  ::setenv("STEPSCOPE_RUN_HOOK_DIR", "/opt/hook", 1);
  Result<fs::path> hook = find_hook_folder({"python3", "train.py"});
  ::unsetenv("STEPSCOPE_RUN_HOOK_DIR");
  ASSERT_TRUE(hook.ok());
  EXPECT_EQ(*hook, fs::path("/opt/hook"));
}

}  // namespace
}  // namespace stepscope::run
