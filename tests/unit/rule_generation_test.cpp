// The generation rules: per-token-sync fires on a decode loop that syncs at every token (and
// host-device-sync then stays silent on the same idle); kv-cache-missing fires when the
// attention's query length grows by one per pass and stays silent with a cache (query length 1).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "stepscope/diagnosis/diagnose.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

struct Decode {
  bool sync = true;         // next_token.item() per token
  int logit_rows = 1;       // rows the argmax picks from (1: one sequence; 64: a batch)
  bool backward = false;    // a training step instead
  int tokens_per_step = 4;  // 1: profiler.step() after every token
  bool embedding = true;    // token ids enter the model (false: an image classifier served)
};

std::string dims(const std::string& list) { return "\"Input Dims\": " + list; }

// Steps of 250 µs per token (four tokens per step by default): a linear layer whose kernel runs 135
// µs, an argmax over the logits, then `.item()` blocking 100 µs in cudaStreamSynchronize; the next
// token's kernel starts 110 µs after the sync returns.
Trace decode_trace(const Decode& d) {
  TraceFixture fixture;
  std::int64_t correlation = 1;
  const double step_us = 250.0 * d.tokens_per_step;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * step_us;
    fixture.step(s, t0, step_us);
    for (int k = 0; k < d.tokens_per_step; ++k) {
      const double t = t0 + k * 250.0;
      if (d.embedding) fixture.op("aten::embedding", t, 1, 1);
      fixture.op("aten::linear", t + 1, 20, 1, -1, dims("[[1, 64], [64, 64], [64]]"));
      fixture.launched_kernel("gemv_kernel", t + 2, t + 5, 135);
      fixture.op("aten::argmax", t + 25, 5, 1, -1,
                 dims("[[" + std::to_string(d.logit_rows) + ", 100], [], []]"));
      if (d.sync) {
        fixture.op("aten::item", t + 40, 110);
        fixture.op("aten::_local_scalar_dense", t + 41, 108);
        fixture.runtime("cudaStreamSynchronize", t + 45, 100, correlation++);
      }
    }
    if (d.backward) {
      fixture.op("autograd::engine::evaluate_function: AddmmBackward0", t0 + step_us - 40, 30, 2);
    }
  }
  return fixture.load();
}

TEST(RulePerTokenSync, FiresOnADecodeLoopThatSyncsEveryToken) {
  const Trace trace = decode_trace({});
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  const Finding* f = testing::find_finding(diagnosis, "per-token-sync");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(testing::find_finding(diagnosis, "host-device-sync"), nullptr);  // counted once
  EXPECT_DOUBLE_EQ(f->evidence[0].value, 4.0);                               // tokens per step
  EXPECT_DOUBLE_EQ(f->evidence[1].value, 1.0);                               // syncs per token
  ASSERT_FALSE(f->evidence[0].events.empty());
  EXPECT_EQ(f->evidence[0].events[0].name, "aten::item");
  // Each sync blocks 100 µs and the GPU stays idle longer than that: 100 µs of idle per token.
  EXPECT_EQ(f->gain.bound_ns, 400'000);
  EXPECT_LE(f->gain.likely_ns, f->gain.bound_ns);
  EXPECT_NE(f->fix.find("EOS every N tokens"), std::string::npos);
}

TEST(RulePerTokenSync, FiresWhenEachProfilerStepIsOneToken) {
  const Trace trace = decode_trace({.tokens_per_step = 1});
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  const Finding* f = testing::find_finding(diagnosis, "per-token-sync");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->evidence[0].value, 1.0);
  EXPECT_EQ(testing::find_finding(diagnosis, "host-device-sync"), nullptr);
}

TEST(RulePerTokenSync, SilentWithoutSyncs) {
  const Trace trace = decode_trace({.sync = false});
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  EXPECT_EQ(testing::find_finding(diagnosis, "per-token-sync"), nullptr);
  EXPECT_EQ(testing::find_finding(diagnosis, "host-device-sync"), nullptr);
}

TEST(RulePerTokenSync, BatchEvaluationServingAndTrainingSyncsAreHostDeviceSyncs) {
  // argmax over 64 rows: an evaluation loop's accuracy, not a token.
  const Trace batch = decode_trace({.logit_rows = 64});
  const Diagnosis evaluation = diagnose(analyze_rank(batch, {}));
  EXPECT_EQ(testing::find_finding(evaluation, "per-token-sync"), nullptr);
  EXPECT_NE(testing::find_finding(evaluation, "host-device-sync"), nullptr);
  // One image at a time, `logits.argmax().item()` per request: no token ids, no generation.
  const Trace served = decode_trace({.embedding = false});
  const Diagnosis serving = diagnose(analyze_rank(served, {}));
  EXPECT_EQ(testing::find_finding(serving, "per-token-sync"), nullptr);
  EXPECT_NE(testing::find_finding(serving, "host-device-sync"), nullptr);
  const Trace train = decode_trace({.backward = true});
  const Diagnosis training = diagnose(analyze_rank(train, {}));
  EXPECT_EQ(testing::find_finding(training, "per-token-sync"), nullptr);
  EXPECT_NE(testing::find_finding(training, "host-device-sync"), nullptr);
}

