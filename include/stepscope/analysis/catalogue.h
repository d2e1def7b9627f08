// Every analysis of a rank, registered once: its name in a rank's JSON object, how it is
// computed into RankAnalyses, and how its result is described (figures/fields.h). analyze_rank,
// the JSON report and the schema generator loop over this list.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/figures/fields.h"

namespace stepscope {

struct AnalysisDescription {
  std::string_view name;  // key in a rank's JSON object; empty: computed but not written
  std::string_view doc;   // one line for docs/json-schema.md
  void (*compute)(RankAnalyses& rank) = nullptr;  // reads rank.trace, rank.options, rank.steps
  const figures::TypeInfo* (*type)() = nullptr;   // the result's description
  void (*write)(figures::Sink& sink, const RankAnalyses& rank) = nullptr;
  // What it reads: 0 the trace only (steps); 1 the trace and the steps; 2 another analysis of
  // stage 1 as well. Analyses of one stage are independent and may run at the same time.
  std::uint8_t stage = 1;
};

inline constexpr std::uint8_t kLastAnalysisStage = 2;

// In computing order (steps first: the others read them), which is also the JSON order.
std::span<const AnalysisDescription> analysis_catalogue();

}  // namespace stepscope
