// Every file Python writes goes through the library's atomic writer (temporary file renamed into
// place; devices and FIFOs written through; a symlink kept and its target replaced), after the
// same check as the CLI's: an output that is one of the inputs is refused.
#pragma once

#include <string>
#include <vector>

namespace stepscope_python {

// Raises TraceIOError (or BadOptionError for an output naming an input) on failure.
void write_output(const std::vector<std::string>& inputs, const std::string& path,
                  const std::string& content);

}  // namespace stepscope_python
