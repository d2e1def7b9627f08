#include "concurrency/parallel_for.h"

#include <algorithm>
#include <atomic>
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
  for (std::size_t t = 1; t < helpers; ++t) threads.emplace_back(drain);
  drain();
  for (std::thread& t : threads) t.join();
}

}  // namespace stepscope
