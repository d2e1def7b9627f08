// The link fields of a row of the job's collective table, kept apart from the rest of the job
// writer so that the link's figure is declared once.
#pragma once

#include "render/json_writer.h"
#include "stepscope/job/job_analysis.h"

namespace stepscope::render {

// `link_peak_gb_per_s` (GB/s) and `busbw_share_of_link_peak` (0..1, above 1 when the stated
// peak is too low); null when unknown: the trace does not name the link, --link-gbps does.
void write_link_fields(JsonWriter& json, const job::CollectiveRow& row);

}  // namespace stepscope::render
