#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "annotate/markers.h"
#include "annotate/trace_events_splicer.h"
#include "stepscope/annotate.h"
#include "stepscope/load.h"
#include "support/annotated_trace.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

namespace fs = std::filesystem;
using annotate::TraceEventsSplicer;
using testing::TraceFixture;

// --- The splicer, on tricky inputs and with every chunk size --------------------------------

// Splices `text` fed in chunks of `chunk` bytes; the Error message when it fails.
std::string splice(const std::string& text, const std::string& insert, std::size_t chunk) {
  TraceEventsSplicer splicer(insert);
  std::string out;
  for (std::size_t at = 0; at < text.size(); at += chunk) {
    if (Status s = splicer.push(std::string_view(text).substr(at, chunk), out); !s) {
      return "error: " + s.error().message;
    }
  }
  if (Status s = splicer.finish(); !s) return "error: " + s.error().message;
  return out;
}

void expect_splice(const std::string& text, const std::string& expected) {
  for (std::size_t chunk = 1; chunk <= text.size(); ++chunk) {
    EXPECT_EQ(splice(text, "M", chunk), expected) << "chunk size " << chunk;
  }
}

TEST(AnnotateSplicer, InsertsFirstInTheTopLevelArrayWithAComma) {
  expect_splice(R"({"traceEvents":[{"a":1}]})", R"({"traceEvents":[M,{"a":1}]})");
  expect_splice(" {\n \"traceEvents\" :\n [ 1 ] }", " {\n \"traceEvents\" :\n [M ,1 ] }");
}

TEST(AnnotateSplicer, EmptyArrayTakesNoComma) {
  expect_splice(R"({"traceEvents":[]})", R"({"traceEvents":[M]})");
  expect_splice(R"({"traceEvents":[ ]})", R"({"traceEvents":[M ]})");
}

TEST(AnnotateSplicer, DecoysInStringsAndNestedObjectsAreNotTaken) {
  expect_splice(R"({"note":"\"traceEvents\":[","traceEvents":[1]})",
                R"({"note":"\"traceEvents\":[","traceEvents":[M,1]})");
  expect_splice(R"({"meta":{"traceEvents":[9]},"traceEvents":[1]})",
                R"({"meta":{"traceEvents":[9]},"traceEvents":[M,1]})");
  // The string "traceEvents" as a value, followed by an array under another key.
  expect_splice(R"({"a":"traceEvents","b":[2],"traceEvents":[1]})",
                R"({"a":"traceEvents","b":[2],"traceEvents":[M,1]})");
  // A string ending in an escaped backslash, then the real key.
  expect_splice(R"({"k":"a\\","traceEvents":[1]})", R"({"k":"a\\","traceEvents":[M,1]})");
  expect_splice(R"({"traceEventsX":[2],"xtraceEvents":[3],"traceEvents":[1]})",
                R"({"traceEventsX":[2],"xtraceEvents":[3],"traceEvents":[M,1]})");
}

TEST(AnnotateSplicer, MissingArrayIsAnError) {
  for (const std::string text : {R"({"a":1})", R"({"traceEvents":null})",
                                 R"({"meta":{"traceEvents":[1]}})", "", R"({"traceEvents":{}})"}) {
    EXPECT_NE(splice(text, "M", 3).find("no top-level \"traceEvents\" array"), std::string::npos)
        << text << " -> " << splice(text, "M", 3);
  }
  EXPECT_NE(splice(R"([{"ph":"X"}])", "M", 4).find("not a JSON object"), std::string::npos);
}

TEST(AnnotateSplicer, EmptyInsertLeavesTheTraceUnchanged) {
  const std::string text = R"({"traceEvents":[1,2]})";
  EXPECT_EQ(splice(text, "", 2), text);
}

// --- The annotated file ---------------------------------------------------------------------

class AnnotateFile : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("stepscope_annotate_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& content) const {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
};

// Steps of 1000 µs that wait `loader_us` for the DataLoader: an input-bound finding.
std::string input_bound_json(const std::string& loader_name) {
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0 + 0.125;
    fixture.step(10 + s, t0, 1000);
    fixture.op(loader_name, t0, 600);
    fixture.op("aten::mm", t0 + 600, 20);
    fixture.launched_kernel("ampere_sgemm_128x64_tn", t0 + 601, t0 + 610, 380);
  }
  return fixture.json();
}

constexpr const char* kLoader = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";

// A small loaded trace, for calls that fail before the trace is looked at.
const Trace& small_trace() {
  static const Trace trace = TraceFixture().op("aten::mm", 0, 10).load();
  return trace;
}

