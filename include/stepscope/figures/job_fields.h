// The figures of the job analysis (job_analysis.h): the `job` object of `analyze FOLDER` and of
// `stepscope merge`. Times per step are means over each rank's kept steps.
#pragma once

#include <cstdint>
#include <string_view>

#include "stepscope/figures/diagnosis_fields.h"
#include "stepscope/figures/fields.h"
#include "stepscope/job/job_analysis.h"

namespace stepscope::figures {

// A part of the rank-shaped finding inside a job finding.
template <auto Member>
const auto& job_finding_part(const job::JobFinding& f) {
  return f.finding.*Member;
}

// The shape of a rank's finding (Fields<Finding>) with the ranks involved, and no `code`: a job
// finding rests on several ranks' figures, not on one rank's Python frames.
template <>
struct Fields<job::JobFinding> {
  static constexpr std::string_view kName = "JobFinding";
  static std::span<const Field> list() {
    using T = job::JobFinding;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&job_finding_part<&Finding::id>>(
            "id", Unit::kNone,
            "`straggler`, `rank-imbalance`, `exposed-communication`, `small-collectives`"),
        D::field<&job_finding_part<&Finding::title>>("title", Unit::kNone, "one line"),
        D::field<&job_finding_part<&Finding::severity>>("severity", Unit::kNone,
                                                        "as a rank's finding"),
        D::field<&job_finding_part<&Finding::bottleneck>>("bottleneck", Unit::kNone,
                                                          "what limits the job's step"),
        D::field<&job_finding_part<&Finding::part>>("phase", Unit::kNone, "where in the step"),
        D::field<&job_finding_part<&Finding::rank>>("rank", Unit::kNone, "the main rank concerned"),
        D::field<&T::ranks>("ranks", Unit::kNone, "the ranks involved"),
        D::field<&job_finding_part<&Finding::evidence>>("evidence", Unit::kNone,
                                                        "the figures the finding rests on"),
        D::field<&job_finding_part<&Finding::fix>>("fix", Unit::kNone, "what to change"),
        D::field<&job_finding_part<&Finding::gain>>("expected_gain", Unit::kNone,
                                                    "the saving per step"),
    };
    return k;
  }
};

template <>
struct Fields<job::RankRow> {
  static constexpr std::string_view kName = "JobRank";
  static std::span<const Field> list() {
    using T = job::RankRow;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::rank>("rank", Unit::kNone, "the rank"),
        D::field<&T::steps>("steps", Unit::kCount, "kept steps"),
        D::field<&T::step_p50_ns>("step_time_p50_ms", Unit::kMillisecondsFromNs,
                                  "median step time"),
        D::field<&T::step_max_ns>("step_time_max_ms", Unit::kMillisecondsFromNs,
                                  "longest step time"),
        D::field<&T::compute_ns>("compute_ms", Unit::kMillisecondsFromNs, "compute per step"),
        D::field<&T::exposed_comm_ns>("exposed_comm_ms", Unit::kMillisecondsFromNs,
                                      "transfer time no other work overlapped, per step"),
        D::field<&T::wait_ns>("wait_ms", Unit::kMillisecondsFromNs,
                              "waiting for the last rank to arrive, per step"),
        D::field<&T::idle_ns>("idle_ms", Unit::kMillisecondsFromNs, "idle per step"),
        D::field<&T::top_finding>("top_finding", Unit::kNone,
                                  "id of the rank's top finding (a rank's "
                                  "`exposed-communication` that waiting explains is replaced)"),
        D::field<&T::top_finding_title>("top_finding_title", Unit::kNone, "its title"),
    };
    return k;
  }
};

template <>
struct Fields<job::Straggler> {
  static constexpr std::string_view kName = "Straggler";
  static std::span<const Field> list() {
    using T = job::Straggler;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::rank>("rank", Unit::kNone, "the late rank"),
        D::field<&T::late_ns_per_step>("late_ms_per_step", Unit::kMillisecondsFromNs,
                                       "after the other ranks' median arrival, per step"),
        D::field<&T::share_last>("share_of_collectives_last", Unit::kShare,
                                 "of matched collectives at which it arrived last"),
        D::field<&T::share_late>("share_of_collectives_late", Unit::kShare,
                                 "of its steps (collectives outside steps one by one) in which it "
                                 "arrived late against the other ranks' median arrival"),
        D::field<&T::phase>("phase", Unit::kNone,
                            "where it lost the time: forward, backward, optimizer, data_loading, "
                            "unknown"),
        D::field<&T::phase_excess_ns>("phase_excess_ms_per_step", Unit::kMillisecondsFromNs,
                                      "that phase's excess over the median rank, per step"),
        D::field<&T::evidence>("evidence", Unit::kNone,
                               "sentences: ops longer than on the median rank"),
        D::field<&T::waiting_ranks>("waiting_ranks", Unit::kNone, "the ranks that wait for it"),
    };
    return k;
  }
};

