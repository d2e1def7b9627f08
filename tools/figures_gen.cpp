// Writes the documents derived from the figure descriptions:
//   stepscope_figures_gen markdown | python   print one to standard output
//   stepscope_figures_gen --write ROOT         update ROOT/docs/json-schema.md and
//                                              ROOT/python/stepscope/_figures.py
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "stepscope/figures/schema.h"
#include "stepscope/report.h"

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "stepscope_figures_gen: error: %s\n", message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace stepscope;
  const std::string command = argc > 1 ? argv[1] : "";
  if (command == "markdown" || command == "python") {
    const std::string text =
        command == "markdown" ? figures::render_schema_markdown() : figures::render_python_types();
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  if (command != "--write" || argc != 3) {
    return fail("usage: stepscope_figures_gen markdown | python | --write ROOT");
  }
  const std::string root = argv[2];
  const std::string doc_path = root + "/docs/json-schema.md";
  std::ifstream in(doc_path, std::ios::binary);
  if (!in) return fail("cannot read " + doc_path);
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string updated =
      figures::replace_generated_section(doc.str(), figures::render_schema_markdown());
  if (Status s = write_output_file(doc_path, updated); !s) return fail(s.error().message);
  const std::string py_path = root + "/python/stepscope/_figures.py";
  if (Status s = write_output_file(py_path, figures::render_python_types()); !s) {
    return fail(s.error().message);
  }
  return 0;
}
