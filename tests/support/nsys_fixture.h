// Writes small Nsight Systems SQLite exports for unit tests: the tables and columns that
// `nsys export --type sqlite` writes (NVIDIA's SQLite schema reference), with the rows each
// test states. Times are microseconds, as in TraceFixture, so that one planted loop can be
// written in both formats; host events go to process 100 like TraceFixture's.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace stepscope::testing {

// A folder under the system's temporary folder, with a unique name, removed with everything in
// it when the object goes.
class TempFolder {
 public:
  TempFolder();
  ~TempFolder();
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

class NsysFixture {
 public:
  static constexpr std::int64_t kPid = 100;

  // A CUDA runtime call as Nsight names it (`cudaLaunchKernel_v7000`).
  NsysFixture& runtime(const std::string& name, double ts, double dur, std::int64_t correlation,
                       int tid = 1);
  NsysFixture& kernel(const std::string& name, double ts, double dur, std::int64_t correlation,
                      int stream = 7, int device = 0);
  NsysFixture& memcpy(double ts, double dur, std::int64_t correlation, std::int64_t bytes,
                      int copy_kind = 1, int stream = 7, int device = 0);
  NsysFixture& memset(double ts, double dur, std::int64_t correlation, std::int64_t bytes,
                      int stream = 7, int device = 0);
  // The launch call at `call_ts` for 5 µs (`cudaLaunchKernel_v7000`), its kernel at `ts`.
  NsysFixture& launched_kernel(const std::string& name, double call_ts, double ts, double dur,
                               int tid = 1, int stream = 7);
  // An NVTX push/pop range (event type 59), or start/end (60); `domain` 0 is the default one.
  NsysFixture& range(const std::string& text, double ts, double dur, int tid = 1,
                     std::int64_t domain = 0, int event_type = 59);
  // A range that was pushed and never popped (its end is NULL).
  NsysFixture& open_range(const std::string& text, double ts, int tid = 1);
  NsysFixture& domain(std::int64_t id, const std::string& name);
  NsysFixture& thread_name(int tid, const std::string& name);
  // CUDA_GPU_MEMORY_USAGE_EVENTS: operation 0 allocates, 1 frees.
  NsysFixture& memory(double ts, std::uint64_t address, std::int64_t bytes, int operation,
                      int device = 0);
  NsysFixture& gpu(int id, const std::string& name, int sm_count, int compute_major,
                   int compute_minor, std::int64_t total_memory);
  // Exports older than 2023 lack NVTX_EVENTS.textId/domainId and the kernel's demangledName.
  NsysFixture& old_schema();

  // Writes the export to `file` (which must not exist); a failure fails the calling test.
  void write(const std::string& file) const;

 private:
  struct Row {
    std::string table;
    std::vector<std::pair<std::string, std::string>> values;  // column, SQL literal
  };
  std::int64_t string_id(const std::string& text);
  NsysFixture& add(const std::string& table,
                   std::vector<std::pair<std::string, std::string>> values);

  std::int64_t next_correlation_ = 1'000'000;
  std::map<std::string, std::int64_t> strings_;
  std::vector<Row> rows_;
  bool old_schema_ = false;
};

// A global thread id as Nsight writes it: the process id in bits 24-47, the thread id below.
constexpr std::int64_t nsys_global_tid(std::int64_t pid, std::int64_t tid) {
  return (pid << 24) | tid;
}

}  // namespace stepscope::testing
