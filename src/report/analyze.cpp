#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "concurrency/parallel_for.h"
#include "report/report_model.h"
#include "report/step_selection.h"
#include "stepscope/analysis/catalogue.h"
#include "stepscope/job/rank_summary.h"

namespace stepscope {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

unsigned worker_count(const AnalyzeRequest& request, std::size_t tasks) {
  const unsigned wanted =
      request.jobs != 0 ? request.jobs : std::max(1U, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::clamp<std::size_t>(wanted, 1, std::max<std::size_t>(tasks, 1)));
}

// Analyses of one rank run on two threads from this many events: below it, starting a thread
// costs more than it saves.
constexpr std::size_t kParallelAnalysesFromEvents = 20'000;

// The analysis threads of each rank: ranks analysed side by side take one each; one rank takes
// what the load was given, else two on a large enough trace.
AnalysisOptions rank_options(const AnalyzeRequest& request, const Trace& trace,
                             unsigned rank_workers) {
  AnalysisOptions options = request.analysis;
  if (options.threads != 0) return options;
  if (rank_workers > 1) {
    options.threads = 1;
  } else if (request.load.threads != 0) {
    options.threads = request.load.threads;
  } else {
    const bool large = trace.events.size() >= kParallelAnalysesFromEvents;
    options.threads = large && std::thread::hardware_concurrency() >= 2 ? 2 : 1;
  }
  return options;
}

RankReport analyze_and_diagnose(const Trace& trace, const AnalysisOptions& options) {
  RankReport rank{analyze_rank(trace, options), {}};
  rank.diagnosis = diagnose(rank.analyses);
  return rank;
}

Status check_selection(const RankReport& rank, const AnalysisOptions& options) {
  if (Status s = check_step_selection(rank.analyses.steps, options); !s) {
    Error error = std::move(s).error();
    error.file = rank.analyses.trace->source_path;
    return error;
  }
  return Done{};
}

// Through the summary's JSON form, so that `merge` over written summaries gives exactly the
// job that `analyze FOLDER` gives.
Result<job::RankSummary> summary_of(const RankReport& rank) {
  const std::string text = job::summary_to_json(
      job::summarize_rank(*rank.analyses.trace, rank.analyses, rank.diagnosis));
  return job::summary_from_json(text, rank.analyses.trace->source_path);
}

job::JobOptions job_options(const AnalyzeRequest& request) {
  job::JobOptions options;
  options.run = request.run;
  options.link_peak_gb_per_s = request.link_peak_gb_per_s;
  return options;
}

bool is_folder(const AnalyzeRequest& request) {
  std::error_code error;
  return std::filesystem::is_directory(request.path, error);
}

// Every trace loaded first, every rank kept in full.
Status analyze_loaded(const AnalyzeRequest& request, Report& report) {
  const auto load_start = std::chrono::steady_clock::now();
  STEPSCOPE_ASSIGN_OR_RETURN(report.traces, load_traces(request.path, request.load));
  report.load_seconds = seconds_since(load_start);
  const auto analysis_start = std::chrono::steady_clock::now();
  const std::size_t n = report.traces.ranks.size();
  std::vector<std::optional<RankReport>> analysed(n);
  const unsigned workers = worker_count(request, n);
  parallel_for(n, workers, [&](std::size_t i) {
    const Trace& trace = report.traces.ranks[i];
    analysed[i].emplace(analyze_and_diagnose(trace, rank_options(request, trace, workers)));
  });
  report.ranks.reserve(n);
  for (std::optional<RankReport>& rank : analysed) report.ranks.push_back(std::move(*rank));
  for (const RankReport& rank : report.ranks) {
    STEPSCOPE_TRY(check_selection(rank, request.analysis));
    report.input_files.push_back(rank.analyses.trace->source_path);
  }
  if (is_folder(request) && !request.load.rank) {
    std::vector<job::RankSummary> summaries;
    for (const RankReport& rank : report.ranks) {
      STEPSCOPE_ASSIGN_OR_RETURN(job::RankSummary summary, summary_of(rank));
      summaries.push_back(std::move(summary));
    }
    report.job = job::analyze_job(std::move(summaries), job_options(request));
  }
  if (request.analysis.mode == Mode::kCompatHta) {
    report.hta = hta::compute_hta_report(report.traces, request.analysis);
  }
  report.analysis_seconds = seconds_since(analysis_start);
  return Done{};
}

// What decides whether a rank of a streamed folder is kept in full.
struct KeepKey {
  std::int64_t rank = 0;
  // In data-parallel jobs every rank's step lasts as long as the slowest rank's, so a straggler
  // shows in its compute (time outside collectives), not its step time.
  double compute_ns_per_step = 0;
  double mean_step_ns = 0;
};

KeepKey keep_key(const job::RankSummary& summary, const RankReport& rank) {
  KeepKey key;
  key.rank = summary.rank;
  key.mean_step_ns = rank.analyses.step_time.duration_ns.mean;
  if (summary.steps.empty()) return key;
  double total = 0;
  for (const job::SummaryStep& step : summary.steps) total += static_cast<double>(step.compute_ns);
  key.compute_ns_per_step = total / static_cast<double>(summary.steps.size());
  return key;
}

// The ranks of a streamed folder kept in full, rendered: the lowest rank and the ranks that
// compute longest (ties to the longer mean step, then the lower rank). The order the ranks
// arrive in does not change the choice: a rank dropped had enough longer ranks kept that it can
// never be needed again.
class KeptRanks {
 public:
  explicit KeptRanks(std::size_t capacity) : capacity_(capacity) {}
  // Whether a rank would be kept now, so that only those are rendered.
  bool wanted(const KeepKey& key) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (kept_.size() < capacity_) return true;
    const auto lowest = lowest_rank();
    return key.rank < lowest->key.rank || first_is_worth_more(key, least_worth(lowest)->key);
  }
  void offer(const KeepKey& key, RenderedRank rendered) {
    const std::lock_guard<std::mutex> lock(mutex_);
    kept_.push_back({key, std::move(rendered)});
    if (kept_.size() > capacity_) kept_.erase(least_worth(lowest_rank()));
  }
  std::vector<RenderedRank> take() {
    std::sort(kept_.begin(), kept_.end(),
              [](const Kept& a, const Kept& b) { return a.key.rank < b.key.rank; });
    std::vector<RenderedRank> out;
    for (Kept& kept : kept_) out.push_back(std::move(kept.rendered));
    return out;
  }

