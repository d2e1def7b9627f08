#include "concurrency/parallel_for.h"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace stepscope {
namespace {

TEST(ParallelFor, EveryIndexRunsExactlyOnceWhateverTheWorkers) {
  for (unsigned workers : {0U, 1U, 2U, 8U}) {
    for (std::size_t tasks : {0U, 1U, 2U, 3U, 100U}) {
      std::vector<std::atomic<int>> runs(tasks);
      parallel_for(tasks, workers, [&](std::size_t i) { ++runs[i]; });
      for (std::size_t i = 0; i < tasks; ++i) {
        EXPECT_EQ(runs[i].load(), 1) << "task " << i << " of " << tasks << ", " << workers;
      }
    }
  }
}

TEST(ParallelFor, TwoWorkersUseTwoThreadsAndOneWorkerOnlyTheCaller) {
  // With two workers, tasks 0 and 1 wait (up to 10 s, however busy the machine) until both
  // have started, which only two threads can do; one worker runs them in turn.
  auto threads_used = [](unsigned workers) {
    std::mutex mutex;
    std::condition_variable both_started;
    int started = 0;
    std::set<std::thread::id> ids;
    parallel_for(8, workers, [&](std::size_t i) {
      std::unique_lock lock(mutex);
      ids.insert(std::this_thread::get_id());
      if (i >= 2 || workers < 2) return;
      ++started;
      both_started.notify_all();
      both_started.wait_for(lock, std::chrono::seconds(10), [&] { return started == 2; });
    });
    return ids;
  };
  const std::set<std::thread::id> one = threads_used(1);
  ASSERT_EQ(one.size(), 1U);
  EXPECT_EQ(*one.begin(), std::this_thread::get_id());
  EXPECT_EQ(threads_used(2).size(), 2U);
}

}  // namespace
}  // namespace stepscope

// Under an address-space limit that leaves room for a few thread stacks only, asking for 500
// workers runs every task on the threads that could be made instead of aborting.
TEST(ParallelForDeathTest, ThreadsThatCannotBeMadeAreDoneWithout) {
  EXPECT_EXIT(
      {
        rlimit limit{};
        getrlimit(RLIMIT_AS, &limit);
        // Thread stacks are 8 MiB mappings: 64 MiB above what is mapped now fits a few.
        std::size_t mapped = 0;
        if (FILE* status = std::fopen("/proc/self/statm", "r")) {
          unsigned long pages = 0;
          if (std::fscanf(status, "%lu", &pages) == 1) mapped = pages * 4096UL;
          std::fclose(status);
        }
        limit.rlim_cur = mapped + (64UL << 20);
        setrlimit(RLIMIT_AS, &limit);
        std::atomic<std::size_t> done{0};
        stepscope::parallel_for(1000, 500, [&](std::size_t) { ++done; });
        std::_Exit(done == 1000 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}
