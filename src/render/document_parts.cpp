#include "report/report_fields.h"
#include "stepscope/figures/diagnosis_fields.h"
#include "stepscope/figures/diff_fields.h"
#include "stepscope/figures/documents.h"
#include "stepscope/figures/job_fields.h"
#include "stepscope/figures/monitor_fields.h"
#include "stepscope/figures/snapshot_fields.h"
#include "stepscope/figures/trace_fields.h"

namespace stepscope::figures {

std::span<const DocumentPart> document_parts() {
  static const DocumentPart kParts[] = {
      {"input", "what `stepscope analyze` was asked for and found", &type_of<ReportInput>},
      {"timing", "how long it took", &type_of<ReportTiming>},
      {"ranks[]", "a rank object starts with these keys; its analyses follow (above)",
       &type_of<RankHeader>},
      {"job",
       "the job (`analyze FOLDER`, `stepscope merge`): ranks compared, stragglers, "
       "collectives, clocks, scaling",
       &type_of<job::JobAnalysis>},
      {"stepscope diff --json",
       "the comparison of two runs, after `schema` (`stepscope.diff`), `schema_version` and "
       "`stepscope_version`",
       &type_of<DiffResult>},
      {"stepscope monitor -o FILE",
       "the live monitor's timeline, after `schema` (`stepscope.monitor`), `schema_version` and "
       "`stepscope_version` (docs/monitor.md)",
       &type_of<MonitorTimeline>},
      {"stepscope memory --json",
       "the memory-snapshot document, after `schema` (`stepscope.memory_snapshot`), "
       "`schema_version` and `stepscope_version`",
       &type_of<SnapshotDocument>},
  };
  return kParts;
}

}  // namespace stepscope::figures
