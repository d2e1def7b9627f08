// Called by a reading schedule now and then, so that the loader can report progress.
#pragma once

#include <functional>

namespace stepscope::kineto {

using ProgressTick = std::function<void()>;

}  // namespace stepscope::kineto
