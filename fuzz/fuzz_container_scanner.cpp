// libFuzzer target: the SIMD bracket scanner must agree with the scalar reference on any input
// that starts with '{' or '['. Buffers are padded as the splitter pads them.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "importers/kineto/container_scanner.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || (data[0] != '{' && data[0] != '[')) return 0;
  constexpr std::size_t kPadding = 64;
  // Padding filled with bytes that would matter if they were read as input.
  std::vector<char> buffer(size + kPadding, '}');
  std::memcpy(buffer.data(), data, size);
  bool fast_ascii = false;
  bool reference_ascii = false;
  const std::size_t fast = stepscope::kineto::find_container_end(buffer.data(), size, fast_ascii);
  const std::size_t reference =
      stepscope::kineto::find_container_end_scalar(buffer.data(), size, reference_ascii);
  if (fast != reference || (fast <= size && fast_ascii != reference_ascii)) {
    std::fprintf(stderr, "scanner mismatch: simd %zu (ascii %d), scalar %zu (ascii %d)\n", fast,
                 fast_ascii, reference, reference_ascii);
    std::abort();
  }
  if (fast <= size) {
    if (buffer[fast - 1] != '}' && buffer[fast - 1] != ']') std::abort();
  }
  return 0;
}
