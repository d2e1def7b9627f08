#include "allocator.h"

// <malloc.h> first: __GLIBC__ is defined by the C library's own headers.
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

namespace stepscope::cli {

void bound_allocator_caching() {
#if defined(__GLIBC__)
  constexpr int kMmapThresholdBytes = 256 * 1024;
  mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes);
#endif
}

}  // namespace stepscope::cli
