// busbw as a share of the link's peak. nccl-tests defines busbw so that it compares with the
// peak of the slowest link a collective crosses, whatever the rank count; the trace never says
// which link that is (no hostnames, no topology), so the peak comes from the user.
#include <cmath>

#include "job/job_internal.h"

namespace stepscope::job::detail {

void set_link_share(std::vector<CollectiveRow>& rows, std::optional<double> link_peak_gb_per_s) {
  if (!link_peak_gb_per_s || !std::isfinite(*link_peak_gb_per_s) || *link_peak_gb_per_s <= 0) {
    return;
  }
  for (CollectiveRow& row : rows) {
    row.link_peak_gb_per_s = *link_peak_gb_per_s;
    if (row.busbw_gb_per_s > 0)
      row.busbw_share_of_link_peak = row.busbw_gb_per_s / *link_peak_gb_per_s;
  }
}

}  // namespace stepscope::job::detail
