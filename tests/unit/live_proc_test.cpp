#include <gtest/gtest.h>

#include "live/proc_sampler.h"

namespace stepscope::live {
namespace {

TEST(LiveProcStat, NameWithSpacesAndParentheses) {
  // Fields 4.. : ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
  // cutime cstime priority nice num_threads itrealvalue starttime vsize rss
  const std::string text =
      "4242 (my (odd) name) R 17 4242 4242 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 7 0 12345 "
      "1000000 321 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  ProcessCounters c;
  std::string name;
  ASSERT_TRUE(parse_proc_stat(text, c, name));
  EXPECT_EQ(name, "my (odd) name");
  EXPECT_EQ(c.ppid, 17);
  EXPECT_EQ(c.cpu_ticks, 300U);
  EXPECT_EQ(c.threads, 7);
  EXPECT_EQ(c.rss_pages, 321U);
  EXPECT_FALSE(parse_proc_stat("4242 (truncated) R 1 2", c, name));
}

TEST(LiveProcStat, FieldsOfKeyValueText) {
  std::uint64_t v = 0;
  const std::string_view io =
      "rchar: 10\nread_bytes: 4096\nwrite_bytes: 0\ncancelled_write_bytes: 7\n";
  ASSERT_TRUE(find_field(io, "read_bytes", v));
  EXPECT_EQ(v, 4096U);
  ASSERT_TRUE(find_field(io, "write_bytes", v));  // not the one inside cancelled_write_bytes
  EXPECT_EQ(v, 0U);
  EXPECT_FALSE(find_field(io, "syscr", v));
}

}  // namespace
}  // namespace stepscope::live