struct Annotated {
  Trace original;
  Diagnosis diagnosis;
  Trace annotated;
};

Annotated annotate_and_reload(const std::string& source, const std::string& out) {
  Annotated result;
  Result<Trace> original = load_trace_file(source);
  EXPECT_TRUE(original.ok()) << original.error().describe();
  result.original = std::move(original).value();
  result.diagnosis = diagnose(analyze_rank(result.original, {}));
  const Status written = write_annotated_trace(source, result.original, result.diagnosis, out);
  EXPECT_TRUE(written.ok()) << written.error().describe();
  Result<Trace> annotated = load_trace_file(out);
  EXPECT_TRUE(annotated.ok()) << annotated.error().describe();
  if (annotated.ok()) result.annotated = std::move(annotated).value();
  return result;
}

std::string gunzip(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  std::string out;
  char buffer[65536];
  int n = 0;
  while ((n = gzread(file, buffer, sizeof buffer)) > 0) out.append(buffer, n);
  gzclose(file);
  return out;
}

TEST_F(AnnotateFile, EveryOriginalEventSurvivesAndTheMarkersSitAtTheEvidence) {
  const std::string source = write("trace.json", input_bound_json(kLoader));
  const Annotated a = annotate_and_reload(source, path("out.json.gz"));
  const Finding* finding = testing::find_finding(a.diagnosis, "input-bound");
  ASSERT_NE(finding, nullptr);
  const std::int64_t pid = annotate::marker_pid(a.original);

  testing::expect_original_events_survive(a.original, a.annotated, pid);
  const std::size_t findings = a.diagnosis.findings.size();
  EXPECT_EQ(a.annotated.stats.instant_events, a.original.stats.instant_events + findings);
  EXPECT_EQ(a.annotated.stats.metadata_events, a.original.stats.metadata_events + 2 + 2 * findings);

  // One thread per finding on the marker process, named by position, severity and id.
  std::map<std::int64_t, std::string> marker_threads;
  for (const ThreadInfo& thread : a.annotated.threads) {
    if (thread.pid_number == pid) marker_threads[thread.tid_number] = thread.name;
  }
  ASSERT_EQ(marker_threads.size(), findings);
  for (std::size_t i = 0; i < findings; ++i) {
    const Finding& f = a.diagnosis.findings[i];
    EXPECT_EQ(marker_threads[static_cast<std::int64_t>(i + 1)],
              fmt::format("#{}. [{}] {}", i + 1, to_string(f.severity), f.id));
  }

  // A span per evidence event group, at the evidence's times, on its finding's thread.
  const auto spans = testing::marker_spans(a.annotated, pid);
  std::size_t expected_spans = 0;
  for (std::size_t i = 0; i < findings; ++i) {
    for (const Evidence& evidence : a.diagnosis.findings[i].evidence) {
      for (const EventRefs& refs : evidence.events) {
        if (refs.count <= 0) continue;
        ++expected_spans;
        const testing::MarkerSpan want{static_cast<std::int64_t>(i + 1),
                                       evidence.label + ": " + refs.name, refs.first_start_ns,
                                       refs.last_end_ns - refs.first_start_ns};
        EXPECT_NE(std::find(spans.begin(), spans.end(), want), spans.end()) << want.name;
      }
    }
  }
  EXPECT_EQ(spans.size(), expected_spans);
  // The input-bound span covers the four DataLoader waits, from the first start at 0.125 µs.
  const auto loader = std::find_if(spans.begin(), spans.end(), [](const testing::MarkerSpan& s) {
    return s.name.find(kLoader) != std::string::npos;
  });
  ASSERT_NE(loader, spans.end());
  EXPECT_EQ(loader->start_ns, 125);
  EXPECT_EQ(loader->dur_ns, 3'600'000);

  // The instant sits at the first evidence time, written in µs with exact decimals.
  const std::string text = gunzip(path("out.json.gz"));
  EXPECT_NE(text.find(R"("s":"p","ts":0.125)"), std::string::npos);
  EXPECT_EQ(files(), (std::vector<std::string>{"out.json.gz", "trace.json"}));
}

TEST_F(AnnotateFile, PlainOutputForANameWithoutGz) {
  const std::string source = write("trace.json", input_bound_json(kLoader));
  const Annotated a = annotate_and_reload(source, path("out.json"));
  std::ifstream in(path("out.json"), std::ios::binary);
  EXPECT_EQ(in.get(), '{');  // not the gzip magic
  testing::expect_original_events_survive(a.original, a.annotated,
                                          annotate::marker_pid(a.original));
}

