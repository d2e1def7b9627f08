// The figures of the analyze document's top level that describe the run rather than a rank:
// what was asked for and found (`input`), and how long it took (`timing`).
#pragma once

#include <string_view>

#include "report/report_model.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

template <>
struct Fields<SkippedFile> {
  static constexpr std::string_view kName = "SkippedFile";
  static std::span<const Field> list() {
    using D = Describe<SkippedFile>;
    static const Field k[] = {
        D::field<&SkippedFile::path>("file", Unit::kNone, "the file"),
        D::field<&SkippedFile::reason>("reason", Unit::kNone, "why it was skipped"),
    };
    return k;
  }
};

struct ReportInput {
  const Report& report;
};

inline std::string_view input_path(const ReportInput& i) { return i.report.request.path; }
inline const std::vector<std::string>& input_files(const ReportInput& i) {
  return i.report.input_files;
}
inline const std::vector<SkippedFile>& input_skipped(const ReportInput& i) {
  return i.report.traces.skipped;
}
inline const std::vector<std::string>& input_notes(const ReportInput& i) {
  return i.report.traces.notes;
}

template <>
struct Fields<ReportInput> {
  static constexpr std::string_view kName = "Input";
  static std::span<const Field> list() {
    using D = Describe<ReportInput>;
    static const Field k[] = {
        D::field<&input_path>("path", Unit::kNone, "what was asked for"),
        D::field<&input_files>("files", Unit::kNone, "the trace files analysed, one per rank"),
        D::field<&input_skipped>("skipped", Unit::kNone,
                                 "files skipped (`--skip-bad`, or JSON that is not a Chrome "
                                 "trace in a folder)"),
        D::field<&input_notes>("notes", Unit::kNone, "how ranks were found, duplicated ranks"),
    };
    return k;
  }
};

struct ReportTiming {
  const Report& report;
};

inline double load_seconds(const ReportTiming& t) { return t.report.load_seconds; }
inline double analysis_seconds(const ReportTiming& t) { return t.report.analysis_seconds; }

template <>
struct Fields<ReportTiming> {
  static constexpr std::string_view kName = "Timing";
  static std::span<const Field> list() {
    using D = Describe<ReportTiming>;
    static const Field k[] = {
        D::field<&load_seconds>("load_seconds", Unit::kNone, "wall time of loading, in seconds"),
        D::field<&analysis_seconds>("analysis_seconds", Unit::kNone,
                                    "wall time of the analyses, in seconds"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
