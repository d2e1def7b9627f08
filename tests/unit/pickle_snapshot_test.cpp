// The snapshot pickle reader on hand-written opcode sequences: what pickle.dump writes, and what
// a hostile file could hold.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "stepscope/snapshot.h"
#include "stepscope/snapshot_report.h"

namespace stepscope {
namespace {

// Builds protocol-4 opcode sequences.
class Pickle {
 public:
  Pickle() { bytes_ = "\x80\x04"; }
  Pickle& op(char c) {
    bytes_.push_back(c);
    return *this;
  }
  Pickle& str(std::string_view s) {
    bytes_.push_back(static_cast<char>(0x8c));
    bytes_.push_back(static_cast<char>(s.size()));
    bytes_ += s;
    return *this;
  }
  Pickle& integer(std::uint8_t v) {
    bytes_.push_back('K');
    bytes_.push_back(static_cast<char>(v));
    return *this;
  }
  Pickle& raw(std::string_view s) {
    bytes_ += s;
    return *this;
  }
  Pickle& memoize() { return op(static_cast<char>(0x94)); }
  Pickle& get(std::uint8_t slot) {
    bytes_.push_back('h');
    bytes_.push_back(static_cast<char>(slot));
    return *this;
  }
  [[nodiscard]] Result<MemorySnapshot> load() const {
    return load_memory_snapshot_bytes(bytes_.data(), bytes_.size(), "test.pickle");
  }

