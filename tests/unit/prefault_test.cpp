// Prefaulting: the pages of a column's next rows become resident, and nothing already written
// changes.
#include "io/prefault.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace stepscope::io {
namespace {

TEST(Prefault, WrittenRowsKeepTheirValues) {
  std::vector<std::int64_t> column;
  column.reserve(1 << 20);
  for (std::int64_t i = 0; i < 1000; ++i) column.push_back(i * 7);
  prefault_unused(column, 1 << 16);
  for (std::int64_t i = 0; i < 1000; ++i) EXPECT_EQ(column[static_cast<std::size_t>(i)], i * 7);
  for (std::int64_t i = 1000; i < 200'000; ++i) column.push_back(i * 7);
  EXPECT_EQ(column.back(), 199'999 * 7);
  std::vector<std::int64_t> full(10, 1);
  full.shrink_to_fit();
  prefault_unused(full, 1 << 16);  // no room: nothing to do
  EXPECT_EQ(std::accumulate(full.begin(), full.end(), std::int64_t{0}), 10);
}

#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
// Fresh anonymous memory is not resident until written; after prefault_for_write the pages of
// the range are, from an unaligned start to its end, and the pages after it are not.
TEST(Prefault, PagesOfTheRangeBecomeResident) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  constexpr std::size_t kPages = 64;
  void* mapped =
      mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  auto* bytes = static_cast<unsigned char*>(mapped);
  std::vector<unsigned char> resident(kPages);
  ASSERT_EQ(mincore(mapped, kPages * page, resident.data()), 0);
  if (madvise(mapped, page, MADV_POPULATE_WRITE) != 0) {
    munmap(mapped, kPages * page);
    GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux 5.14 and later)";
  }
  prefault_for_write(bytes + page + 100, 10 * page);  // pages 1 to 11
  ASSERT_EQ(mincore(mapped, kPages * page, resident.data()), 0);
  for (std::size_t p = 1; p <= 11; ++p) EXPECT_TRUE(resident[p] & 1U) << p;
  for (std::size_t p = 12; p < kPages; ++p) EXPECT_FALSE(resident[p] & 1U) << p;
  EXPECT_EQ(bytes[page + 100], 0);  // contents unchanged: fresh memory reads as zeros
  munmap(mapped, kPages * page);
}
#endif

}  // namespace
}  // namespace stepscope::io