 private:
  struct Kept {
    KeepKey key;
    RenderedRank rendered;
  };
  using Iterator = std::vector<Kept>::iterator;
  static bool first_is_worth_more(const KeepKey& a, const KeepKey& b) {
    if (a.compute_ns_per_step != b.compute_ns_per_step) {
      return a.compute_ns_per_step > b.compute_ns_per_step;
    }
    if (a.mean_step_ns != b.mean_step_ns) return a.mean_step_ns > b.mean_step_ns;
    return a.rank < b.rank;
  }
  Iterator lowest_rank() {
    return std::min_element(kept_.begin(), kept_.end(),
                            [](const Kept& a, const Kept& b) { return a.key.rank < b.key.rank; });
  }
  // The kept rank, other than `lowest`, least worth keeping.
  Iterator least_worth(Iterator lowest) {
    auto least = kept_.end();
    for (auto it = kept_.begin(); it != kept_.end(); ++it) {
      if (it == lowest) continue;
      if (least == kept_.end() || first_is_worth_more(least->key, it->key)) least = it;
    }
    return least;
  }
  std::size_t capacity_;
  std::mutex mutex_;
  std::vector<Kept> kept_;
};

// A streamed folder's trace, owned while its rank is analysed; tells request.on_trace_alive when
// it comes and goes, so that a test can count the traces alive at once.
class HeldTrace {
 public:
  HeldTrace(Trace trace, const std::function<void(int)>& on_alive)
      : trace_(std::move(trace)), on_alive_(on_alive) {
    if (on_alive_) on_alive_(+1);
  }
  HeldTrace(const HeldTrace&) = delete;
  HeldTrace& operator=(const HeldTrace&) = delete;
  ~HeldTrace() {
    // Released before the hook is told, so that the count never runs below what is alive.
    trace_ = Trace{};
    if (on_alive_) on_alive_(-1);
  }
  [[nodiscard]] const Trace& get() const { return trace_; }

