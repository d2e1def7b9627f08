#include "stepscope/figures/diagnosis_fields.h"
#include "stepscope/figures/documents.h"
#include "stepscope/figures/job_fields.h"

namespace stepscope::figures {

std::span<const DocumentPart> document_parts() {
  static const DocumentPart kParts[] = {
      {"ranks[].diagnosis", "a rank's answer: the verdict and its findings", &type_of<Diagnosis>},
      {"job",
       "the job (`analyze FOLDER`, `stepscope merge`): ranks compared, stragglers, "
       "collectives, clocks, scaling",
       &type_of<job::JobAnalysis>},
  };
  return kParts;
}

}  // namespace stepscope::figures
