// The figures of a rank object that come from its trace rather than from an analysis: the rank,
// its devices, the diagnosis, and what the importer read and kept. The analyses follow them in
// the rank object (analysis/catalogue.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "stepscope/figures/diagnosis_fields.h"
#include "stepscope/figures/fields.h"
#include "stepscope/trace.h"

namespace stepscope::figures {

inline std::string compute_capability(const DeviceProperties& d) {
  return std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor);
}

template <>
struct Fields<DeviceProperties> {
  static constexpr std::string_view kName = "Device";
  static std::span<const Field> list() {
    using T = DeviceProperties;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::id>("id", Unit::kNone, "device id"),
        D::field<&T::name>("name", Unit::kNone, "its name"),
        D::field<&T::total_global_memory>("total_memory_bytes", Unit::kBytes,
                                          "its memory; -1: unknown"),
        D::field<&compute_capability>("compute_capability", Unit::kNone, "`major.minor`"),
        D::field<&T::num_sms>("sm_count", Unit::kCount, "streaming multiprocessors"),
    };
    return k;
  }
};

// What the importer read and kept (ImportStats, with the size of the trace in memory).
struct ImportFigures {
  const Trace& trace;
};

template <auto Member>
std::uint64_t import_count(const ImportFigures& f) {
  return f.trace.stats.*Member;
}
inline bool external_id_is_correlation(const ImportFigures& f) {
  return f.trace.stats.external_id_is_correlation;
}
inline std::uint64_t trace_threads(const ImportFigures& f) { return f.trace.threads.size(); }
inline std::uint64_t trace_bytes(const ImportFigures& f) { return f.trace.bytes(); }
inline double trace_bytes_per_event(const ImportFigures& f) {
  const double events = static_cast<double>(std::max<std::uint64_t>(f.trace.stats.events_seen, 1));
  return static_cast<double>(f.trace.bytes()) / events;
}

template <>
struct Fields<ImportFigures> {
  static constexpr std::string_view kName = "Import";
  static std::span<const Field> list() {
    using S = ImportStats;
    using D = Describe<ImportFigures>;
    static const Field k[] = {
        D::field<&import_count<&S::input_bytes>>("input_bytes", Unit::kBytes, "decompressed"),
        D::field<&import_count<&S::events_seen>>("events", Unit::kCount,
                                                 "every element of traceEvents"),
        D::field<&import_count<&S::complete_events>>("complete_events", Unit::kCount,
                                                     "X, and matched B/E pairs"),
        D::field<&import_count<&S::instant_events>>("instant_events", Unit::kCount,
                                                    "i / I (memory samples included)"),
        D::field<&import_count<&S::memory_events>>("memory_events", Unit::kCount,
                                                   "`[memory]` instants"),
        D::field<&import_count<&S::flow_events>>("flow_events", Unit::kCount, "flows"),
        D::field<&import_count<&S::counter_events>>("counter_events", Unit::kCount, "C"),
        D::field<&import_count<&S::metadata_events>>("metadata_events", Unit::kCount, "M"),
        D::field<&import_count<&S::async_events>>("async_events_not_analysed", Unit::kCount,
                                                  "b / e / n: counted, not analysed"),
        D::field<&import_count<&S::other_phase_events>>("other_phase_events_not_analysed",
                                                        Unit::kCount, "other phases"),
        D::field<&import_count<&S::invalid_complete_events>>(
            "invalid_complete_events_skipped", Unit::kCount,
            "X without ts or dur, or with dur < 0"),
        D::field<&import_count<&S::unmatched_begin_end>>("unmatched_begin_end_skipped",
                                                         Unit::kCount, "B or E without its pair"),
        D::field<&import_count<&S::unknown_category_events>>("unknown_category_events",
                                                             Unit::kCount, "categories unknown"),
        D::field<&external_id_is_correlation>("external_id_is_correlation", Unit::kNone,
                                              "device activities carry their correlation id "
                                              "in `External id` (older traces)"),
        D::field<&trace_threads>("threads", Unit::kCount, "threads of the trace"),
        D::field<&trace_bytes>("bytes_in_memory", Unit::kBytes, "the in-memory trace"),
        D::field<&trace_bytes_per_event>("bytes_in_memory_per_event", Unit::kBytes,
                                         "per element of traceEvents"),
    };
    return k;
  }
};

// The start of a rank object, before its analyses.
struct RankHeader {
  const Trace& trace;
  const Diagnosis& diagnosis;
};

template <auto Member>
const auto& rank_trace_part(const RankHeader& h) {
  return h.trace.*Member;
}
inline const Diagnosis& rank_diagnosis(const RankHeader& h) { return h.diagnosis; }
inline ImportFigures rank_import(const RankHeader& h) { return {h.trace}; }
inline std::int64_t rank_world_size(const RankHeader& h) { return h.trace.distributed.world_size; }
inline std::string rank_format(const RankHeader& h) {
  return std::string(to_string(h.trace.origin.format));
}
inline const std::string& rank_producer(const RankHeader& h) { return h.trace.origin.producer; }
// A PyTorch profiler trace is the default, and its documents leave the format out.
inline bool not_kineto(const RankHeader& h) {
  return h.trace.origin.format != TraceFormat::kKinetoJson;
}

template <>
struct Fields<RankHeader> {
  static constexpr std::string_view kName = "RankHeader";
  static std::span<const Field> list() {
    using T = Trace;
    using D = Describe<RankHeader>;
    static const Field k[] = {
        D::field<&rank_trace_part<&T::rank>>("rank", Unit::kNone, "the rank"),
        D::field<&rank_trace_part<&T::rank_source>>(
            "rank_source", Unit::kNone,
            "how it was found: `distributedInfo.rank`, `file name`, `file order in the "
            "folder`, or the single-file default"),
        D::field<&rank_trace_part<&T::source_path>>("file", Unit::kNone, "the trace file"),
        D::field<&rank_format>("format", Unit::kNone,
                               "the file's format, when it is not PyTorch profiler JSON "
                               "(`Nsight Systems SQLite export`)")
            .when<&not_kineto>(),
        D::field<&rank_producer>("producer", Unit::kNone,
                                 "what wrote the file, as it states it (the exporter's version)")
            .when<[](const RankHeader& h) {
              return not_kineto(h) && !h.trace.origin.producer.empty();
            }>(),
        D::field<&rank_world_size>("world_size", Unit::kCount, "`distributedInfo.world_size`")
            .when<[](const RankHeader& h) { return h.trace.distributed.world_size >= 0; }>(),
        D::field<&rank_trace_part<&T::devices>>("devices", Unit::kNone, "`deviceProperties`"),
        D::field<&rank_diagnosis>("diagnosis", Unit::kNone, "the answer"),
        D::field<&rank_import>("import", Unit::kNone, "what the importer read and kept"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
