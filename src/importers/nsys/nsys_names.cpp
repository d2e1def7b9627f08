#include "importers/nsys/nsys_names.h"

#include <cxxabi.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <memory>

namespace stepscope::nsys {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  });
  return out;
}

// CUPTI_ACTIVITY_MEMCPY_KIND_*: the direction of a copy, as the PyTorch profiler spells it.
std::string_view copy_direction(std::int64_t kind) {
  static constexpr std::array<std::string_view, 11> kNames = {
      "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  return kind >= 0 && kind < static_cast<std::int64_t>(kNames.size())
             ? kNames[static_cast<std::size_t>(kind)]
             : "Unknown";
}

// CUPTI_ACTIVITY_MEMORY_KIND_*.
std::string_view memory_kind(std::int64_t kind) {
  static constexpr std::array<std::string_view, 8> kNames = {
      "Unknown", "Pageable", "Pinned",        "Device",
      "Array",   "Managed",  "Device Static", "Managed Static"};
  return kind >= 0 && kind < static_cast<std::int64_t>(kNames.size())
             ? kNames[static_cast<std::size_t>(kind)]
             : "Unknown";
}

// The end of the bracketed text that starts at `open` (a '['), or npos when it is not closed.
std::size_t closing_bracket(std::string_view text, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']' && --depth == 0) return i + 1;
  }
  return std::string_view::npos;
}

// The fields emit_nvtx appends after an op's name, each introduced by ", KEY = ".
constexpr std::array<std::string_view, 4> kFieldKeys = {
    ", seq = ", ", op_id = ", ", sizes = ", ", input_op_ids = "};

}  // namespace

std::string_view api_call_name(std::string_view name) {
  const std::size_t mark = name.rfind("_v");
  if (mark == std::string_view::npos || mark == 0 || mark + 2 == name.size()) return name;
  const std::string_view digits = name.substr(mark + 2);
  return std::all_of(digits.begin(), digits.end(), is_digit) ? name.substr(0, mark) : name;
}

std::string demangled(std::string_view name) {
  if (!name.starts_with("_Z")) return std::string(name);
  const std::string mangled(name);
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> plain(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && plain ? std::string(plain.get()) : mangled;
}

std::string memcpy_name(std::int64_t copy_kind, std::int64_t src_kind, std::int64_t dst_kind) {
  std::string name = "Memcpy ";
  name += copy_direction(copy_kind);
  name += " (";
  name += memory_kind(src_kind);
  name += " -> ";
  name += memory_kind(dst_kind);
  return name + ")";
}

std::string memset_name(std::int64_t memory_kind_id) {
  return "Memset (" + std::string(memory_kind(memory_kind_id)) + ")";
}

NvtxOpRange parse_nvtx_range(std::string_view text) {
  NvtxOpRange range;
  std::size_t name_end = text.size();
  for (const std::string_view key : kFieldKeys) name_end = std::min(name_end, text.find(key));
  range.name = text.substr(0, name_end);
  const bool has_fields = name_end < text.size();
  if (has_fields) {
    const std::string_view fields = text.substr(name_end);
    if (const std::size_t at = fields.find(kFieldKeys[0]); at != std::string_view::npos) {
      const std::string_view digits = fields.substr(at + kFieldKeys[0].size());
      std::int64_t sequence = -1;
      const auto [end, error] =
          std::from_chars(digits.data(), digits.data() + digits.size(), sequence);
      if (error == std::errc() && end != digits.data()) range.sequence = sequence;
    }
    if (const std::size_t at = fields.find(kFieldKeys[2]); at != std::string_view::npos) {
      const std::size_t open = at + kFieldKeys[2].size();
      const std::size_t close = open < fields.size() && fields[open] == '['
                                    ? closing_bracket(fields, open)
                                    : std::string_view::npos;
      if (close != std::string_view::npos) range.sizes = fields.substr(open, close - open);
    }
  }
  // Operators are namespaced (`aten::`, `c10d::`); autograd's nodes are `...Backward0`.
  range.is_op = range.name.find("::") != std::string_view::npos ||
                (has_fields && range.name.find("Backward") != std::string_view::npos);
  return range;
}

bool is_common_step_name(std::string_view name) {
  std::string key = lowercase(name);
  // `step 12`, `iteration_3`, `train_step#4`: the number is the step's, not the name's.
  while (!key.empty() && (is_digit(key.back()) || key.back() == ' ' || key.back() == '_' ||
                          key.back() == '#' || key.back() == '-' || key.back() == ':')) {
    key.pop_back();
  }
  static constexpr std::array<std::string_view, 14> kNames = {"step",
                                                              "train_step",
                                                              "training_step",
                                                              "train step",
                                                              "training step",
                                                              "iteration",
                                                              "iter",
                                                              "train_iter",
                                                              "train_iteration",
                                                              "training_iteration",
                                                              "train_batch",
                                                              "training_batch",
                                                              "run_training_batch",
                                                              "train_one_step"};
  return std::find(kNames.begin(), kNames.end(), key) != kNames.end();
}

bool is_data_loading_name(std::string_view name) {
  const std::string key = lowercase(name);
  static constexpr std::array<std::string_view, 12> kParts = {
      "dataloader", "data_loader", "data loader", "data_loading", "data loading", "dataloading",
      "load_batch", "load batch",  "load_data",   "get_batch",    "next_batch",   "fetch_batch"};
  return std::any_of(kParts.begin(), kParts.end(),
                     [&key](std::string_view part) { return key.find(part) != std::string::npos; });
}

}  // namespace stepscope::nsys
