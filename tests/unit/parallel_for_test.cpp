#include "concurrency/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
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
