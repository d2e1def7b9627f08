// What the Nsight Systems reader makes of each table: names, categories, GPU rows, links,
// arguments, devices, threads, memory, the producer and the notes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "importers/nsys/nsys_names.h"
#include "importers/nsys/nsys_reader.h"
#include "support/nsys_fixture.h"

namespace stepscope {
namespace {

using testing::NsysFixture;
using testing::TempFolder;

struct Read {
  Trace trace;
  std::vector<std::string> notes;
};

Read read(const NsysFixture& fixture) {
  TempFolder folder;
  const std::string file = folder.file("report.sqlite");
  fixture.write(file);
  Read out;
  Result<Trace> trace = nsys::read_sqlite(file, {}, &out.notes);
  EXPECT_TRUE(trace.ok()) << (trace.ok() ? "" : trace.error().describe());
  if (trace.ok()) out.trace = std::move(trace).value();
  return out;
}

EventIndex find_event(const Trace& trace, std::string_view name) {
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    if (trace.name_of(i) == name) return i;
  }
  return kNoEvent;
}

bool has_note(const std::vector<std::string>& notes, std::string_view part) {
  return std::any_of(notes.begin(), notes.end(),
                     [part](const std::string& note) { return note.find(part) != note.npos; });
}

TEST(NsysNames, ApiCallsLoseTheirVersionSuffix) {
  EXPECT_EQ(nsys::api_call_name("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(nsys::api_call_name("cudaStreamSynchronize_v3020"), "cudaStreamSynchronize");
  EXPECT_EQ(nsys::api_call_name("cudaMalloc"), "cudaMalloc");
  EXPECT_EQ(nsys::api_call_name("my_v2x"), "my_v2x");
}

TEST(NsysNames, MangledKernelsAreDemangled) {
  EXPECT_EQ(nsys::demangled("_Z6kernelPfi"), "kernel(float*, int)");
  EXPECT_EQ(nsys::demangled("ampere_sgemm_128x64_tn"), "ampere_sgemm_128x64_tn");
  EXPECT_EQ(nsys::demangled("_Znot a name"), "_Znot a name");
}

TEST(NsysNames, EmitNvtxRangesSplitIntoOpAndFields) {
  const nsys::NvtxOpRange mm =
      nsys::parse_nvtx_range("aten::mm, seq = 12, op_id = 40, sizes = [[8, 16], [16, 4]]");
  EXPECT_EQ(mm.name, "aten::mm");
  EXPECT_EQ(mm.sequence, 12);
  EXPECT_EQ(mm.sizes, "[[8, 16], [16, 4]]");
  EXPECT_TRUE(mm.is_op);
  const nsys::NvtxOpRange backward = nsys::parse_nvtx_range("MmBackward0, seq = 12, op_id = 50");
  EXPECT_EQ(backward.name, "MmBackward0");
  EXPECT_TRUE(backward.is_op);
  const nsys::NvtxOpRange scope = nsys::parse_nvtx_range("forward, op_id = 3");
  EXPECT_EQ(scope.name, "forward");
  EXPECT_FALSE(scope.is_op);
  const nsys::NvtxOpRange plain = nsys::parse_nvtx_range("train_step");
  EXPECT_EQ(plain.name, "train_step");
  EXPECT_EQ(plain.sequence, -1);
  EXPECT_FALSE(plain.is_op);
}

TEST(NsysNames, StepAndLoaderNames) {
  EXPECT_TRUE(nsys::is_common_step_name("train_step"));
  EXPECT_TRUE(nsys::is_common_step_name("Step 12"));
  EXPECT_TRUE(nsys::is_common_step_name("run_training_batch"));
  EXPECT_FALSE(nsys::is_common_step_name("forward"));
  EXPECT_TRUE(nsys::is_data_loading_name("DataLoader"));
  EXPECT_TRUE(nsys::is_data_loading_name("load_batch"));
  EXPECT_FALSE(nsys::is_data_loading_name("backward"));
}

TEST(NsysReader, KernelsCopiesAndCallsMapAsTheProfilerWritesThem) {
  NsysFixture fixture;
  fixture.gpu(0, "NVIDIA H100 80GB HBM3", 132, 9, 0, 85'520'809'984);
  fixture.thread_name(1, "python3");
  fixture.range("ProfilerStep#4", 0, 100);
  fixture.runtime("cudaLaunchKernel_v7000", 10, 5, 77);
  fixture.kernel("_Z6kernelPfi", 20, 30, 77, 7, 0);
  fixture.runtime("cudaMemcpyAsync_v3020", 60, 4, 78);
  fixture.memcpy(70, 10, 78, 4096, 1);
  fixture.runtime("cudaMemsetAsync_v3020", 65, 2, 79);
  fixture.memset(85, 2, 79, 512);
  const Read r = read(fixture);
  const Trace& t = r.trace;
  EXPECT_EQ(t.origin.format, TraceFormat::kNsightSqlite);
  EXPECT_NE(t.origin.producer.find("2024.5.1"), std::string::npos) << t.origin.producer;
  ASSERT_EQ(t.events.size(), 7U);
  EXPECT_TRUE(std::is_sorted(t.events.start_ns.begin(), t.events.start_ns.end()));

  const EventIndex kernel = find_event(t, "kernel(float*, int)");
  ASSERT_NE(kernel, kNoEvent);
  EXPECT_EQ(t.strings.view(t.events.category[kernel]), "kernel");
  EXPECT_EQ(t.events.start_ns[kernel], 20'000);
  EXPECT_EQ(t.events.dur_ns[kernel], 30'000);
  EXPECT_EQ(t.activity_stream(kernel), 7);
  EXPECT_EQ(t.activity_device(kernel), 0);
  const EventIndex launch = t.events.launcher[kernel];
  ASSERT_NE(launch, kNoEvent);
  EXPECT_EQ(t.name_of(launch), "cudaLaunchKernel");
  EXPECT_EQ(t.strings.view(t.events.category[launch]), "cuda_runtime");
  EXPECT_EQ(t.name_of(t.events.parent[launch]), "ProfilerStep#4");
  const DeviceArgs* args = t.device_args_of(kernel);
  ASSERT_NE(args, nullptr);
  EXPECT_EQ(args->grid[0], 108);
  EXPECT_EQ(args->block[0], 256);
  EXPECT_EQ(args->registers_per_thread, 64);
  EXPECT_EQ(args->shared_memory, 1024 + 48128);

  const EventIndex copy = find_event(t, "Memcpy HtoD (Pinned -> Device)");
  ASSERT_NE(copy, kNoEvent);
  EXPECT_EQ(t.events.event_class[copy], EventClass::kMemcpy);
  EXPECT_EQ(t.device_args_of(copy)->bytes, 4096);
  EXPECT_EQ(t.name_of(t.events.launcher[copy]), "cudaMemcpyAsync");
  const EventIndex set = find_event(t, "Memset (Device)");
  ASSERT_NE(set, kNoEvent);
  EXPECT_EQ(t.events.event_class[set], EventClass::kMemset);
  EXPECT_EQ(t.device_args_of(set)->bytes, 512);

  ASSERT_EQ(t.devices.size(), 1U);
  EXPECT_EQ(t.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(t.devices[0].num_sms, 132);
  EXPECT_EQ(t.devices[0].compute_major, 9);
  EXPECT_EQ(t.devices[0].max_threads_per_multiprocessor, 2048);
  const auto host = std::find_if(t.threads.begin(), t.threads.end(),
                                 [](const ThreadInfo& th) { return th.name == "python3"; });
  ASSERT_NE(host, t.threads.end());
  EXPECT_EQ(host->pid_number, NsysFixture::kPid);
  EXPECT_EQ(host->tid_number, 1);
  EXPECT_FALSE(has_note(r.notes, "no GPU activity"));
}

TEST(NsysReader, EmitNvtxOpsBecomeOperatorsWithTheirShapes) {
  NsysFixture fixture;
  fixture.range("aten::mm, seq = 12, op_id = 40, sizes = [[8, 16], [16, 4]]", 0, 50);
  fixture.runtime("cudaLaunchKernel_v7000", 10, 5, 1);
  fixture.kernel("ampere_sgemm_32x32_sliced1x4_nn", 20, 30, 1);
  const Read r = read(fixture);
  const Trace& t = r.trace;
  const EventIndex op = find_event(t, "aten::mm");
  ASSERT_NE(op, kNoEvent);
  EXPECT_EQ(t.events.event_class[op], EventClass::kOp);
  EXPECT_EQ(t.strings.view(t.events.category[op]), "cpu_op");
  ASSERT_NE(t.args_of(op), nullptr);
  EXPECT_EQ(t.args_of(op)->sequence_number, 12);
  const OpInputs* inputs = t.op_inputs_of(op);
  ASSERT_NE(inputs, nullptr);
  EXPECT_EQ(t.strings.view(inputs->shapes_text), "[[8, 16], [16, 4]]");
  ASSERT_TRUE(inputs->shapes.has_value());
  EXPECT_EQ(inputs->shapes->size(), 2U);
  const EventIndex kernel = find_event(t, "ampere_sgemm_32x32_sliced1x4_nn");
  EXPECT_EQ(t.events.owner_op[kernel], op);
}

TEST(NsysReader, DomainsPrefixTheirRangesAndOpenRangesAreNoted) {
  NsysFixture fixture;
  fixture.domain(3, "NCCL");
  fixture.range("ncclAllReduce", 0, 10, 1, 3);
  fixture.range("outer", 0, 20, 1, 0, 60);
  fixture.open_range("never popped", 30);
  const Read r = read(fixture);
  EXPECT_NE(find_event(r.trace, "NCCL: ncclAllReduce"), kNoEvent);
  EXPECT_NE(find_event(r.trace, "outer"), kNoEvent);
  EXPECT_EQ(find_event(r.trace, "never popped"), kNoEvent);
  EXPECT_TRUE(has_note(r.notes, "NVTX ranges that never end"));
  EXPECT_TRUE(has_note(r.notes, "no GPU activity"));
}

TEST(NsysReader, OlderExportsWithoutOptionalColumnsRead) {
  NsysFixture fixture;
  fixture.old_schema();
  fixture.range("ProfilerStep#0", 0, 100);
  fixture.launched_kernel("_Z6kernelPfi", 1, 10, 50);
  const Read r = read(fixture);
  EXPECT_NE(find_event(r.trace, "ProfilerStep#0"), kNoEvent);
  const EventIndex kernel = find_event(r.trace, "kernel(float*, int)");
  ASSERT_NE(kernel, kNoEvent);
  EXPECT_NE(r.trace.events.launcher[kernel], kNoEvent);
}

TEST(NsysReader, MemoryUsageEventsBecomeTheMemoryTable) {
  NsysFixture fixture;
  fixture.launched_kernel("k", 1, 10, 50);
  fixture.memory(30, 0x2000, 2048, 0);  // out of time order on purpose
  fixture.memory(5, 0x1000, 1024, 0);
  fixture.memory(40, 0x1000, 1024, 1);
  const Read r = read(fixture);
  const MemoryTable& m = r.trace.memory;
  ASSERT_EQ(m.size(), 3U);
  EXPECT_EQ(m.time_ns[0], 5'000);
  EXPECT_EQ(m.bytes[0], 1024);
  EXPECT_EQ(m.total_allocated[1], 3072);
  EXPECT_EQ(m.bytes[2], -1024);
  EXPECT_EQ(m.total_allocated[2], 2048);
  EXPECT_EQ(m.device_type[0], 1);
  EXPECT_TRUE(has_note(r.notes, "device memory: allocations and frees"));
}

TEST(NsysReader, CommonStepNamesBecomeSteps) {
  NsysFixture fixture;
  for (int s = 0; s < 4; ++s) {
    fixture.range("train_step", s * 1000.0, 900);
    fixture.range("forward", s * 1000.0 + 1, 400);
    fixture.launched_kernel("k", s * 1000.0 + 2, s * 1000.0 + 10, 800);
  }
  const Read r = read(fixture);
  EXPECT_NE(find_event(r.trace, "ProfilerStep#0"), kNoEvent);
  EXPECT_NE(find_event(r.trace, "ProfilerStep#3"), kNoEvent);
  EXPECT_EQ(find_event(r.trace, "train_step"), kNoEvent);
  EXPECT_TRUE(has_note(r.notes, "the 4 ranges named \"train_step\" were taken as steps"));
}

TEST(NsysReader, ARepeatingTopLevelRangeBecomesTheSteps) {
  NsysFixture fixture;
  for (int s = 0; s < 5; ++s) {
    fixture.range("iteration_body", s * 1000.0, 950);
    fixture.range("forward", s * 1000.0 + 1, 400);
    fixture.range("backward", s * 1000.0 + 401, 400);
  }
  fixture.range("setup", 6000, 10);
  const Read r = read(fixture);
  EXPECT_NE(find_event(r.trace, "ProfilerStep#4"), kNoEvent);
  EXPECT_EQ(find_event(r.trace, "iteration_body"), kNoEvent);
  EXPECT_NE(find_event(r.trace, "forward"), kNoEvent);
  EXPECT_TRUE(has_note(r.notes, "repeats at the top level"));
}

TEST(NsysReader, WithoutStepRangesStepsAreLeftToInference) {
  NsysFixture fixture;
  fixture.range("setup", 0, 10);
  fixture.launched_kernel("k", 1, 10, 50);
  const Read r = read(fixture);
  EXPECT_TRUE(has_note(r.notes, "steps are inferred"));
  EXPECT_EQ(find_event(r.trace, "ProfilerStep#0"), kNoEvent);
}

TEST(NsysReader, LoaderRangesBecomeDataLoaderSpans) {
  NsysFixture fixture;
  fixture.range("data_loading", 0, 10);
  const Read r = read(fixture);
  EXPECT_NE(find_event(r.trace, "enumerate(DataLoader)#nvtx(data_loading).__next__"), kNoEvent);
  EXPECT_TRUE(has_note(r.notes, "taken as DataLoader waits"));
}

TEST(NsysReader, ProgressIsReported) {
  NsysFixture fixture;
  fixture.launched_kernel("k", 1, 10, 50);
  TempFolder folder;
  const std::string file = folder.file("report.sqlite");
  fixture.write(file);
  LoadOptions options;
  std::uint64_t last_done = 0;
  std::uint64_t last_total = 0;
  options.progress = [&](std::uint64_t done, std::uint64_t total) {
    last_done = done;
    last_total = total;
  };
  ASSERT_TRUE(nsys::read_sqlite(file, options, nullptr).ok());
  EXPECT_EQ(last_done, 2U);
  EXPECT_EQ(last_total, 2U);
}

}  // namespace
}  // namespace stepscope
