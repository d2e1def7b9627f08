#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "trace/column_pages.h"

namespace stepscope::column_storage {

namespace {

std::size_t page_size() {
  static const auto size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

std::size_t whole_pages(std::size_t bytes) {
  const std::size_t page = page_size();
  return (bytes + page - 1) / page * page;
}

std::byte* map_pages(std::size_t bytes) {
  void* pages = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return pages == MAP_FAILED ? nullptr : static_cast<std::byte*>(pages);
}

// Paged storage grown or shrunk: the kernel moves the pages where it can (one mapping), else a
// new mapping and a copy (a block that took over another's pages is several mappings).
Block remap(Block block, std::size_t used, std::size_t bytes) {
  const std::size_t mapped = whole_pages(bytes);
#if defined(__linux__)
  if (block.one_mapping) {
    void* moved = ::mremap(block.data, block.bytes, mapped, MREMAP_MAYMOVE);
    if (moved != MAP_FAILED) return Block{static_cast<std::byte*>(moved), mapped, true};
  }
#endif
  std::byte* fresh = map_pages(mapped);
  if (fresh == nullptr) throw std::bad_alloc();
  std::memcpy(fresh, block.data, std::min(used, mapped));
  ::munmap(block.data, block.bytes);
  return Block{fresh, mapped, true};
}

}  // namespace

Block allocate(std::size_t bytes, bool paged) {
  if (bytes == 0) return Block{nullptr, 0, paged};
#if defined(__linux__)
  if (paged) {
    const std::size_t mapped = whole_pages(bytes);
    std::byte* pages = map_pages(mapped);
    if (pages == nullptr) throw std::bad_alloc();
    return Block{pages, mapped, true};
  }
#endif
  void* memory = std::malloc(bytes);
  if (memory == nullptr) throw std::bad_alloc();
  return Block{static_cast<std::byte*>(memory), bytes, false};
}

Block reallocate(Block block, std::size_t used, std::size_t bytes) {
  if (block.data == nullptr) return allocate(bytes, block.paged);
  if (bytes == 0) {
    release(block);
    return Block{nullptr, 0, block.paged};
  }
  if (block.paged) return remap(block, used, bytes);
  void* grown = std::realloc(block.data, bytes);
  if (grown == nullptr) throw std::bad_alloc();
  return Block{static_cast<std::byte*>(grown), bytes, false};
}

void release(Block block) noexcept {
  if (block.data == nullptr) return;
  if (block.paged) {
    ::munmap(block.data, block.bytes);
  } else {
    std::free(block.data);
  }
}

std::byte* move_pages_after(Block& to, std::size_t to_used, Block& from, std::size_t from_used) {
#if defined(__linux__)
  if (!to.paged || !from.paged || !from.one_mapping || to.data == nullptr || from.data == nullptr ||
      from_used == 0) {
    return nullptr;
  }
  const std::size_t at = whole_pages(to_used);
  const std::size_t moved = whole_pages(from_used);
  if (at > to.bytes || moved > to.bytes - at) return nullptr;
  std::byte* target = to.data + at;
  void* placed = ::mremap(from.data, moved, moved, MREMAP_MAYMOVE | MREMAP_FIXED, target);
  if (placed == MAP_FAILED) {
    // The kernel may have unmapped the target before failing: map fresh pages there again, so
    // that `to` stays whole (they are `to`'s own, unused).
    void* again = ::mmap(target, moved, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (again == MAP_FAILED) std::abort();  // `to` would have a hole: nothing safe is left
    return nullptr;
  }
  if (from.bytes > moved) ::munmap(from.data + moved, from.bytes - moved);
  from = Block{nullptr, 0, from.paged};
  to.one_mapping = false;
  return target;
#else
  (void)to;
  (void)to_used;
  (void)from;
  (void)from_used;
  return nullptr;
#endif
}

}  // namespace stepscope::column_storage
