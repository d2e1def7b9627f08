// Runs independent pieces of work on a few threads. Each piece writes only its own result, so
// the outcome is the same as running them in order on one thread.
#pragma once

#include <cstddef>
#include <functional>

namespace stepscope {

// Calls work(0) ... work(tasks - 1), each exactly once, on at most `workers` threads (the
// calling thread is one of them). Pieces are handed out in index order as threads free up, so
// list the longest pieces first.
void parallel_for(std::size_t tasks, unsigned workers,
                  const std::function<void(std::size_t)>& work);

}  // namespace stepscope