TEST_F(AnnotateFile, GzipSourceIsReadThrough) {
  const std::string json = input_bound_json(kLoader);
  const std::string source = path("trace.json.gz");
  gzFile file = gzopen(source.c_str(), "wb");
  gzwrite(file, json.data(), static_cast<unsigned>(json.size()));
  gzclose(file);
  const Annotated a = annotate_and_reload(source, path("out.json.gz"));
  testing::expect_original_events_survive(a.original, a.annotated,
                                          annotate::marker_pid(a.original));
}

TEST_F(AnnotateFile, ScriptNamesStayEscaped) {
  // The trace spells the name with \u escapes, as a careful writer does; so must the markers.
  std::string json = input_bound_json("enumerate(DataLoader)#SCRIPTalert(1)ENDSCRIPT.__next__");
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"SCRIPT", R"(\u003cscript\u003e)"},
        {"END\\u003cscript\\u003e", R"(\u003c/script\u003e)"}}) {
    for (std::size_t at = json.find(from); at != std::string::npos; at = json.find(from, at)) {
      json.replace(at, from.size(), to);
      at += to.size();
    }
  }
  const std::string source = write("trace.json", json);
  const Annotated a = annotate_and_reload(source, path("out.json.gz"));
  ASSERT_NE(testing::find_finding(a.diagnosis, "input-bound"), nullptr);
  const auto spans = testing::marker_spans(a.annotated, annotate::marker_pid(a.original));
  ASSERT_TRUE(std::any_of(spans.begin(), spans.end(), [](const testing::MarkerSpan& s) {
    return s.name.find("<script>alert(1)</script>") != std::string::npos;
  }));
  const std::string text = gunzip(path("out.json.gz"));
  EXPECT_EQ(text.find("<script>"), std::string::npos);
  EXPECT_EQ(text.find("</script>"), std::string::npos);
  EXPECT_NE(text.find(R"(\u003cscript\u003ealert(1)\u003c/script\u003e)"), std::string::npos);
}

TEST_F(AnnotateFile, NoTraceEventsIsAnErrorNamingTheFileAndLeavesNothing) {
  const std::string source = write("trace.json", R"({"traceEventz":[],"meta":{"traceEvents":[]}})");
  const Status s = write_annotated_trace(source, small_trace(), Diagnosis{}, path("out.json.gz"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().file, source);
  EXPECT_NE(s.error().message.find("traceEvents"), std::string::npos);
  EXPECT_NE(s.error().describe().find(source), std::string::npos);
  EXPECT_EQ(files(), std::vector<std::string>{"trace.json"});
}

TEST_F(AnnotateFile, TruncatedGzipSourceLeavesNothing) {
  const std::string json = input_bound_json(kLoader);
  // A gzip stream cut in half: the reader fails mid-way, after some output was written.
  const std::string whole = path("whole.gz");
  gzFile file = gzopen(whole.c_str(), "wb");
  gzwrite(file, json.data(), static_cast<unsigned>(json.size()));
  gzclose(file);
  std::ifstream in(whole, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(whole);
  const std::string source = write("trace.json.gz", bytes.substr(0, bytes.size() / 2));
  const Status s = write_annotated_trace(source, small_trace(), Diagnosis{}, path("out.json.gz"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().file, source);
  EXPECT_EQ(files(), std::vector<std::string>{"trace.json.gz"});
}

TEST_F(AnnotateFile, MissingSourceAndUnwritableOutputNameTheirFiles) {
  const std::string missing = path("absent.json");
  Status s = write_annotated_trace(missing, small_trace(), Diagnosis{}, path("out.json"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().file, missing);

  const std::string source = write("trace.json", R"({"traceEvents":[]})");
  const std::string unwritable = path("no/such/folder/out.json.gz");
  s = write_annotated_trace(source, small_trace(), Diagnosis{}, unwritable);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().file, unwritable);
  EXPECT_EQ(files(), std::vector<std::string>{"trace.json"});
}

TEST(AnnotateMarkers, PidIsLargerThanAnyInTheTrace) {
  const Trace trace = TraceFixture()
                          .op("aten::mm", 0, 10)
                          .raw_event(R"({"ph":"X","cat":"cpu_op","name":"a","pid":"4242",)"
                                     R"("tid":"x","ts":1,"dur":1})")
                          .raw_event(R"({"ph":"X","cat":"cpu_op","name":"b","pid":"host",)"
                                     R"("tid":"y","ts":1,"dur":1})")
                          .load();
  EXPECT_EQ(annotate::marker_pid(trace), 4243);
}

}  // namespace
}  // namespace stepscope
