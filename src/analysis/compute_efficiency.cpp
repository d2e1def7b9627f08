#include "stepscope/analysis/compute_efficiency.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <span>
#include <string_view>
#include <unordered_map>

#include "analysis/name_test.h"

namespace stepscope {

namespace {

double product(const std::vector<std::int64_t>& dims, std::size_t from, std::size_t to) {
  double p = 1;
  for (std::size_t i = from; i < to; ++i) p *= static_cast<double>(dims[i]);
  return p;
}

// 2·M·K·N for [.., M, K] x [.., K, N] with `batch` leading matrices.
std::optional<double> gemm(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                           double batch) {
  if (a.size() < 2 || b.size() < 2 || a.back() != b[b.size() - 2]) return std::nullopt;
  return 2.0 * batch * static_cast<double>(a[a.size() - 2]) * static_cast<double>(a.back()) *
         static_cast<double>(b.back());
}

// Where conv1d/2d/3d and convolution keep their arguments in `Concrete Inputs`.
struct ConvArgs {
  std::string_view stride, padding, dilation, groups;
};

std::optional<ConvArgs> conv_args(std::string_view op, const std::vector<std::string>& concrete) {
  const bool plain = op == "aten::conv1d" || op == "aten::conv2d" || op == "aten::conv3d";
  const bool general = op == "aten::convolution" || op == "aten::_convolution";
  if (!plain && !general) return std::nullopt;
  const std::size_t groups = plain ? 6 : 8;
  if (concrete.size() <= groups) return std::nullopt;
  if (general && concrete[6] != "False") return std::nullopt;  // transposed: not counted
  return ConvArgs{concrete[3], concrete[4], concrete[5], concrete[groups]};
}

// "[1, 2]" or "3" as integers, one per spatial dimension.
std::vector<std::int64_t> integers(std::string_view text, std::size_t dims) {
  std::vector<std::int64_t> out;
  std::int64_t value = 0;
  bool in_number = false;
  for (const char c : text) {
    if (c >= '0' && c <= '9') {
      value = value * 10 + (c - '0');
      in_number = true;
    } else if (in_number) {
      out.push_back(value);
      value = 0;
      in_number = false;
    }
  }
  if (in_number) out.push_back(value);
  if (out.size() == 1 && dims > 1) out.assign(dims, out.front());
  return out;
}

// N · C_out · prod(output spatial): the elements of a convolution's output.
std::optional<double> conv_outputs(const Shape& input, const Shape& weight, const ConvArgs& args) {
  if (input.size() < 3 || weight.size() != input.size()) return std::nullopt;
  const std::size_t dims = input.size() - 2;
  const std::vector<std::int64_t> stride = integers(args.stride, dims);
  const std::vector<std::int64_t> dilation = integers(args.dilation, dims);
  const bool same = args.padding.find("same") != std::string_view::npos;
  const bool valid = args.padding.find("valid") != std::string_view::npos;
  const std::vector<std::int64_t> padding =
      valid ? std::vector<std::int64_t>(dims, 0) : integers(args.padding, dims);
  const std::vector<std::int64_t> groups = integers(args.groups, 1);
  if (stride.size() != dims || dilation.size() != dims || (!same && padding.size() != dims) ||
      groups.size() != 1 || groups[0] < 1) {
    return std::nullopt;
  }
  double outputs = static_cast<double>(input[0]) * static_cast<double>(weight[0]);
  for (std::size_t d = 0; d < dims; ++d) {
    const std::int64_t in = input[2 + d];
    const std::int64_t kernel = weight[2 + d];
    if (stride[d] < 1) return std::nullopt;
    const std::int64_t out =
        same ? in : (in + 2 * padding[d] - dilation[d] * (kernel - 1) - 1) / stride[d] + 1;
    if (out < 1) return std::nullopt;
    outputs *= static_cast<double>(out);
  }
  return outputs;
}

// 2 · N · C_out · prod(output spatial) · (C_in / groups) · prod(kernel).
std::optional<double> conv_flops(const Shape& input, const Shape& weight, const ConvArgs& args) {
  const std::optional<double> outputs = conv_outputs(input, weight, args);
  if (!outputs) return std::nullopt;
  return 2.0 * *outputs * product(weight, 1, weight.size());
}

double elements(const Shape& dims) { return product(dims, 0, dims.size()); }

// Elements an op reads (every input, the bias included) and writes (its output).
// Rows of `a` (every dimension but the last) times `columns`: a matrix product's output.
double product_output(const Shape& a, std::int64_t columns) {
  return product(a, 0, a.size() - 1) * static_cast<double>(columns);
}

// Elements an op reads (every input, the bias included) and writes (its output).
std::optional<double> moved_elements(std::string_view op, const std::vector<Shape>& shapes,
                                     const std::vector<std::string>& concrete) {
  double read = 0;
  for (const Shape& s : shapes) read += s.empty() ? 0 : elements(s);
  if (op == "aten::mm" || op == "aten::bmm") {
    return read + product_output(shapes[0], shapes[1].back());
  }
  if (op == "aten::addmm" || op == "aten::baddbmm") {
    return read + product_output(shapes[1], shapes[2].back());
  }
  if (op == "aten::linear") return read + product_output(shapes[0], shapes[1][0]);
  const std::optional<ConvArgs> args = conv_args(op, concrete);
  if (!args) return std::nullopt;
  const std::optional<double> outputs = conv_outputs(shapes[0], shapes[1], *args);
  if (!outputs) return std::nullopt;
  return read + *outputs;
}

// The dtype of an op's first input, as the profiler names it; "" (id 0) when unknown.
StringId first_dtype(const OpInputs* inputs) {
  return inputs == nullptr || inputs->dtypes.empty() ? 0 : inputs->dtypes.front();
}

struct PeakRow {
  std::string_view device;  // matched as a substring of the device name
  double half;              // bf16 / fp16 dense tensor-core peak, 10^12 FLOP/s
  double single;            // fp32 (no TF32: PyTorch's default for matmul)
  double bandwidth;         // device memory (HBM / GDDR) bandwidth, 10^9 B/s
  std::string_view source;
};

// Dense (no sparsity) peaks and memory bandwidth from the vendors' datasheets. More specific
// names first: the A100 80GB parts have faster HBM2e than the 40GB one.
constexpr std::array kPeaks{
    PeakRow{"H100 PCIe", 756.0, 51.2, 2000.0, "NVIDIA H100 datasheet (PCIe)"},
    PeakRow{"H100", 989.4, 66.9, 3350.0, "NVIDIA H100 datasheet (SXM)"},
    PeakRow{"H200", 989.4, 66.9, 4800.0, "NVIDIA H200 datasheet (SXM)"},
    PeakRow{"A100-SXM4-80GB", 312.0, 19.5, 2039.0, "NVIDIA A100 datasheet (80GB SXM)"},
    PeakRow{"A100 80GB PCIe", 312.0, 19.5, 1935.0, "NVIDIA A100 datasheet (80GB PCIe)"},
    PeakRow{"A100", 312.0, 19.5, 1555.0, "NVIDIA A100 datasheet (40GB)"},
    PeakRow{"A10G", 70.0, 35.0, 600.0, "NVIDIA A10G (AWS) figures"},
    PeakRow{"A10", 125.0, 31.2, 600.0, "NVIDIA A10 datasheet"},
    PeakRow{"L40S", 362.1, 91.6, 864.0, "NVIDIA L40S datasheet"},
    PeakRow{"L4", 121.0, 30.3, 300.0, "NVIDIA L4 datasheet"},
    PeakRow{"V100", 125.0, 15.7, 900.0, "NVIDIA V100 datasheet (SXM2)"},
    PeakRow{"T4", 65.0, 8.1, 320.0, "NVIDIA T4 datasheet"},
    PeakRow{"MI300X", 1307.4, 163.4, 5300.0, "AMD Instinct MI300X datasheet"},
    PeakRow{"MI250X", 383.0, 47.9, 3276.8, "AMD Instinct MI250X datasheet"},
    PeakRow{"MI250", 362.1, 45.3, 3276.8, "AMD Instinct MI250 datasheet"},
};

const PeakRow* device_row(std::string_view device_name) {
  for (const PeakRow& row : kPeaks) {
    if (device_name.find(row.device) != std::string_view::npos) return &row;
  }
  return nullptr;
}

bool is_half(std::string_view dtype) {
  return dtype.find("BFloat16") != std::string_view::npos ||
         dtype.find("Half") != std::string_view::npos || dtype == "bfloat16" || dtype == "half";
}

// The FLOP-counting ops: those the shapes give, and any op the trace gives `flops` for.
struct Counted {
  double flops = 0;
  bool from_trace = false;
  std::optional<double> bytes;  // where the shapes and the dtype tell them
};

bool counts_flops(std::string_view name) {
  return name == "aten::mm" || name == "aten::addmm" || name == "aten::bmm" ||
         name == "aten::baddbmm" || name == "aten::linear" || name == "aten::conv1d" ||
         name == "aten::conv2d" || name == "aten::conv3d" || name == "aten::convolution" ||
         name == "aten::_convolution";
}

// What a call's recorded shapes give, which depends only on its name and argument strings.
struct ShapeCount {
  bool parsed = false;  // `Input Dims` read
  std::optional<double> flops;
  std::optional<double> bytes;  // where the dtype tells the element size too
};

ShapeCount count_from_shapes(std::string_view op, const OpInputs* inputs,
                             const StringPool& strings) {
  ShapeCount out;
  if (inputs == nullptr || !inputs->shapes) return out;
  out.parsed = true;
  std::vector<std::string> concrete;
  concrete.reserve(inputs->concrete.size());
  for (const StringId value : inputs->concrete) concrete.emplace_back(strings.view(value));
  out.flops = op_flops(op, *inputs->shapes, concrete);
  const auto size = dtype_size(strings.view(first_dtype(inputs)));
  if (size) out.bytes = op_bytes(op, *inputs->shapes, concrete, *size);
  return out;
}

// counted_flops with the counting done once per distinct (name, op inputs row): a training loop
// repeats the same few shapes every step.
class FlopCounter {
 public:
  explicit FlopCounter(const Trace& trace) : trace_(trace), counts_(trace) {}

