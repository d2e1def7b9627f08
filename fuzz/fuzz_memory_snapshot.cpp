// libFuzzer target: the memory-snapshot pickle reader, then the analysis and both renderers on
// whatever loads. A refusal is fine; a crash, a leak, a hang or unbounded memory is not.
#include <cstddef>
#include <cstdint>

#include "stepscope/snapshot.h"
#include "stepscope/snapshot_report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  stepscope::Result<stepscope::MemorySnapshot> snapshot = stepscope::load_memory_snapshot_bytes(
      reinterpret_cast<const char*>(data), size, "fuzz.pickle");
  if (!snapshot) return 0;
  const stepscope::SnapshotReport report = stepscope::analyze_memory_snapshot(*snapshot, 3);
  (void)stepscope::render_snapshot_json(report, 3);
  (void)stepscope::render_snapshot_text(report, 3);
  return 0;
}
