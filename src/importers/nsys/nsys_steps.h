// Steps from NVTX ranges. stepscope's step finder takes host annotations named
// `ProfilerStep#N` (what torch.profiler.profile's step() records); an Nsight export holds
// whatever ranges the user pushed. When no range has that name, the ranges that mark steps by a
// common convention (`train_step`, `step`, Lightning's `run_training_batch`...), else the range
// name that repeats at the top level of the busiest thread and covers most of its span, are
// renamed `ProfilerStep#0`, `#1`, ... in time order; otherwise the step finder infers steps.
// Ranges named like data loading are renamed as the DataLoader spans the analyses look for.
#pragma once

#include <string>

#include "stepscope/trace.h"

namespace stepscope::nsys {

// Renames the step ranges of `trace` (events not yet in time order) and returns a note that
// says which ranges were taken as steps and why, or that none were; empty when the trace names
// its steps `ProfilerStep#N` already.
std::string mark_steps(Trace& trace);

// Renames host ranges named like data loading (`dataloader`, `load_batch`...) that are not
// DataLoader spans already to `enumerate(DataLoader)#nvtx(NAME).__next__`, the name the input
// analyses key on; returns a note naming them, empty when none.
std::string mark_data_loading(Trace& trace);

}  // namespace stepscope::nsys