  std::optional<Counted> operator()(EventIndex i) {
    const EventArgs* args = trace_.args_of(i);
    if (args == nullptr) return std::nullopt;
    const bool by_trace = args->flops > 0;
    const bool by_shapes = counts_(i);
    // Most ops are neither: returned at once, without the optional built up below (copying it
    // out through the stack stalled on every op).
    if (!by_trace && !by_shapes) return std::nullopt;
    std::optional<Counted> out;
    if (by_trace) out = Counted{static_cast<double>(args->flops), true, std::nullopt};
    if (!by_shapes) return out;
    const ShapeCount& shapes = of_shapes(i, args->inputs_row);
    if (!shapes.parsed) return out;
    if (!out) {
      if (!shapes.flops) return std::nullopt;
      out = Counted{*shapes.flops, false, std::nullopt};
    }
    out->bytes = shapes.bytes;
    return out;
  }

 private:
  const ShapeCount& of_shapes(EventIndex i, std::int32_t inputs_row) {
    const StringId name = trace_.events.name[i];
    const std::pair<StringId, std::int32_t> key{name, inputs_row};
    auto found = by_inputs_.find(key);
    if (found == by_inputs_.end()) {
      const OpInputs* inputs = trace_.op_inputs_of(i);
      found =
          by_inputs_
              .emplace(key, count_from_shapes(trace_.strings.view(name), inputs, trace_.strings))
              .first;
    }
    return found->second;
  }

