// Access to the real traces in ../shared/traces for conformance tests. They are never copied
// into the repository; when the folder is absent the tests say so and are skipped (a skip is
// reported as a skip, never as a pass).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "stepscope/load.h"

namespace stepscope::testing {

// The shared traces folder (STEPSCOPE_SHARED_TRACES overrides the build-time default).
std::string shared_traces_dir();
bool shared_traces_present();
// Loads `relative` (file or folder under shared/traces); fails the test if it does not load.
TraceSet load_shared(const std::string& relative);

}  // namespace stepscope::testing

#define STEPSCOPE_REQUIRE_SHARED_TRACES()                                                      \
  do {                                                                                         \
    if (!::stepscope::testing::shared_traces_present()) {                                      \
      GTEST_SKIP() << "the shared traces folder " << ::stepscope::testing::shared_traces_dir() \
                   << " is absent (set STEPSCOPE_SHARED_TRACES to where it is): conformance "  \
                   << "checks did not run";                                                    \
    }                                                                                          \
  } while (false)
