#include "common.h"

#include <fmt/format.h>

#include <charconv>

#include "stepscope/report.h"

namespace stepscope::cli {

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else if (byte == 0xc2 && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      // A C1 control character (U+0080..U+009F) in UTF-8: some terminals act on it.
      out += fmt::format("\\xc2\\x{:02x}", static_cast<unsigned char>(text[i + 1]));
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

int fail(std::string_view message) {
  fmt::print(stderr, "stepscope: error: {}\n", printable(message));
  return kExitBadInput;
}

int fail(const Error& error) { return fail(error.describe()); }

bool write_output(const std::string& path, const std::string& content) {
  if (Status s = write_output_file(path, content); !s) {
    fail(s.error());
    return false;
  }
  return true;
}

void add_json_option(CLI::App& command, std::string& path, std::string_view what) {
  command.add_option("--json", path, fmt::format("write {} as JSON to FILE ('-': stdout)", what))
      ->type_name("FILE");
}

void add_top_option(CLI::App& command, int& top) {
  command.add_option("--top", top, "rows in top-N tables")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
}

void add_quiet_flag(CLI::App& command, bool& quiet, std::string_view what) {
  command.add_flag("-q,--quiet", quiet, std::string(what));
}

void add_no_report_flag(CLI::App& command, bool& no_report) {
  command.add_flag("--no-report", no_report, "no terminal report (files asked for are written)");
}

LoadProgress::LoadProgress(bool quiet, std::string label)
    : bar_(!quiet && stderr_is_terminal(), std::move(label)) {}

ProgressCallback LoadProgress::callback() {
  return [this](std::uint64_t done, std::uint64_t total) { bar_.update(done, total); };
}

void add_analysis_options(CLI::App& command, AnalysisArguments& a) {
  command.add_option("--rank", a.rank, "analyze only this rank (a folder of ranks)");
  command
      .add_option("--steps", a.steps,
                  "only steps FIRST to LAST: the N of ProfilerStep#N, e.g. 3:10")
      ->type_name("FIRST:LAST");
  command.add_option("--mode", a.mode, "native, compat-hta or compat-tb")
      ->check(CLI::IsMember({"native", "compat-hta", "compat-tb"}))
      ->capture_default_str();
  command
      .add_option("--threads", a.threads,
                  "1: one thread; 2: import and analyse on two (default: by size)")
      ->check(CLI::Range(1, 2));
  command.add_flag("--group-by-shape", a.group_by_input_shape,
                   "operator table per input shape as well as per name");
  command.add_flag("--no-hta-rounding", a.no_hta_rounding,
                   "compat-hta: keep exact nanoseconds instead of HTA's µs rounding");
  command.add_flag("--skip-bad", a.skip_bad, "folder: skip files that fail to load, and list them");
}

void add_folder_report_options(CLI::App& command, FolderReportArguments& a) {
  command.add_option("--jobs", a.jobs, "folder: ranks analysed in parallel (default: core count)")
      ->check(CLI::Range(1, 4096));
  command.add_option("--run", a.run, "folder of several runs: analyse run N (0: the oldest)");
  command.add_flag("--per-rank", a.per_rank, "folder: every rank's full report after the job's");
  add_link_option(command, a.link_gbps);
}

void add_link_option(CLI::App& command, std::optional<double>& link_gbps) {
  command
      .add_option("--link-gbps", link_gbps,
                  "link peak in GB/s (bytes; 200 Gb/s InfiniBand is 25): busbw as a share")
      ->check(CLI::Range(0.001, 1e6))
      ->type_name("GB/S");
}

std::optional<StepRange> parse_step_range(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto parse = [](std::string_view part, std::int64_t& out) {
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), out);
    return error == std::errc() && end == part.data() + part.size() && !part.empty();
  };
  StepRange range;
  if (!parse(text.substr(0, colon), range.first) || !parse(text.substr(colon + 1), range.last) ||
      range.first > range.last) {
    return std::nullopt;
  }
  return range;
}

Status apply_analysis_options(const AnalysisArguments& a, int top, AnalysisOptions& analysis,
                              LoadOptions& load) {
  analysis.mode = parse_mode(a.mode).value_or(Mode::kNative);
  analysis.top = top;
  analysis.group_by_input_shape = a.group_by_input_shape;
  analysis.hta_rounding = !a.no_hta_rounding;
  if (!a.steps.empty()) {
    analysis.steps = parse_step_range(a.steps);
    if (!analysis.steps) {
      return make_error(ErrorKind::kBadOption, "--steps wants FIRST:LAST, e.g. 3:10");
    }
  }
  load.rank = a.rank;
  load.skip_bad = a.skip_bad;
  load.threads = a.threads;
  return Done{};
}

}  // namespace stepscope::cli
