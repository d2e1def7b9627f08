#include "errors.h"

#include <nanobind/stl/string.h>

#include <array>
#include <cstddef>
#include <exception>
#include <string>

namespace nb = nanobind;

namespace stepscope_python {

namespace {

struct KindClass {
  stepscope::ErrorKind kind;
  const char* name;
  const char* doc;
};

// Indexed by ErrorKind's value.
constexpr std::array<KindClass, 6> kKindClasses{{
    {stepscope::ErrorKind::kIo, "TraceIOError",
     "A file or folder could not be opened, read or written (an OSError too)."},
    {stepscope::ErrorKind::kNotJson, "NotJsonError",
     "The bytes are not valid, complete JSON, gzip or pickle."},
    {stepscope::ErrorKind::kNotTrace, "NotTraceError",
     "Well-formed, but not a trace, snapshot or timeline stepscope can read."},
    {stepscope::ErrorKind::kLimitExceeded, "LimitExceededError",
     "A size, depth or memory limit was reached."},
    {stepscope::ErrorKind::kUnsupported, "UnsupportedError",
     "A valid input using a feature stepscope does not support."},
    {stepscope::ErrorKind::kBadOption, "BadOptionError",
     "The request itself is wrong: an option, a path, steps that select nothing."},
}};

// The exception classes, created once at import and kept for the life of the process (as
// nanobind keeps the classes of nb::exception); never changed after.
struct ErrorClasses {
  nb::handle base;
  std::array<nb::handle, kKindClasses.size()> by_kind;
};

nb::handle new_exception(const std::string& module, const char* name, const char* doc,
                         nb::handle bases) {
  const std::string qualified = module + "." + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (type == nullptr) throw nb::python_error();
  return type;  // a new reference, owned by ErrorClasses for good
}

// Raises the class of the error's kind with the describe() message; the instance carries the
// parts too (kind, file, byte_offset) for callers that want them without parsing the message.
void raise_python(const ErrorClasses& classes, const stepscope::Error& error) {
  const auto index = static_cast<std::size_t>(error.kind);
  const nb::handle type = index < classes.by_kind.size() ? classes.by_kind[index] : classes.base;
  nb::object instance = type(error.describe());
  instance.attr("kind") = stepscope::to_string(error.kind);
  instance.attr("file") = error.file;
  instance.attr("byte_offset") = error.byte_offset ? nb::cast(*error.byte_offset) : nb::none();
  PyErr_SetObject(type.ptr(), instance.ptr());
}

void translate(const std::exception_ptr& thrown, void* payload) {
  try {
    std::rethrow_exception(thrown);
  } catch (const TraceFailure& failure) {
    raise_python(*static_cast<const ErrorClasses*>(payload), failure.error());
  }
}

}  // namespace

void bind_errors(nb::module_& m) {
  const std::string module = nb::cast<std::string>(m.attr("__name__"));
  auto* classes = new ErrorClasses();  // NOLINT(cppcoreguidelines-owning-memory): see above
  classes->base =
      new_exception(module, "TraceError",
                    "Input stepscope cannot read; the message names the file and, where known, "
                    "the byte offset (\"FILE: at byte N: MESSAGE\").",
                    PyExc_ValueError);
  m.attr("TraceError") = classes->base;
  for (std::size_t i = 0; i < kKindClasses.size(); ++i) {
    const KindClass& kind = kKindClasses[i];
    nb::object bases = kind.kind == stepscope::ErrorKind::kIo
                           ? nb::object(nb::make_tuple(classes->base, nb::handle(PyExc_OSError)))
                           : nb::object(nb::make_tuple(classes->base));
    classes->by_kind[i] = new_exception(module, kind.name, kind.doc, bases);
    m.attr(kind.name) = classes->by_kind[i];
  }
  nb::register_exception_translator(translate, classes);
}

}  // namespace stepscope_python
