#include "stepscope/analysis/code_location.h"

#include <gtest/gtest.h>

#include <fmt/core.h>

#include "report/report_model.h"
#include "stepscope/diagnosis/diagnose.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

// A python_function frame on the main thread (pid 100, tid 1), as torch's tracer writes it.
std::string frame(const std::string& name, double ts, double dur, int tid = 1) {
  return fmt::format(
      R"({{"ph":"X","cat":"python_function","name":"{}","pid":100,"tid":{},"ts":{:.3f},"dur":{:.3f},"args":{{}}}})",
      name, tid, ts, dur);
}

EventIndex find_event(const Trace& trace, std::string_view name, std::size_t nth = 0) {
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    if (trace.name_of(i) == name && nth-- == 0) return i;
  }
  return kNoEvent;
}

TEST(CodeLocation, ParsesTracerFrameNames) {
  const auto frame_of = parse_python_frame("train.py(20): forward");
  ASSERT_TRUE(frame_of);
  EXPECT_EQ(frame_of->file, "train.py");
  EXPECT_EQ(frame_of->line, 20);
  EXPECT_EQ(frame_of->function, "forward");
  const auto odd = parse_python_frame("my (copy).py(7): <lambda>");
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->file, "my (copy).py");
  EXPECT_EQ(odd->line, 7);
  EXPECT_EQ(odd->function, "<lambda>");
  EXPECT_FALSE(parse_python_frame("<built-in function linear>"));
  EXPECT_FALSE(parse_python_frame("nn.Module: Linear_0"));
  EXPECT_FALSE(parse_python_frame("aten::mm"));
  EXPECT_EQ(module_name("nn.Module: Linear_0"), "Linear_0");
  EXPECT_EQ(module_name("aten::linear"), "");
}

TEST(CodeLocation, LibraryFilesAreTorchPackagesAndTheStandardLibrary) {
  for (const char* file :
       {"torch/nn/modules/module.py", "torch/utils/data/dataloader.py", "contextlib.py",
        "json/encoder.py", "numpy/_core/numeric.py", "transformers/models/bert/modeling_bert.py",
        "/usr/lib/python3.11/threading.py", "/opt/venv/lib/python3.12/site-packages/foo/bar.py",
        "/usr/lib/python3/dist-packages/foo.py", "<frozen importlib._bootstrap>", "<string>"}) {
    EXPECT_TRUE(is_library_file(file)) << file;
  }
  for (const char* file : {"train.py", "tests/python/test_x.py", "mypkg/models/net.py",
                           "/home/me/project/model.py", "torchy_model.py"}) {
    EXPECT_FALSE(is_library_file(file)) << file;
  }
}

// One step: Net_0.forward (train.py:20) calls Linear_0 (aten::linear + gemm kernel) and ReLU_0
// (aten::relu through torch.nn.functional + relu kernel), then aten::add in Net.forward itself.
TraceFixture net_step(double t0, bool as_annotations) {
  TraceFixture fixture;
  auto module = [&](const std::string& name, double ts, double dur) {
    if (as_annotations) {
      fixture.annotation("nn.Module: " + name, ts, dur);
    } else {
      fixture.raw_event(frame("nn.Module: " + name, ts, dur));
    }
  };
  fixture.step(1, t0, 1000);
  if (!as_annotations) {
    fixture.raw_event(frame("train.py(50): main", t0 + 1, 998));
  }
  module("Net_0", t0 + 10, 490);
  if (!as_annotations) {
    fixture.raw_event(frame("torch/nn/modules/module.py(1782): _call_impl", t0 + 11, 488));
    fixture.raw_event(frame("train.py(20): forward", t0 + 12, 486));
  }
  module("Linear_0", t0 + 20, 180);
  if (!as_annotations) {
    fixture.raw_event(frame("torch/nn/modules/linear.py(130): forward", t0 + 22, 176));
    fixture.raw_event(frame("<built-in function linear>", t0 + 23, 174));
  }
  fixture.op("aten::linear", t0 + 25, 165);
  fixture.launched_kernel("gemm", t0 + 30, t0 + 40, 100);
  module("ReLU_0", t0 + 210, 90);
  if (!as_annotations) {
    fixture.raw_event(frame("torch/nn/functional.py(1760): relu", t0 + 212, 86));
  }
  fixture.op("aten::relu", t0 + 215, 75);
  fixture.launched_kernel("relu_kernel", t0 + 220, t0 + 230, 50);
  fixture.op("aten::add", t0 + 300, 50);
  fixture.launched_kernel("add_kernel", t0 + 305, t0 + 310, 20);
  return fixture;
}