template <>
struct Fields<job::CollectiveRow> {
  static constexpr std::string_view kName = "JobCollective";
  static std::span<const Field> list() {
    using T = job::CollectiveRow;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::kind>("kind", Unit::kNone, "the collective"),
        D::field<&T::min_bytes>("min_bytes", Unit::kBytes,
                                "the power-of-two size bucket [min_bytes, max_bytes); -1: size "
                                "unknown"),
        D::field<&T::max_bytes>("max_bytes", Unit::kBytes, "its end"),
        D::field<&T::count>("count", Unit::kCount, "matched collectives"),
        D::field<&T::total_ns>("total_ms", Unit::kMillisecondsFromNs,
                               "sum of the mean duration over ranks"),
        D::field<&T::transfer_ns>("transfer_ms", Unit::kMillisecondsFromNs,
                                  "sum of latest end - last arrival"),
        D::field<&T::wait_ns>("wait_ms", Unit::kMillisecondsFromNs,
                              "sum of the mean wait over ranks"),
        D::field<&T::bytes>("bytes", Unit::kBytes, "bytes moved"),
        D::field<&T::algbw_gb_per_s>("algbw_gb_per_s", Unit::kGbPerSecond,
                                     "over the transfer time (nccl-tests); 0: unknown"),
        D::field<&T::busbw_gb_per_s>("busbw_gb_per_s", Unit::kGbPerSecond,
                                     "bus bandwidth (nccl-tests); 0: unknown"),
        D::field<&T::latency_bound>("latency_bound", Unit::kNone,
                                    "small messages: the time is latency, not bandwidth"),
        D::field<&T::link_peak_gb_per_s>("link_peak_gb_per_s", Unit::kGbPerSecond,
                                         "the link's peak as stated by --link-gbps; null: "
                                         "unknown (no trace names its link)"),
        D::field<&T::busbw_share_of_link_peak>("busbw_share_of_link_peak", Unit::kShare,
                                               "busbw / link peak (above 1 when the stated peak "
                                               "is too low); null: unknown"),
    };
    return k;
  }
};

template <>
struct Fields<job::ClockOffset> {
  static constexpr std::string_view kName = "ClockOffset";
  static std::span<const Field> list() {
    using T = job::ClockOffset;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::rank>("rank", Unit::kNone, "the rank"),
        D::field<&T::offset_ns>("offset_us", Unit::kMicrosecondsFromNs,
                                "rank clock - reference clock (the lowest rank's)"),
        D::field<&T::collectives>("collectives", Unit::kCount,
                                  "collective ends the estimate rests on"),
        D::field<&T::spread_ns>("spread_us", Unit::kMicrosecondsFromNs,
                                "median absolute deviation of the end differences"),
    };
    return k;
  }
};

template <>
struct Fields<job::Scaling> {
  static constexpr std::string_view kName = "Scaling";
  static std::span<const Field> list() {
    using T = job::Scaling;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::applicable>("applicable", Unit::kNone, "whether it could be estimated"),
        D::field<&T::efficiency>("efficiency", Unit::kShare, "ideal / actual step time"),
        D::field<&T::ideal_step_ns>("ideal_step_ms", Unit::kMillisecondsFromNs,
                                    "the mean rank step with no waiting and every transfer "
                                    "overlapped"),
        D::field<&T::actual_step_ns>("actual_step_ms", Unit::kMillisecondsFromNs,
                                     "the mean rank step"),
    };
    return k;
  }
};

template <>
struct Fields<job::RunInfo> {
  static constexpr std::string_view kName = "JobRun";
  static std::span<const Field> list() {
    using T = job::RunInfo;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::index>("index", Unit::kNone, "0: the oldest run"),
        D::field<&T::world_size>("world_size", Unit::kCount, "its world size; -1: unknown"),
        D::field<&T::analysed>("analysed", Unit::kNone, "whether this run is the one analysed"),
        D::field<&T::ranks>("ranks", Unit::kNone, "its ranks"),
        D::field<&T::files>("files", Unit::kNone, "its trace files"),
    };
    return k;
  }
};

inline std::int64_t ranks_analysed(const job::JobAnalysis& job) {
  return static_cast<std::int64_t>(job.ranks.size());
}

template <>
struct Fields<job::JobAnalysis> {
  static constexpr std::string_view kName = "Job";
  static std::span<const Field> list() {
    using T = job::JobAnalysis;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::verdict>("verdict", Unit::kNone, "the job's answer, in one sentence"),
        D::field<&T::world_size>("world_size", Unit::kCount, "the job's world size; -1: unknown"),
        D::field<&ranks_analysed>("ranks_analysed", Unit::kCount, "the ranks compared"),
        D::field<&T::matched_collectives>(
            "matched_collectives", Unit::kCount,
            "collectives matched across ranks (the Nth collective of each process group)"),
        D::field<&T::findings>("findings", Unit::kNone, "ranked by likely saving"),
        D::field<&T::ranks>("ranks", Unit::kNone, "one row per rank"),
        D::field<&T::stragglers>("stragglers", Unit::kNone, "ranks the others wait for"),
        D::field<&T::collectives>("collectives", Unit::kNone, "per kind and size bucket"),
        D::field<&T::clock_offsets>("clock_offsets", Unit::kNone,
                                    "each rank's clock against the reference"),
        D::field<&T::scaling>("scaling", Unit::kNone, "the scaling efficiency"),
        D::field<&T::runs>("runs", Unit::kNone, "the runs found in the folder"),
        D::field<&T::notes>("notes", Unit::kNone,
                            "what could not be compared and why (missing ranks, ranks without GPU "
                            "events or steps, other runs)"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
