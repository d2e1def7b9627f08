#include "concurrency/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <vector>

namespace stepscope {

void parallel_for(std::size_t tasks, unsigned workers,
                  const std::function<void(std::size_t)>& work) {
  std::atomic<std::size_t> next{0};
  auto drain = [&] {
    for (std::size_t i = next++; i < tasks; i = next++) work(i);
  };
  const std::size_t helpers = std::min<std::size_t>(workers, tasks);
  std::vector<std::thread> threads;
  threads.reserve(helpers);
  for (std::size_t t = 1; t < helpers; ++t) {
    try {
      threads.emplace_back(drain);
    } catch (const std::system_error&) {
      // No more threads (a process or address-space limit): the ones running, and this one,
      // share the work; fewer threads only take longer.
      break;
    }
  }
  drain();
  for (std::thread& t : threads) t.join();
}

}  // namespace stepscope
