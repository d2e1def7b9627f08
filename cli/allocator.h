// The allocator settings of the stepscope process (a front-end choice: the library never changes
// its host process's allocator).
#pragma once

#include <string>

namespace stepscope::cli {

// glibc raises its mmap threshold each time a large block is freed (up to 32 MiB), so that once
// the first rank of a folder is dropped, the next ranks' columns are carved from the heap, where
// freed space is kept rather than handed back. Ranks analysed one after another then cost the
// peak of several ranks: an 8-rank job of 10 MiB ranks peaked at 34 MiB RSS with --jobs 1 and
// 58 MiB with --jobs 2, and at 26 and 40 MiB with a fixed 256 KiB threshold (bench/
// run_job_benchmark.py). A fixed threshold keeps large blocks in mmap, returned when freed.
// No-op off glibc.
void bound_allocator_caching();

// One trace file is the opposite case: its analyses allocate and free large temporaries over and
// over, and with the bounded setting each one is a fresh mapping whose every page faults in
// anew (on a 1 GB trace, 390,000 page faults, a quarter of the CPU time in the kernel). Freed
// blocks up to 32 MiB are then kept in the heap for the next analysis, and every thread shares
// one arena, so that what one thread frees the other reuses. Folders of several traces keep the
// bound and glibc's arenas; a folder of one trace is treated as that file.
void reuse_freed_memory_for(const std::string& input_path);

}  // namespace stepscope::cli
