// Findings as plain Python dicts with the keys and units of the JSON document's
// `diagnosis.findings` entries (times in µs), built from the library's structs; every figure
// equals the one the JSON document holds.
#pragma once

#include <nanobind/nanobind.h>

#include <vector>

#include "stepscope/diagnosis/finding.h"

namespace stepscope_python {

nanobind::list finding_dicts(const std::vector<stepscope::Finding>& findings);

}  // namespace stepscope_python
