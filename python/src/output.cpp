#include "output.h"

#include <nanobind/nanobind.h>
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
      "write_file",
      [](const std::string& path, const std::string& content,
         const std::vector<std::string>& inputs) {
        stepscope_python::write_output(inputs, path, content);
      },
      "path"_a, "content"_a, "inputs"_a = std::vector<std::string>(),
      "Write content to path through the library's atomic writer (temporary file renamed into "
      "place); refuses a path that is one of inputs. Raises a TraceError subclass on failure.");
}