 private:
  Trace trace_;
  const std::function<void(int)>& on_alive_;
};

// What one file of a streamed folder left behind once its trace was dropped.
struct StreamedFile {
  std::optional<job::RankSummary> summary;
  std::string path;
  FolderMember member;  // notes, skipped, error; its trace moved out
};

std::uint64_t size_of(const std::string& path) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  return error ? 0 : static_cast<std::uint64_t>(size);
}

// Reports bytes of whole files done, from any worker.
class FolderProgress {
 public:
  FolderProgress(const std::vector<std::string>& files, ProgressCallback callback)
      : callback_(std::move(callback)) {
    for (const std::string& file : files) total_ += size_of(file);
  }
  void file_done(const std::string& file) {
    if (!callback_) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    done_ += size_of(file);
    callback_(done_, total_);
  }

 private:
  ProgressCallback callback_;
  std::mutex mutex_;
  std::uint64_t total_ = 0;
  std::uint64_t done_ = 0;
};

// One trace of a streamed folder: loaded, analysed, summarised, offered to `kept`, dropped.
void stream_file(const AnalyzeRequest& request, const LoadOptions& load, std::size_t index,
                 StreamedFile& out, KeptRanks& kept) {
  out.member = load_folder_member(out.path, static_cast<std::int64_t>(index), load);
  if (!out.member.trace) return;
  // Moved out, so that the trace is dropped when this rank is done.
  const HeldTrace held(std::move(*out.member.trace), request.on_trace_alive);
  out.member.trace.reset();
  AnalysisOptions options = request.analysis;
  if (options.threads == 0) options.threads = load.threads;
  const RankReport rank = analyze_and_diagnose(held.get(), options);
  if (Status s = check_selection(rank, request.analysis); !s) {
    out.member.error = std::move(s).error();
    return;
  }
  Result<job::RankSummary> summary = summary_of(rank);
  if (!summary) {
    out.member.error = std::move(summary).error();
    return;
  }
  out.summary = std::move(summary).value();
  const KeepKey key = keep_key(*out.summary, rank);
  if (kept.wanted(key)) {
    const int top = request.analysis.top;
    // The terminal shows a rank's report only with --per-rank.
    std::string text =
        request.per_rank ? render_rank_text(rank, top, request.text_width) : std::string{};
    kept.offer(key, RenderedRank{key.rank, render_rank_json(rank),
                                 render_rank_html(rank, top, /*several=*/true), std::move(text),
                                 rank.diagnosis.findings});
  }
}

