// Finds the end of a JSON object or array (the matching bracket, outside strings) quickly: the
// splitter calls this once per event, so it is the importer's inner loop.
#pragma once

#include <cstddef>

namespace stepscope::kineto {

inline constexpr std::size_t kContainerIncomplete = static_cast<std::size_t>(-1);
inline constexpr std::size_t kContainerUnbalanced = static_cast<std::size_t>(-2);
inline constexpr std::size_t kContainerTooDeep = static_cast<std::size_t>(-3);
// No profiler event nests this deep; deeper input is refused rather than handed to a parser.
inline constexpr std::size_t kMaxContainerDepth = 256;

// `data[0]` is '{' or '['. Returns the offset one past the matching bracket,
// kContainerIncomplete if `size` bytes end first, kContainerUnbalanced if a closing bracket
// appears at depth zero, or kContainerTooDeep past kMaxContainerDepth. May read up to 64 bytes past
// `size` (the caller pads its buffers).
std::size_t find_container_end(const char* data, std::size_t size);
// The same, also telling whether every byte up to the end found is ASCII (below 0x80): such a
// value needs no UTF-8 validation. `ascii` is meaningful only when an end is returned.
std::size_t find_container_end(const char* data, std::size_t size, bool& ascii);
// The byte-at-a-time version: the fallback without AVX2, and the reference in tests.
std::size_t find_container_end_scalar(const char* data, std::size_t size, bool& ascii);

}  // namespace stepscope::kineto
