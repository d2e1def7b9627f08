#include "stepscope/analysis/module_view.h"

#include <gtest/gtest.h>

#include <fmt/core.h>

#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

std::string python_frame(const std::string& name, double ts, double dur) {
  return fmt::format(
      R"({{"ph":"X","cat":"python_function","name":"{}","pid":100,"tid":1,"ts":{:.3f},"dur":{:.3f},"args":{{}}}})",
      name, ts, dur);
}

// Per step: Net_0 [10, 500) holds Linear_0 [20, 200) (gemm 100 µs) and ReLU_0 [210, 300)
// (relu 50 µs), then aten::add in Net_0 itself (add 20 µs).
void net_step(TraceFixture& fixture, std::int64_t number, double t0, bool frames) {
  auto module = [&](const std::string& name, double ts, double dur) {
    if (frames) {
      fixture.raw_event(python_frame("nn.Module: " + name, ts, dur));
    } else {
      fixture.annotation("nn.Module: " + name, ts, dur);
    }
  };
  fixture.step(number, t0, 1000);
  module("Net_0", t0 + 10, 490);
  module("Linear_0", t0 + 20, 180);
  fixture.op("aten::linear", t0 + 25, 165);
  fixture.launched_kernel("gemm", t0 + 30, t0 + 40, 100);
  module("ReLU_0", t0 + 210, 90);
  fixture.op("aten::relu", t0 + 215, 75);
  fixture.launched_kernel("relu_kernel", t0 + 220, t0 + 230, 50);
  fixture.op("aten::add", t0 + 300, 50);
  fixture.launched_kernel("add_kernel", t0 + 305, t0 + 310, 20);
}

ModuleViewResult module_view_of(const Trace& trace) {
  const StepsResult steps = find_steps(trace, {});
  return compute_module_view(trace, steps, compute_code_context(trace));
}

void expect_consistent(const ModuleViewResult& view) {
  std::vector<std::int64_t> child_host(view.rows.size(), 0);
  std::vector<std::int64_t> child_device(view.rows.size(), 0);
  for (std::size_t r = 0; r < view.rows.size(); ++r) {
    const ModuleRow& row = view.rows[r];
    EXPECT_LE(row.host_self_ns, row.host_total_ns) << row.path;
    EXPECT_GE(row.host_self_ns, 0) << row.path;
    EXPECT_LE(row.device_self_ns, row.device_total_ns) << row.path;
    if (row.parent >= 0) {
      ASSERT_LT(static_cast<std::size_t>(row.parent), r) << "tree order: parents first";
      EXPECT_EQ(row.path, view.rows[row.parent].path + "/" + row.name);
      EXPECT_EQ(row.depth, view.rows[row.parent].depth + 1);
      child_host[row.parent] += row.host_total_ns;
      child_device[row.parent] += row.device_total_ns;
    }
  }
  for (std::size_t r = 0; r < view.rows.size(); ++r) {
    const ModuleRow& row = view.rows[r];
    // Self is total less the children: exactly, for host spans and device sums alike.
    EXPECT_EQ(row.host_self_ns + child_host[r], row.host_total_ns) << row.path;
    EXPECT_EQ(row.device_self_ns + child_device[r], row.device_total_ns) << row.path;
  }
}

TEST(ModuleView, TotalsAndSelfPerModuleOverKeptSteps) {
  for (const bool frames : {false, true}) {
    TraceFixture fixture;
    net_step(fixture, 1, 0, frames);
    net_step(fixture, 2, 1000, frames);
    const Trace trace = fixture.load();
    const ModuleViewResult view = module_view_of(trace);
    ASSERT_TRUE(view.applicable);
    EXPECT_EQ(view.source.find("annotations") != std::string::npos, !frames) << view.source;
    EXPECT_EQ(view.kept_steps, 2);
    ASSERT_EQ(view.rows.size(), 3U);
    const ModuleRow& net = view.rows[0];
    EXPECT_EQ(net.path, "Net_0");
    EXPECT_EQ(net.calls, 2);
    EXPECT_EQ(net.host_total_ns, 980'000);
    EXPECT_EQ(net.host_self_ns, 2 * (490 - 180 - 90) * 1000);
    EXPECT_EQ(net.device_total_ns, 2 * 170'000);
    EXPECT_EQ(net.device_self_ns, 2 * 20'000);
    // Siblings by host time: Linear_0 (180 µs a call) before ReLU_0 (90 µs).
    EXPECT_EQ(view.rows[1].path, "Net_0/Linear_0");
    EXPECT_EQ(view.rows[1].host_total_ns, 360'000);
    EXPECT_EQ(view.rows[1].device_total_ns, 200'000);
    EXPECT_EQ(view.rows[2].path, "Net_0/ReLU_0");
    EXPECT_EQ(view.rows[2].device_self_ns, 100'000);
    expect_consistent(view);
  }
}

TEST(ModuleView, SameClassUnderDifferentParentsAreDifferentRows) {
  TraceFixture fixture;
  fixture.step(1, 0, 1000);
  fixture.annotation("nn.Module: Net_0", 10, 800);
  fixture.annotation("nn.Module: Block_0", 20, 300);
  fixture.annotation("nn.Module: Linear_0", 30, 100);
  fixture.op("aten::linear", 35, 50);
  fixture.annotation("nn.Module: Block_1", 400, 300);
  fixture.annotation("nn.Module: Linear_1", 410, 200);
  fixture.op("aten::linear", 415, 150);
  const Trace trace = fixture.load();
  const ModuleViewResult view = module_view_of(trace);
  ASSERT_EQ(view.rows.size(), 5U);
  EXPECT_EQ(view.rows[0].path, "Net_0");
  EXPECT_EQ(view.rows[0].host_self_ns, (800 - 300 - 300) * 1000);
  // Block_0 and Block_1 tie on host time: the order of appearance stays.
  EXPECT_EQ(view.rows[1].path, "Net_0/Block_0");
  EXPECT_EQ(view.rows[2].path, "Net_0/Block_0/Linear_0");
  EXPECT_EQ(view.rows[3].path, "Net_0/Block_1");
  EXPECT_EQ(view.rows[4].path, "Net_0/Block_1/Linear_1");
  EXPECT_EQ(view.rows[4].depth, 2);
  expect_consistent(view);
}

TEST(ModuleView, WithoutModulesSaysHowToRecordThem) {
  TraceFixture fixture;
  fixture.step(1, 0, 1000).op("aten::mm", 10, 20);
  const Trace trace = fixture.load();
  const ModuleViewResult view = module_view_of(trace);
  EXPECT_FALSE(view.applicable);
  EXPECT_TRUE(view.rows.empty());
  EXPECT_NE(view.not_applicable_reason.find("with_stack=True"), std::string::npos);
  EXPECT_NE(view.not_applicable_reason.find("stepscope.torch.profile"), std::string::npos);
}

}  // namespace
}  // namespace stepscope