 private:
  std::string bytes_;
};

// {"device_traces": [[{"action": "alloc", "addr": 16, "size": 200,
//                      "frames": [F, F]}]]} where F = {"filename": "a.py", "line": 7,
// "name": "f"} occurs twice in the same list (the second time from the memo).
Pickle one_alloc_with_a_repeated_frame() {
  Pickle p;
  p.op('}').memoize().str("device_traces").memoize();                           // memo 0, 1
  p.op(']').memoize().op(']').memoize();                                        // memo 2, 3
  p.op('}').memoize().op('(');                                                  // entry, memo 4
  p.str("action").memoize().str("alloc").memoize();                             // memo 5, 6
  p.str("addr").memoize().integer(16).str("size").memoize().integer(200);       // memo 7, 8
  p.str("frames").memoize().op(']').memoize().op('(');                          // memo 9, 10
  p.op('}').memoize().op('(').str("filename").memoize().str("a.py").memoize();  // 11, 12, 13
  p.str("line").memoize().integer(7).str("name").memoize().str("f").memoize();  // 14, 15, 16
  p.op('u').get(11).op('e');  // the frame, then the same frame again; APPENDS
  p.op('u');                  // the entry's SETITEMS
  p.op('a').op('a').op('s').op('.');
  return p;
}

TEST(PickleSnapshot, AFrameRepeatedInOneStackIsSharedNotLost) {
  Result<MemorySnapshot> snapshot = one_alloc_with_a_repeated_frame().load();
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().describe();
  ASSERT_EQ(snapshot->entries.size(), 1U);
  const SnapshotEntry& entry = snapshot->entries[0];
  EXPECT_EQ(entry.action, SnapshotAction::kAlloc);
  EXPECT_EQ(entry.address, 16U);
  EXPECT_EQ(entry.size, 200);
  EXPECT_EQ(entry.device, 0);
  ASSERT_EQ(snapshot->frames.size(), 1U);
  const auto stack = snapshot->stack(entry.stack);
  ASSERT_EQ(stack.size(), 2U);
  EXPECT_EQ(stack[0], stack[1]);
  EXPECT_EQ(describe_frame(*snapshot, stack[0]), "f (a.py:7)");
}

TEST(PickleSnapshot, ARecursiveListIsRefusedWithoutACrash) {
  Pickle p;
  p.op(']').memoize().get(0).op('a').op('.');  // l = []; l.append(l)
  Result<MemorySnapshot> snapshot = p.load();
  ASSERT_FALSE(snapshot.ok());
  EXPECT_EQ(snapshot.error().file, "test.pickle");
  EXPECT_NE(snapshot.error().message.find("not a memory snapshot"), std::string::npos)
      << snapshot.error().describe();
}

TEST(PickleSnapshot, NegativeAndWideIntegersAndFloatsAreRead) {
  Pickle p;  // {"device_traces": [[{"action": "oom", "size": -2 (LONG1), "device_free": 2^40,
             //   "stream": 1.5}]]} — a float where an integer belongs is refused by name.
  p.op('}').str("device_traces").op(']').op(']').op('}').op('(');
  p.str("action").str("oom").str("size").raw(std::string("\x8a\x01\xfe", 3));
  p.str("device_free").raw(std::string("\x8a\x06\x00\x00\x00\x00\x00\x01", 8));
  p.op('u').op('a').op('a').op('s').op('.');
  Result<MemorySnapshot> snapshot = p.load();
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().describe();
  ASSERT_EQ(snapshot->entries.size(), 1U);
  EXPECT_EQ(snapshot->entries[0].size, -2);
  ASSERT_EQ(snapshot->ooms.size(), 1U);
  EXPECT_EQ(snapshot->ooms[0].device_free, std::int64_t{1} << 40);

  Pickle bad;
  bad.op('}').str("device_traces").op(']').op(']').op('}').op('(');
  bad.str("action").str("alloc").str("stream").raw(std::string("G\x3f\xf8\0\0\0\0\0\0", 9));
  bad.op('u').op('a').op('a').op('s').op('.');
  Result<MemorySnapshot> refused = bad.load();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("'stream' is not an integer"), std::string::npos);
  EXPECT_TRUE(refused.error().byte_offset.has_value());
}

TEST(PickleSnapshot, HostileInputsAreRefusedWithTheirOffset) {
  const std::string cases[] = {
      std::string("\x80\x04\x95\xff\xff\xff\xff\xff\xff\xff\x7f", 11),  // a frame, then nothing
      std::string("\x80\x04X\xff\xff\xff\x7f", 7),                      // 2 GB string length
      std::string("\x80\x04\x8b\xff\xff\xff\x7f", 7),                   // 2 GB integer
      std::string("\x80\x04q\x07", 4),                                  // memo slot 7 first
      std::string("\x80\x04"
                  "cos\nsystem\n",
                  12),                              // GLOBAL
      std::string("\x80\x04u.", 4),                 // SETITEMS, no MARK
      std::string("\x80\x04]K\x01u.", 6),           // SETITEMS odd
      std::string("\x80\x04N.N.", 6).substr(0, 3),  // no STOP
  };
  for (const std::string& bytes : cases) {
    Result<MemorySnapshot> snapshot =
        load_memory_snapshot_bytes(bytes.data(), bytes.size(), "hostile.pickle");
    ASSERT_FALSE(snapshot.ok());
    EXPECT_EQ(snapshot.error().file, "hostile.pickle");
    EXPECT_TRUE(snapshot.error().byte_offset.has_value()) << snapshot.error().describe();
  }
}

TEST(PickleSnapshot, DeepNestingIsBoundedNotRecursive) {
  std::string bytes = "\x80\x04";
  for (int i = 0; i < 200'000; ++i) bytes += "]";  // 200,000 open lists, never closed
  bytes += ".";
  Result<MemorySnapshot> snapshot =
      load_memory_snapshot_bytes(bytes.data(), bytes.size(), "deep.pickle");
  ASSERT_FALSE(snapshot.ok());
  EXPECT_NE(snapshot.error().message.find("STOP with 200000 values"), std::string::npos)
      << snapshot.error().describe();
}

// A trace that starts after allocations were made, and has no free_completed entries (so
// free_requested ends allocations): what was allocated before counts towards the peak.
TEST(SnapshotAnalysis, AllocationsFromBeforeTheTraceAndFreeRequested) {
  MemorySnapshot s;
  s.device_trace_count = 1;
  auto add = [&s](SnapshotAction action, std::uint64_t address, std::int64_t size) {
    SnapshotEntry e;
    e.action = action;
    e.device = 0;
    e.address = address;
    e.size = size;
    s.entries.push_back(e);
  };
  add(SnapshotAction::kAlloc, 0x10, 100);
  add(SnapshotAction::kFreeRequested, 0x99, 1000);  // made before the trace
  add(SnapshotAction::kAlloc, 0x20, 300);
  add(SnapshotAction::kFreeRequested, 0x10, 100);
  const SnapshotReport report = analyze_memory_snapshot(s, 5);
  ASSERT_EQ(report.devices.size(), 1U);
  const SnapshotDevice& d = report.devices[0];
  EXPECT_FALSE(d.frees_from_completed);
  EXPECT_EQ(d.allocated_before_trace, 1000);
  EXPECT_EQ(d.peak_bytes, 1100);  // 1000 + 100 before the free of 0x99
  EXPECT_EQ(d.peak_entry, 0);
  EXPECT_EQ(d.never_freed, 1);
  EXPECT_EQ(d.never_freed_bytes, 300);
  ASSERT_EQ(d.never_freed_by_site.size(), 1U);
  EXPECT_EQ(d.never_freed_by_site[0].site, kNoFrame);
}

}  // namespace
}  // namespace stepscope

namespace stepscope {
namespace {

// Found by fuzzing: times and sizes from a file can be anything; no sum or product of them may
// overflow (UBSan runs these tests in CI).
TEST(SnapshotAnalysis, ExtremeTimesAndSizesDoNotOverflow) {
  MemorySnapshot s;
  s.device_trace_count = 1;
  for (std::int64_t value : {std::numeric_limits<std::int64_t>::min() + 1,
                             std::numeric_limits<std::int64_t>::max() - 1}) {
    SnapshotEntry e;
    e.action = SnapshotAction::kAlloc;
    e.device = 0;
    e.address = static_cast<std::uint64_t>(value);
    e.size = value;
    e.time_us = value;
    s.entries.push_back(e);
  }
  SnapshotSegment segment;
  segment.device = 0;
  segment.total_size = std::numeric_limits<std::int64_t>::max();
  segment.allocated_size = std::numeric_limits<std::int64_t>::max();
  s.segments = {segment, segment};
  const SnapshotReport report = analyze_memory_snapshot(s, 3);
  ASSERT_EQ(report.devices.size(), 1U);
  EXPECT_EQ(report.devices[0].reserved_bytes, std::numeric_limits<std::int64_t>::max());
  EXPECT_FALSE(render_snapshot_text(report, 3).empty());
  EXPECT_FALSE(render_snapshot_json(report, 3).empty());
}

}  // namespace
}  // namespace stepscope
