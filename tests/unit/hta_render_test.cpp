// compat-hta renderers: the JSON section and the terminal text.
#include <gtest/gtest.h>

#include "render/json/hta_json.h"
#include "render/terminal/hta_text.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

hta::HtaReport sample_report() {
  TraceSet set;
  set.ranks.push_back(TraceFixture()
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 10, 2, 1)
                          .kernel("gemm", 20, 12.5, 1)
                          .runtime("cudaLaunchKernel", 30, 2, 2)
                          .kernel("ncclKernel_AllReduce", 40, 10, 2, 8)
                          .step(2, 100, 100)
                          .runtime("cudaLaunchKernel", 110, 2, 3)
                          .kernel("dropped", 120, 10, 3)
                          .load());
  return hta::compute_hta_report(set, {});
}

TEST(HtaRender, JsonCarriesMicrosecondsAndQuirks) {
  render::JsonWriter json;
  render::write_json(json, sample_report());
  const std::string& text = json.text();
  EXPECT_NE(text.find(R"("profiler_steps":[1])"), std::string::npos) << text;
  // 12.5 µs from ts 20.000 is rounded inward to 12 µs, as HTA reports it.
  EXPECT_NE(text.find(R"("name":"gemm","kernel_type":"COMPUTATION","count":1,"sum_us":12)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"("last_step_dropped")"), std::string::npos);
  EXPECT_NE(text.find(R"("comm_comp_overlap_percent":0)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("idle_category":"other")"), std::string::npos);
  EXPECT_EQ(text.find(R"("name":"dropped")"), std::string::npos);
}

TEST(HtaRender, TextNamesTheFiguresAndArtefacts) {
  const std::string text = render::render_text(sample_report(), 5);
  EXPECT_NE(text.find("profiler steps: 1 (HTA drops the last one)"), std::string::npos) << text;
  EXPECT_NE(text.find("COMMUNICATION: 10.000 µs"), std::string::npos) << text;
  EXPECT_NE(text.find("ncclKernel_AllReduce"), std::string::npos);
  EXPECT_NE(text.find("artefacts reproduced: last_step_dropped"), std::string::npos) << text;
}

}  // namespace
}  // namespace stepscope
