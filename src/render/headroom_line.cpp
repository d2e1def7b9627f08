#include "render/headroom_line.h"

#include <fmt/format.h>

#include "render/text_format.h"

namespace stepscope::render {

std::string headroom_line(const DeviceHeadroom& d,
                          const std::function<std::string(std::string_view)>& text) {
  std::string peak = d.peak_reserved >= 0
                         ? fmt::format("{} reserved ({} allocated)", format_bytes(d.peak_reserved),
                                       format_bytes(d.peak_allocated))
                         : fmt::format("{} allocated", format_bytes(d.peak_allocated));
  std::string where;
  if (!d.peak_op.empty() || d.peak_phase || d.peak_step) {
    where = "; allocation peak";
    if (!d.peak_op.empty()) where += " in " + text(d.peak_op);
    std::string context;
    if (d.peak_phase) context = std::string(to_string(*d.peak_phase));
    if (d.peak_step) {
      context += fmt::format("{}step #{}", context.empty() ? "" : ", ", *d.peak_step);
    }
    if (!context.empty()) where += " (" + context + ")";
  }
  return fmt::format(
      "memory headroom: {} peak {} of {}: {} ({}) free{}; live at the peak: {} long-lived "
      "(across steps), {} step-scoped (activations)",
      text(d.label), peak, format_bytes(d.total_bytes), format_bytes(d.headroom_bytes),
      format_percent(d.headroom_share), where, format_bytes(d.long_lived_bytes),
      format_bytes(d.step_scoped_bytes));
}

}  // namespace stepscope::render
