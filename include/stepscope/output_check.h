// Checks made before a command reads anything, so that writing its outputs can never destroy
// its inputs: an output that is an input (same device and inode, through any link or spelling,
// or a trace file inside an input folder) or two outputs naming one file are refused with
// ErrorKind::kBadOption.
#pragma once

#include <string>
#include <vector>

#include "stepscope/error.h"

namespace stepscope {

struct OutputPath {
  std::string option;  // how the user named it, e.g. "--json"; used in the message
  std::string path;    // empty: not requested (ignored); "-": standard output
};

Status check_output_paths(const std::vector<std::string>& inputs,
                          const std::vector<OutputPath>& outputs);

// Creates (and removes again) the temporary an output would be written through, so that an
// output that cannot be written is known before a long run, not after it. Devices and FIFOs
// are checked for write permission only: opening a FIFO would wait for its reader.
Status probe_output_path(const std::string& path);

}  // namespace stepscope
