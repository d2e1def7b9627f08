#include "output.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "errors.h"
#include "stepscope/output_check.h"
#include "stepscope/report.h"

namespace nb = nanobind;

namespace stepscope_python {

void write_output(const std::vector<std::string>& inputs, const std::string& path,
                  const std::string& content) {
  if (path.empty()) raise_bad_option("the output path is empty");
  nb::gil_scoped_release release;
  ok_or_raise(stepscope::check_output_paths(inputs, {{"path", path}}));
  ok_or_raise(stepscope::write_output_file(path, content));
}

}  // namespace stepscope_python

void bind_output(nb::module_& m) {
  using namespace nb::literals;
  m.def(
      "check_outputs",
      [](const std::vector<std::string>& inputs,
         const std::vector<std::pair<std::string, std::string>>& outputs) {
        std::vector<stepscope::OutputPath> paths;
        paths.reserve(outputs.size());
        for (const auto& [option, path] : outputs) paths.push_back({option, path});
        nb::gil_scoped_release release;
        stepscope_python::ok_or_raise(stepscope::check_output_paths(inputs, paths));
        for (const stepscope::OutputPath& output : paths) {
          stepscope_python::ok_or_raise(stepscope::probe_output_path(output.path));
        }
      },
      "inputs"_a, "outputs"_a,
      "The command line's checks before any work: no output is an input or shares a file with "
      "another, and each can be written (a temporary is created beside it and removed). Raises "
      "a TraceError subclass naming the output.");
  m.def(
      "write_file",
      [](const std::string& path, const std::string& content,
         const std::vector<std::string>& inputs) {
        stepscope_python::write_output(inputs, path, content);
      },
      "path"_a, "content"_a, "inputs"_a = std::vector<std::string>(),
      "Write content to path through the library's atomic writer (temporary file renamed into "
      "place); refuses a path that is one of inputs. Raises a TraceError subclass on failure.");
}