TEST(CodeLocation, OpsAndKernelsFindTheUserFrameAndModulePath) {
  const Trace trace = net_step(0, false).load();
  const CodeContext context = compute_code_context(trace);
  EXPECT_TRUE(context.has_stacks);
  EXPECT_TRUE(context.has_modules);
  EXPECT_EQ(context.module_events, 3);
  const CodeLocation linear = locate(trace, context, find_event(trace, "aten::linear"));
  EXPECT_EQ(linear, (CodeLocation{"train.py", 20, "forward", "Net_0/Linear_0"}));
  // The kernel goes through the op that launched it.
  EXPECT_EQ(locate(trace, context, find_event(trace, "gemm")), linear);
  // torch/nn/functional.py is library code: the user frame is still Net.forward.
  EXPECT_EQ(locate(trace, context, find_event(trace, "relu_kernel")),
            (CodeLocation{"train.py", 20, "forward", "Net_0/ReLU_0"}));
  EXPECT_EQ(locate(trace, context, find_event(trace, "aten::add")),
            (CodeLocation{"train.py", 20, "forward", "Net_0"}));
  // The step itself is outside every module, inside no frame (it starts before main).
  EXPECT_TRUE(locate(trace, context, find_event(trace, "ProfilerStep#1")).empty());
}

TEST(CodeLocation, ModuleAnnotationsWithoutStacksGiveTheModulePath) {
  const Trace trace = net_step(0, true).load();
  const CodeContext context = compute_code_context(trace);
  EXPECT_FALSE(context.has_stacks);
  EXPECT_TRUE(context.has_modules);
  const CodeLocation relu = locate(trace, context, find_event(trace, "relu_kernel"));
  EXPECT_TRUE(relu.file.empty());
  EXPECT_EQ(relu.module_path, "Net_0/ReLU_0");
}

TEST(CodeLocation, TraceWithoutPythonContextIsEmpty) {
  TraceFixture fixture;
  fixture.step(1, 0, 100).op("aten::mm", 10, 20);
  const Trace trace = fixture.load();
  const CodeContext context = compute_code_context(trace);
  EXPECT_TRUE(context.empty());
  EXPECT_FALSE(context.has_stacks || context.has_modules);
  EXPECT_TRUE(locate(trace, context, find_event(trace, "aten::mm")).empty());
}

// The input-bound rule's planted loader, called from the user's train_loop through torch's
// DataLoader: the finding names train.py:42.
TEST(CodeLocation, FindingsNameTheUserLineOfTheirEvents) {
  TraceFixture fixture;
  fixture.raw_event(frame("train.py(42): train_loop", -5, 4010));
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(10 + s, t0, 1000);
    fixture.raw_event(frame("torch/utils/data/dataloader.py(700): __next__", t0, 600));
    fixture.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0, 600);
    fixture.op("aten::mm", t0 + 600, 20);
    fixture.launched_kernel("ampere_sgemm_128x64_tn", t0 + 601, t0 + 610, 380);
  }
  const Trace trace = fixture.load();
  RankReport rank{analyze_rank(trace, {}), {}};
  rank.diagnosis = diagnose(rank.analyses);
  const Finding* finding = testing::find_finding(rank.diagnosis, "input-bound");
  ASSERT_NE(finding, nullptr);
  ASSERT_TRUE(finding->code);
  EXPECT_EQ(*finding->code, (CodeLocation{"train.py", 42, "train_loop", ""}));
  // Without Python context a finding has no code part.
  TraceFixture bare;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    bare.step(10 + s, t0, 1000);
    bare.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0, 600);
    bare.op("aten::mm", t0 + 600, 20);
    bare.launched_kernel("ampere_sgemm_128x64_tn", t0 + 601, t0 + 610, 380);
  }
  const Trace bare_trace = bare.load();
  const Diagnosis plain = diagnose(analyze_rank(bare_trace, {}));
  const Finding* bare_finding = testing::find_finding(plain, "input-bound");
  ASSERT_NE(bare_finding, nullptr);
  EXPECT_FALSE(bare_finding->code);
}

}  // namespace
}  // namespace stepscope