  const Trace& trace_;
  NameTest<counts_flops> counts_;
  std::map<std::pair<StringId, std::int32_t>, ShapeCount> by_inputs_;
};

// Kept steps are in time order and do not overlap.
bool kept_step_holds(std::span<const Step* const> kept, std::int64_t t) {
  const auto after = std::upper_bound(
      kept.begin(), kept.end(), t, [](std::int64_t v, const Step* s) { return v < s->start_ns; });
  return after != kept.begin() && t < (*std::prev(after))->end_ns;
}

constexpr std::int32_t kNotCounted = -1;

// Device time of each row: kernels whose op chain reaches a counted op. `row_of` maps each event
// to its row, kNotCounted for events not counted (a column, not a hash map: looked up for every
// ancestor of every kernel). Empty when no kernel reaches a counted op.
std::vector<std::int64_t> kernel_time_by_row(const Trace& trace,
                                             const std::vector<std::int32_t>& row_of,
                                             std::size_t rows) {
  std::vector<std::int64_t> time(rows, 0);
  bool any = false;
  const EventTable& e = trace.events;
  for (EventIndex k = 0; k < static_cast<EventIndex>(e.size()); ++k) {
    if (!is_device_activity(e.event_class[k])) continue;
    EventIndex at = e.launcher[k] != kNoEvent ? e.launcher[k] : e.owner_op[k];
    for (; at != kNoEvent; at = e.parent[at]) {
      if (row_of[at] != kNotCounted) {
        time[static_cast<std::size_t>(row_of[at])] += e.dur_ns[k];
        any = true;
        break;
      }
    }
  }
  if (!any) time.clear();
  return time;
}

}  // namespace

std::optional<double> op_flops(std::string_view op, const std::vector<Shape>& shapes,
                               const std::vector<std::string>& concrete) {
  auto has = [&shapes](std::size_t n) { return shapes.size() >= n; };
  if (op == "aten::mm" && has(2)) return gemm(shapes[0], shapes[1], 1);
  if (op == "aten::addmm" && has(3)) return gemm(shapes[1], shapes[2], 1);
  if (op == "aten::bmm" && has(2) && shapes[0].size() == 3) {
    return gemm(shapes[0], shapes[1], static_cast<double>(shapes[0][0]));
  }
  if (op == "aten::baddbmm" && has(3) && shapes[1].size() == 3) {
    return gemm(shapes[1], shapes[2], static_cast<double>(shapes[1][0]));
  }
  if (op == "aten::linear" && has(2)) {
    const Shape& x = shapes[0];
    const Shape& w = shapes[1];  // [out, in]
    if (x.empty() || w.size() != 2 || x.back() != w[1]) return std::nullopt;
    return 2.0 * product(x, 0, x.size() - 1) * static_cast<double>(w[1]) *
           static_cast<double>(w[0]);
  }
  if (const std::optional<ConvArgs> args = conv_args(op, concrete)) {
    if (!has(2)) return std::nullopt;
    return conv_flops(shapes[0], shapes[1], *args);
  }
  return std::nullopt;
}

std::optional<double> op_bytes(std::string_view op, const std::vector<Shape>& shapes,
                               const std::vector<std::string>& concrete, double dtype_size) {
  // op_flops first: it checks the shapes agree, so the element counts below are sound.
  if (!op_flops(op, shapes, concrete)) return std::nullopt;
  const std::optional<double> moved = moved_elements(op, shapes, concrete);
  if (!moved) return std::nullopt;
  return *moved * dtype_size;
}

std::optional<double> dtype_size(std::string_view dtype) {
  if (is_half(dtype)) return 2;
  if (dtype == "float" || dtype == "float32") return 4;
  if (dtype == "double" || dtype == "float64") return 8;
  if (dtype.find("Float8") != std::string_view::npos) return 1;
  return std::nullopt;
}

PeakFlops peak_flops(std::string_view device_name, std::string_view dtype) {
  const PeakRow* row = device_row(device_name);
  if (row == nullptr) return {};
  if (is_half(dtype)) return {row->half, row->source};
  if (dtype == "float" || dtype == "float32") return {row->single, row->source};
  return {};
}

PeakBandwidth peak_bandwidth(std::string_view device_name) {
  const PeakRow* row = device_row(device_name);
  if (row == nullptr) return {};
  return {row->bandwidth, row->source};
}

void place_on_roofline(OpFlops& op, double peak_tflops, double bandwidth_gbps) {
  op.bound = "unknown";
  op.attainable_tflops.reset();
  op.attainable_share.reset();
  if (!op.intensity || peak_tflops <= 0 || bandwidth_gbps <= 0) return;
  // The ridge point, FLOP per byte: below it the memory feeds the units slower than they compute.
  const double ridge = peak_tflops * 1e3 / bandwidth_gbps;
  op.bound = *op.intensity < ridge ? "memory_bound" : "compute_bound";
  op.attainable_tflops = std::min(peak_tflops, *op.intensity * bandwidth_gbps / 1e3);
  if (op.achieved_tflops > 0) op.attainable_share = op.achieved_tflops / *op.attainable_tflops;
}

ComputeEfficiencyResult compute_efficiency(const Trace& trace, const StepsResult& steps,
                                           const AnalysisOptions& /*options*/) {
  ComputeEfficiencyResult result;
  const auto kept = steps.kept();
  if (kept.empty()) {
    result.not_applicable_reason = "no kept steps";
    return result;
  }
  const EventTable& e = trace.events;
  std::vector<std::int32_t> row_of(e.size(), kNotCounted);  // per event: its row in `ops`
  std::vector<EventIndex> counted;                          // the counted ops, in event order
  std::map<std::pair<std::string, std::string>, std::size_t> rows;
  // (name, first dtype) ids -> row: the strings of a row's key are built once per distinct pair.
  std::map<std::pair<StringId, StringId>, std::size_t> rows_by_ids;
  std::vector<std::int64_t> calls_with_bytes;  // per row: an intensity needs every call's bytes
  FlopCounter counted_flops(trace);
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (e.event_class[i] != EventClass::kOp) continue;
    const std::optional<Counted> c = counted_flops(i);
    if (!c || c->flops <= 0) continue;
    bool inside_counted = false;
    for (EventIndex at = e.parent[i]; at != kNoEvent && !inside_counted; at = e.parent[at]) {
      inside_counted = row_of[at] != kNotCounted;
    }
    const bool in_kept_step = kept_step_holds(kept, e.start_ns[i]);
    if (inside_counted || !in_kept_step) continue;
    const StringId dtype_id = first_dtype(trace.op_inputs_of(i));
    auto by_ids = rows_by_ids.find({e.name[i], dtype_id});
    if (by_ids == rows_by_ids.end()) {
      const std::string dtype(trace.strings.view(dtype_id));
      const auto key = std::make_pair(std::string(trace.name_of(i)), dtype);
      auto [it, fresh] = rows.emplace(key, result.ops.size());
      if (fresh) {
        OpFlops& fresh_row = result.ops.emplace_back();
        fresh_row.name = key.first;
        fresh_row.dtype = dtype;
        fresh_row.source = c->from_trace ? "trace" : "shapes";
        calls_with_bytes.push_back(0);
      }
      by_ids = rows_by_ids.emplace(std::make_pair(e.name[i], dtype_id), it->second).first;
    }
    const std::size_t r = by_ids->second;
    OpFlops& row = result.ops[r];
    ++row.calls;
    row.flops += c->flops;
    if (c->bytes) {
      row.bytes += *c->bytes;
      ++calls_with_bytes[r];
    }
    row_of[i] = static_cast<std::int32_t>(r);
    counted.push_back(i);
  }
  if (result.ops.empty()) {
    result.not_applicable_reason =
        "no op with FLOPs: record with record_shapes=True (matrix multiplies) or "
        "with_flops=True";
    return result;
  }
  const std::vector<std::int64_t> device_time =
      kernel_time_by_row(trace, row_of, result.ops.size());
  const bool on_device = !device_time.empty();
  if (on_device) {
    for (std::size_t r = 0; r < result.ops.size(); ++r) result.ops[r].time_ns = device_time[r];
  } else {
    for (const EventIndex op : counted) {
      result.ops[static_cast<std::size_t>(row_of[op])].time_ns += e.dur_ns[op];
    }
  }
  for (std::size_t r = 0; r < result.ops.size(); ++r) {
    OpFlops& row = result.ops[r];
    if (calls_with_bytes[r] == row.calls && row.bytes > 0) row.intensity = row.flops / row.bytes;
    if (calls_with_bytes[r] != row.calls) row.bytes = 0;
  }
  double total = 0;
  std::map<std::string, double> by_dtype;
  for (OpFlops& row : result.ops) {
    total += row.flops;
    by_dtype[row.dtype] += row.flops;
    if (row.time_ns > 0) row.achieved_tflops = row.flops / static_cast<double>(row.time_ns) / 1e3;
  }
  std::sort(result.ops.begin(), result.ops.end(),
            [](const OpFlops& a, const OpFlops& b) { return a.flops > b.flops; });
  double step_ns = 0;
  for (const Step* s : kept) step_ns += static_cast<double>(s->duration_ns());
  const auto n = static_cast<double>(kept.size());
  result.applicable = true;
  result.flops_per_step = total / n;
  result.achieved_tflops_per_step = step_ns > 0 ? total / step_ns / 1e3 : 0;
  result.dtype =
      std::max_element(by_dtype.begin(), by_dtype.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
      })->first;
  if (!trace.devices.empty() && on_device) {
    result.device_name = trace.devices.front().name;
    const PeakFlops peak = peak_flops(result.device_name, result.dtype);
    result.peak_tflops = peak.tflops;
    result.peak_source = std::string(peak.source);
    if (peak.tflops > 0) result.mfu = result.achieved_tflops_per_step / peak.tflops;
    result.peak_bandwidth_gbps = peak_bandwidth(result.device_name).gbps;
    if (peak.tflops > 0 && result.peak_bandwidth_gbps > 0) {
      result.ridge_point = peak.tflops * 1e3 / result.peak_bandwidth_gbps;
    }
  }
  // Each op under the roof of its own dtype's peak (a float op beside bf16 ones has a lower one).
  for (OpFlops& row : result.ops) {
    place_on_roofline(row, peak_flops(result.device_name, row.dtype).tflops,
                      result.peak_bandwidth_gbps);
  }
  return result;
}

}  // namespace stepscope