// Memory holds the traces being analysed and the few kept in full, never the whole folder.
Status analyze_streamed(const AnalyzeRequest& request, TraceFolder listing, Report& report) {
  const auto start = std::chrono::steady_clock::now();
  report.traces.skipped = std::move(listing.skipped);
  std::vector<StreamedFile> files(listing.files.size());
  for (std::size_t i = 0; i < files.size(); ++i) files[i].path = listing.files[i];
  const unsigned workers = worker_count(request, files.size());
  LoadOptions load = request.load;
  load.progress = nullptr;
  // One thread per rank unless --threads says otherwise: the ranks are the parallelism, and
  // two threads' batches and analyses in flight would double a rank's share of the memory bound.
  if (workers > 1 || load.threads == 0) load.threads = 1;
  FolderProgress progress(listing.files, request.load.progress);
  KeptRanks kept(request.per_rank ? files.size() : kRanksKeptInFull);
  std::atomic<bool> failed{false};
  parallel_for(files.size(), workers, [&](std::size_t i) {
    if (failed) return;
    stream_file(request, load, i, files[i], kept);
    if (files[i].member.error) failed = true;
    progress.file_done(files[i].path);
  });
  std::vector<job::RankSummary> summaries;
  for (StreamedFile& file : files) {
    if (file.member.error) return std::move(*file.member.error);  // the first file's, by name
    auto& notes = report.traces.notes;
    notes.insert(notes.end(), file.member.notes.begin(), file.member.notes.end());
    if (file.member.skipped) report.traces.skipped.push_back(std::move(*file.member.skipped));
    if (file.summary) summaries.push_back(std::move(*file.summary));
  }
  if (summaries.empty()) {
    Error error = make_error(ErrorKind::kNotTrace, "no loadable trace in this folder");
    error.file = request.path;
    return error;
  }
  std::stable_sort(
      summaries.begin(), summaries.end(),
      [](const job::RankSummary& a, const job::RankSummary& b) { return a.rank < b.rank; });
  std::vector<std::int64_t> ranks;
  for (const job::RankSummary& summary : summaries) {
    ranks.push_back(summary.rank);
    report.input_files.push_back(summary.file);
  }
  note_duplicate_ranks(ranks, report.input_files, &report.traces.notes);
  report.rendered = kept.take();
  if (report.rendered.size() < summaries.size()) {
    report.traces.notes.push_back(
        std::to_string(summaries.size()) + " ranks were analysed one at a time to bound memory: " +
        "the job covers every rank; full per-rank detail is kept for " +
        std::to_string(report.rendered.size()) +
        " (the lowest rank and those computing longest); --per-rank keeps every rank");
  }
  report.job = job::analyze_job(std::move(summaries), job_options(request));
  report.analysis_seconds = seconds_since(start);
  return Done{};
}

// A folder is streamed unless something needs every rank's trace at once (HTA's figures) or one
// rank only is asked for (the loader then holds one trace at a time itself). A folder of one
// trace is that trace's report, not a job of one rank.
Result<std::optional<TraceFolder>> listing_to_stream(const AnalyzeRequest& request) {
  if (!request.stream_folder || request.load.rank || request.analysis.mode == Mode::kCompatHta ||
      !is_folder(request)) {
    return std::optional<TraceFolder>{};
  }
  STEPSCOPE_ASSIGN_OR_RETURN(TraceFolder listing, list_trace_folder(request.path, request.load));
  if (listing.files.size() <= 1) return std::optional<TraceFolder>{};
  return std::optional<TraceFolder>{std::move(listing)};
}

}  // namespace

RankAnalyses analyze_rank(const Trace& trace, const AnalysisOptions& options) {
  RankAnalyses rank(trace);
  rank.options = options;
  for (std::uint8_t stage = 0; stage <= kLastAnalysisStage; ++stage) {
    std::vector<const AnalysisDescription*> due;
    for (const AnalysisDescription& analysis : analysis_catalogue()) {
      if (analysis.stage == stage) due.push_back(&analysis);
    }
    parallel_for(due.size(), options.threads, [&](std::size_t i) { due[i]->compute(rank); });
  }
  return rank;
}

void ReportDeleter::operator()(Report* report) const { delete report; }

Result<ReportPtr> analyze(const AnalyzeRequest& request) {
  ReportPtr report(new Report);
  report->request = request;
  STEPSCOPE_ASSIGN_OR_RETURN(std::optional<TraceFolder> listing, listing_to_stream(request));
  if (listing) {
    STEPSCOPE_TRY(analyze_streamed(request, std::move(*listing), *report));
  } else {
    STEPSCOPE_TRY(analyze_loaded(request, *report));
  }
  return report;
}

}  // namespace stepscope
