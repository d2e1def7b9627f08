// Rule: tensor-core-unfriendly shapes. Half-precision GEMMs and convolutions run on tensor cores
// only at full speed when their dimensions are multiples of 8 (fp16) or 16 (bf16 / int8, as the
// brief asks); odd sizes fall back to padded or slower kernels.
//
// Evidence: the GEMM / convolution ops whose 16-bit or 8-bit inputs (`Input type`) have a
// dimension of 8 or more in their last two axes (`Input Dims`) that is not such a multiple, with
// the shapes and the GPU time of the kernels they launched. Threshold: 3 % of the step.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/name_test.h"
#include "diagnosis/gain.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

constexpr double kThresholdShare = 0.03;

bool is_matmul_or_conv(std::string_view name) {
  static constexpr std::array<std::string_view, 10> kOps = {
      "aten::mm",     "aten::addmm",       "aten::bmm",          "aten::baddbmm", "aten::matmul",
      "aten::linear", "aten::convolution", "aten::_convolution", "aten::conv2d",  "aten::conv1d"};
  return std::find(kOps.begin(), kOps.end(), name) != kOps.end();
}

// The alignment tensor cores want for a dtype, or 0 when it does not apply.
int alignment(std::string_view dtype) {
  if (dtype.find("Half") != std::string_view::npos) return 8;
  if (dtype.find("BFloat16") != std::string_view::npos) return 16;
  if (dtype.find("Char") != std::string_view::npos ||
      dtype.find("int8") != std::string_view::npos) {
    return 16;
  }
  return 0;
}

// The alignment an op's inputs want: fp16 (8) where any input is fp16, else 16 where any is bf16
// or int8, else 0.
int alignment(const OpInputs& inputs, const StringPool& strings) {
  int wanted = 0;
  for (const StringId dtype : inputs.dtypes) {
    const int align = alignment(strings.view(dtype));
    if (align == 8) return align;
    wanted = std::max(wanted, align);
  }
  return wanted;
}

std::optional<std::int64_t> unaligned_dimension(const std::vector<Shape>& shapes, int align) {
  for (const Shape& shape : shapes) {
    if (shape.size() < 2) continue;
    for (std::size_t d = shape.size() - 2; d < shape.size(); ++d) {
      if (shape[d] >= 8 && shape[d] % align != 0) return shape[d];
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<Finding> check_unaligned_shapes(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  if (step_ns <= 0 || kept.empty()) return {};
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  std::vector<bool> flagged(e.size(), false);
  EventRefList ops;
  NameTest<is_matmul_or_conv> matmul_or_conv(trace);
  // Whether an op's dims miss the alignment its input types want, decided once per op-inputs
  // row: a training loop repeats a few shapes.
  constexpr std::int8_t kUndecided = -1;
  std::vector<std::int8_t> misaligned_by_row(trace.op_inputs.size(), kUndecided);
  auto misaligned = [&](std::int32_t row) {
    std::int8_t& decided = misaligned_by_row[static_cast<std::size_t>(row)];
    if (decided == kUndecided) {
      const OpInputs& inputs = trace.op_inputs[static_cast<std::size_t>(row)];
      const int align = alignment(inputs, trace.strings);
      decided = align != 0 && inputs.shapes && unaligned_dimension(*inputs.shapes, align) ? 1 : 0;
    }
    return decided == 1;
  };
  StepCursor in_step(rank.steps);
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (e.event_class[i] != EventClass::kOp || !matmul_or_conv(i)) continue;
    const EventArgs* args = trace.args_of(i);
    if (args == nullptr || args->inputs_row < 0 || !misaligned(args->inputs_row)) continue;
    const Step* step = in_step.at(e.start_ns[i]);
    if (step == nullptr) continue;
    flagged[i] = true;
    const StringId shapes = trace.op_inputs_of(i)->shapes_text;
    ops.add(fmt::format("{} {}", trace.name_of(i), trace.strings.view(shapes)), e.start_ns[i],
            e.end_ns(i), step);
  }
  if (ops.empty()) return {};  // nothing flagged: no GPU time to find
  std::int64_t device_ns = 0;
  for (const EventIndex i : e.device_activities) {
    for (EventIndex at = e.owner_op[i]; at != kNoEvent; at = e.parent[at]) {
      if (flagged[at]) {
        device_ns += e.dur_ns[i];
        break;
      }
    }
  }
  const auto steps = static_cast<double>(kept.size());
  const auto per_step = static_cast<std::int64_t>(static_cast<double>(device_ns) / steps);
  if (static_cast<double>(per_step) / step_ns < kThresholdShare) return {};
  Finding finding;
  finding.id = "unaligned-shapes";
  finding.bottleneck = Bottleneck::kGpuCompute;
  finding.part = StepPart::kWholeStep;
  finding.rank = trace.rank;
  finding.title = "Half-precision GEMMs with dimensions that are not multiples of 8 / 16";
  finding.evidence.push_back(Evidence{"GPU time of those ops per step",
                                      static_cast<double>(per_step) / 1e6, "ms/step",
                                      ops.most_frequent(5)});
  finding.fix =
      "Pad the dimensions to multiples of 8 (fp16) or 16 (bf16, int8): vocabulary and embedding "
      "sizes (e.g. 50257 -> 50304), hidden and head sizes, and the batch x sequence product; "
      "pad_to_multiple_of=8 in Hugging Face tokenizers pads sequences.";
  finding.gain = make_gain(per_step / 2, per_step / 5, step_ns,
                           "misaligned GEMMs run up to 2x slower on tensor cores: bound = half "
                           "their GPU time; likely = a fifth of it");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
