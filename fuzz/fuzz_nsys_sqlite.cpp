// libFuzzer target: the Nsight Systems SQLite reader, then every analysis and the diagnosis on
// what it reads. The input is written to a temporary file (SQLite reads files), read, removed.
// Whatever the bytes, the reader returns a trace or an error: never a crash or a hang.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "importers/nsys/nsys_reader.h"
#include "stepscope/diagnosis/diagnose.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("stepscope-fuzz-nsys-" + std::to_string(::getpid()) + ".sqlite"))
                               .string();
  std::FILE* out = std::fopen(file.c_str(), "wb");
  if (out == nullptr) return 0;
  const bool written = std::fwrite(data, 1, size, out) == size;
  std::fclose(out);
  if (written) {
    std::vector<std::string> notes;
    stepscope::Result<stepscope::Trace> trace = stepscope::nsys::read_sqlite(file, {}, &notes);
    if (trace) {
      const stepscope::Diagnosis diagnosis =
          stepscope::diagnose(stepscope::analyze_rank(*trace, {}));
      if (diagnosis.summary.empty()) std::abort();
    } else if (trace.error().message.empty()) {
      std::abort();
    }
  }
  std::remove(file.c_str());
  return 0;
}
