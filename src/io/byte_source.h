// Sources of input bytes: a plain file or a gzip stream, read in chunks so that a trace of
// several gigabytes never has to be held whole in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "stepscope/error.h"

namespace stepscope::io {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `capacity` bytes; 0 means the end of the input.
  virtual Result<std::size_t> read(char* destination, std::size_t capacity) = 0;
  // Bytes of the underlying file consumed so far and its size, for progress reports. The count
  // may be read on one thread while another reads the source (the import's progress bar).
  [[nodiscard]] virtual std::uint64_t raw_bytes_consumed() const = 0;
  [[nodiscard]] virtual std::uint64_t raw_bytes_total() const = 0;
  [[nodiscard]] virtual bool is_compressed() const { return false; }
  // The whole input when the source maps a plain file (with at least 64 readable bytes after
  // its end), so that a reader can scan it in place instead of copying it out with read();
  // empty for streams. Readers of a mapping say what they are done with by release().
  [[nodiscard]] virtual std::string_view mapped() const { return {}; }
  // A reader is done with the bytes in [begin, end): they count as consumed for progress, and a
  // mapped source lets the pages wholly inside go, so that the mapping never holds more than a
  // few megabytes of the process's memory. Readers of disjoint ranges may call it at once.
  virtual void release(std::uint64_t /*begin*/, std::uint64_t /*end*/) {}

  // A source whose output grows in place while it is read (inflate_ahead.h): mapped() is what
  // it holds so far, and wait_for_more() waits for more of it.
  [[nodiscard]] virtual bool grows() const { return false; }
  struct Growth {
    std::uint64_t size = 0;  // readable from mapped().data(), 64 bytes of padding after it
    bool complete = false;   // size is the whole input
    // Where another reader takes over the reading (the events from there on are its), told
    // once, with the end of the input.
    std::optional<std::uint64_t> handed_over_from;
  };
  // Blocks until more than `have` bytes are readable, or the input is complete, or failed.
  virtual Result<Growth> wait_for_more(std::uint64_t have) { return Growth{have, true, {}}; }
};

// Opens a file; gzip input (recognised by its magic bytes) is decompressed on the fly,
// including files of several concatenated gzip members.
Result<std::unique_ptr<ByteSource>> open_byte_source(const std::string& path);

// A source over bytes already in memory (tests, fuzzing, Python strings). Not owning.
std::unique_ptr<ByteSource> memory_byte_source(const char* data, std::size_t size);

// The same, read in place like a mapped file (mapped() is the bytes): the caller guarantees 64
// readable bytes after data + size. For testing and fuzzing the readers of mappings.
std::unique_ptr<ByteSource> padded_memory_byte_source(const char* data, std::size_t size);

}  // namespace stepscope::io
