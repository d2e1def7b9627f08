#include "importers/kineto/event_splitter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace stepscope::kineto {
namespace {

// Hands out at most `step` bytes per read, as a pipe or a slow inflater may.
class TrickleSource final : public io::ByteSource {
 public:
  TrickleSource(std::string text, std::size_t step) : text_(std::move(text)), step_(step) {}
  Result<std::size_t> read(char* destination, std::size_t capacity) override {
    const std::size_t n = std::min({capacity, step_, text_.size() - at_});
    std::copy_n(text_.data() + at_, n, destination);
    at_ += n;
    return n;
  }
  [[nodiscard]] std::uint64_t raw_bytes_consumed() const override { return at_; }
  [[nodiscard]] std::uint64_t raw_bytes_total() const override { return text_.size(); }

 private:
  std::string text_;
  std::size_t step_;
  std::size_t at_ = 0;
};

struct SplitEvent {
  std::string text;
  std::uint64_t file_offset = 0;
  bool ascii = false;
  bool operator==(const SplitEvent&) const = default;
};

std::vector<SplitEvent> split(const std::string& document, std::size_t read_step,
                              std::size_t batch_bytes) {
  TrickleSource source(document, read_step);
  EventSplitter splitter(source);
  std::vector<SplitEvent> events;
  for (;;) {
    EventBatch batch;
    Result<bool> more = splitter.next(batch, batch_bytes);
    EXPECT_TRUE(more) << (more ? "" : more.error().describe());
    if (!more || !*more) break;
    for (const EventSlice& slice : batch.events) {
      events.push_back({std::string(batch.padded().data() + slice.offset, slice.length),
                        slice.file_offset, slice.ascii});
    }
  }
  return events;
}

// Events with whitespace of every kind between them, strings holding brackets and separators,
// and non-ASCII text: whatever the reads and the batch size, the same events come out, at their
// offsets in the document.
TEST(EventSplitter, SameEventsWhateverTheReadSizeAndBatchSize) {
  const std::vector<std::string> events = {
      R"({"ph":"X","name":"a","ts":1,"dur":2})",
      R"({"ph":"X","name":"}, {","ts":3,"args":{"k":[1,{"x":"]"}]}})",
      "{\"ph\":\"i\",\"name\":\"caf\xc3\xa9\",\"ts\":4}",
      R"({"ph":"X","name":"b\"},{","ts":5,"dur":1})",
      R"({})",
  };
  const std::vector<std::string> separators = {",", " ,\n  ", "\t,\r\n", ",\n\n\n    "};
  std::string document = "{\"traceEvents\": [\n  ";
  std::vector<SplitEvent> expected;
  for (int copy = 0; copy < 40; ++copy) {
    for (std::size_t k = 0; k < events.size(); ++k) {
      if (!expected.empty()) document += separators[(k + copy) % separators.size()];
      const bool ascii = events[k].find('\xc3') == std::string::npos;
      expected.push_back({events[k], document.size(), ascii});
      document += events[k];
    }
  }
  document += "\n], \"displayTimeUnit\": \"ms\"}";
  for (const std::size_t read_step : {1UL, 7UL, 64UL, 1000UL, document.size()}) {
    for (const std::size_t batch_bytes : {1UL, 100UL, 4096UL}) {
      EXPECT_EQ(split(document, read_step, batch_bytes), expected)
          << "reads of " << read_step << " bytes, batches of " << batch_bytes;
    }
  }
}

TEST(EventSplitter, AnEventCutShortIsAnError) {
  const std::string document = R"({"traceEvents": [{"ph":"X","ts":1}, {"ph":"X","ts)";
  TrickleSource source(document, 5);
  EventSplitter splitter(source);
  EventBatch batch;
  Result<bool> more = splitter.next(batch, 1 << 20);
  ASSERT_FALSE(more);
  EXPECT_NE(more.error().message.find("truncated"), std::string::npos) << more.error().message;
}

}  // namespace
}  // namespace stepscope::kineto
