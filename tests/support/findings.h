// Looking findings up in a diagnosis, for the rule tests.
#pragma once

#include <string>

#include "stepscope/diagnosis/diagnose.h"

namespace stepscope::testing {

// The first finding with this id, or nullptr.
inline const Finding* find_finding(const Diagnosis& diagnosis, const std::string& id) {
  for (const Finding& finding : diagnosis.findings) {
    if (finding.id == id) return &finding;
  }
  return nullptr;
}

// The diagnosis of a trace, which may be a temporary: the Diagnosis borrows nothing from it.
inline Diagnosis diagnose_trace(const Trace& trace, const AnalysisOptions& options = {}) {
  return diagnose(analyze_rank(trace, options));
}

}  // namespace stepscope::testing