enum class Attention { kSdpa, kBmm };

struct Generate {
  bool cache = false;
  Attention attention = Attention::kSdpa;
  bool backward = false;
  bool pick = true;  // argmax picks a token after each pass (false: evaluation over batches)
  bool gpu = false;  // each attention op launches a 20 µs kernel
};

// CPU trace, steps of 1000 µs, each one generation of 8 tokens after a 4-token prompt: per
// token two layers of attention (query length L, key length S) and a linear layer.
Trace generate_trace(const Generate& g) {
  TraceFixture fixture;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    for (int k = 0; k < 8; ++k) {
      const std::string key = std::to_string(4 + k);
      const std::string query = g.cache && k > 0 ? "1" : key;
      const double t = t0 + 10 + k * 100.0;
      for (int layer = 0; layer < 2; ++layer) {
        const double at = t + layer * 40.0;
        if (g.gpu) fixture.launched_kernel("attention_kernel", at + 1, at + 2, 20);
        if (g.attention == Attention::kSdpa) {
          fixture.op(
              "aten::scaled_dot_product_attention", at, 30, 1, -1,
              dims(fmt::format("[[1, 4, {0}, 16], [1, 4, {1}, 16], [1, 4, {1}, 16]]", query, key)));
        } else {
          fixture.op("aten::bmm", at, 10, 1, -1,
                     dims(fmt::format("[[4, {}, 16], [4, 16, {}]]", query, key)));
          fixture.op("aten::bmm", at + 15, 10, 1, -1,
                     dims(fmt::format("[[4, {0}, {1}], [4, {1}, 16]]", query, key)));
        }
      }
      fixture.op("aten::linear", t + 85, 10, 1, -1, dims("[[1, " + query + ", 64], [64, 64], []]"));
      if (g.pick) fixture.op("aten::argmax", t + 96, 2, 1, -1, dims("[[1, 100], [], []]"));
    }
    if (g.backward) {
      fixture.op("autograd::engine::evaluate_function: AddmmBackward0", t0 + 900, 80, 2);
    }
  }
  return fixture.load();
}

TEST(RuleKvCacheMissing, FiresWhenTheQueryLengthGrowsByOnePerPass) {
  for (const Attention attention : {Attention::kSdpa, Attention::kBmm}) {
    const Trace trace = generate_trace({.attention = attention});
    const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
    const Finding* f = testing::find_finding(diagnosis, "kv-cache-missing");
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->evidence[0].value, 8.0);   // passes per step
    EXPECT_DOUBLE_EQ(f->evidence[1].value, 11.0);  // lengths 4 .. 11
    // Σ(L−1)/ΣL over L = 4..11: 52 / 60.
    EXPECT_NEAR(f->evidence[2].value, 100.0 * 52 / 60, 1e-9);
    EXPECT_GT(f->gain.bound_ns, 0);
    EXPECT_EQ(f->gain.likely_ns, f->gain.bound_ns / 2);
    EXPECT_NE(f->fix.find("past_key_values"), std::string::npos);
  }
}

TEST(RuleKvCacheMissing, OnAGpuTheGainIsTheWastedShareOfTheKernelTime) {
  const Trace trace = generate_trace({.gpu = true});
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  const Finding* f = testing::find_finding(diagnosis, "kv-cache-missing");
  ASSERT_NE(f, nullptr);
  // 16 attention kernels of 20 µs per step, 52/60 of their FLOPs wasted; the idle between them
  // is not counted (the idle-based findings own it).
  EXPECT_EQ(f->gain.bound_ns, 320'000 * 52 / 60);
}

TEST(RuleKvCacheMissing, SilentWithACacheInTrainingAndWithoutTokenPicks) {
  for (const Attention attention : {Attention::kSdpa, Attention::kBmm}) {
    const Trace cached = generate_trace({.cache = true, .attention = attention});
    EXPECT_EQ(testing::find_finding(diagnose(analyze_rank(cached, {})), "kv-cache-missing"),
              nullptr);
  }
  const Trace training = generate_trace({.backward = true});
  EXPECT_EQ(testing::find_finding(diagnose(analyze_rank(training, {})), "kv-cache-missing"),
            nullptr);
  // Lengths growing by one with no token picked: batches sorted by length, not generation.
  const Trace sorted = generate_trace({.pick = false});
  EXPECT_EQ(testing::find_finding(diagnose(analyze_rank(sorted, {})), "kv-cache-missing"), nullptr);
}

}  // namespace
}  // namespace stepscope
