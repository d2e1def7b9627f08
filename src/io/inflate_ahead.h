// A .json.gz inflated whole into memory by a thread of its own, while the importer reads the
// inflated text in place behind it. Inflating is several times faster than reading trace
// events, so the inflating thread soon finishes and can read a later part of the text itself:
// two threads then read a compressed trace as they read a mapped one, each at one thread's
// speed, instead of handing parsed events between them.
//
// The text is held whole (pages behind the readers are released), so only traces whose gzip
// trailer promises a moderate size take this way; the rest are streamed.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "io/byte_source.h"

namespace stepscope::io {

class InflatingBuffer final : public ByteSource {
 public:
  // Chooses where a later part of the text starts, if anywhere: given the whole text and the
  // first byte the reader has not been shown yet (the later part must start at or after it).
  using ChooseHandOver =
      std::function<std::optional<std::uint64_t>(std::string_view text, std::uint64_t unseen)>;

  // `region`: where the text is inflated, `page` the system's page size, `release_unit` the
  // size of the pages backing the region (huge pages, when the kernel took that advice): the
  // text the reader is done with goes back to the system in whole units of it.
  InflatingBuffer(std::unique_ptr<ByteSource> gzip, char* region, std::size_t region_size,
                  std::size_t page, std::size_t release_unit);
  ~InflatingBuffer() override;
  InflatingBuffer(const InflatingBuffer&) = delete;
  InflatingBuffer& operator=(const InflatingBuffer&) = delete;

  // Run by the inflating thread: inflates everything, showing the reader the text as it grows,
  // then calls `choose` and tells the reader the end and where the later part starts. On an
  // error, the reader gets it once it has read the text before it. False on an error, or when
  // the text outgrew the room the gzip trailer promised (overflowed()).
  bool inflate_all(const ChooseHandOver& choose);
  // The error inflating met, if any: corrupt compressed data explains whatever the reader
  // found wrong in the text, so the importer reports this one first.
  [[nodiscard]] std::optional<Error> inflation_error() const;
  // The text did not fit (a trailer that understates it, as several concatenated members'
  // does): the reading must start again from a stream.
  [[nodiscard]] bool overflowed() const;
  // The whole text, once inflate_all() has returned true.
  [[nodiscard]] std::string_view text() const;

  Result<std::size_t> read(char* destination, std::size_t capacity) override;
  [[nodiscard]] std::uint64_t raw_bytes_consumed() const override;
  [[nodiscard]] std::uint64_t raw_bytes_total() const override;
  [[nodiscard]] bool is_compressed() const override { return true; }
  [[nodiscard]] std::string_view mapped() const override;
  void release(std::uint64_t begin, std::uint64_t end) override;
  [[nodiscard]] bool grows() const override { return true; }
  Result<Growth> wait_for_more(std::uint64_t have) override;

 private:
  bool inflate_all_or_throw(const ChooseHandOver& choose);
  void publish(std::uint64_t inflated);
  void fail(Error error);

  std::unique_ptr<ByteSource> gzip_;
  char* region_;
  std::size_t region_size_;
  std::size_t page_;
  std::size_t release_unit_;
  mutable std::mutex mutex_;
  std::condition_variable grew_;
  std::uint64_t shown_ = 0;   // readable by the reader (written, with 64 written bytes after)
  std::uint64_t handed_ = 0;  // the most the reader has been told it may read
  bool complete_ = false;
  bool overflowed_ = false;
  std::optional<Error> error_;  // for the reader: the inflation's, or the overflow
  std::optional<Error> inflation_error_;
  std::optional<std::uint64_t> handed_over_from_;
  std::uint64_t size_ = 0;           // the whole text, once complete
  std::uint64_t read_position_ = 0;  // of read()
};

// The whole units of `unit` bytes (aligned in memory) inside bytes [begin, end) of a region at
// `base`, as offsets into it: what release() can hand back without splitting a page. Empty
// (first >= last) when none lies wholly inside.
struct OffsetRange {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
};
OffsetRange whole_units_within(std::uintptr_t base, std::uint64_t begin, std::uint64_t end,
                               std::uint64_t unit);

// A gzip file whose trailer says it inflates to between `min_bytes` and `max_bytes`: a buffer
// to inflate it into, with room reserved for the trailer's size; nullptr when the file is not
// such a file or the room cannot be reserved.
std::unique_ptr<InflatingBuffer> inflating_buffer_for(const std::string& path,
                                                      std::uint64_t min_bytes,
                                                      std::uint64_t max_bytes);

}  // namespace stepscope::io
