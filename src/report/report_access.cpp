// Read access to an analysed report for front ends that hold it as an opaque ReportPtr.
#include <string>
#include <vector>

#include "report/report_model.h"
#include "stepscope/report.h"

namespace stepscope {

const std::string& report_input_path(const Report& report) { return report.request.path; }

std::vector<Finding> report_findings(const Report& report) {
  std::vector<Finding> findings;
  // A streamed folder keeps no RankReport; its kept ranks carry their findings instead.
  for (const RankReport& rank : report.ranks) {
    findings.insert(findings.end(), rank.diagnosis.findings.begin(), rank.diagnosis.findings.end());
  }
  for (const RenderedRank& rank : report.rendered) {
    findings.insert(findings.end(), rank.findings.begin(), rank.findings.end());
  }
  return findings;
}

}  // namespace stepscope
