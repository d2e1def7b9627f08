#include "stepscope/analysis/options.h"

namespace stepscope {

std::string_view to_string(Mode mode) {
  switch (mode) {
    case Mode::kNative:
      return "native";
    case Mode::kCompatHta:
      return "compat-hta";
    case Mode::kCompatTb:
      return "compat-tb";
  }
  return "native";
}

std::optional<Mode> parse_mode(std::string_view text) {
  if (text == "native") return Mode::kNative;
  if (text == "compat-hta") return Mode::kCompatHta;
  if (text == "compat-tb") return Mode::kCompatTb;
  return std::nullopt;
}

}  // namespace stepscope
