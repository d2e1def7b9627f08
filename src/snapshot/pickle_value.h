// Values of the pickle machine. Plain data only: the machine never builds objects of classes.
// Containers under construction live in a table and are referred to by index, so that the
// snapshot builder can replace a finished container by a compact record (a frame, a stack, a
// trace entry) and hand its slot back.
#pragma once

#include <cstdint>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope::snapshot {

enum class Kind : std::uint8_t {
  kNone,
  kBool,
  kInt,
  kFloat,
  kString,  // payload: StringId in the snapshot's pool
  kBytes,   // contents skipped: snapshots carry none that stepscope reads
  kList,    // payload: container index
  kDict,
  kTuple,
  // Records the snapshot builder made out of finished containers (payload: record index).
  kFrame,
  kStack,
  kEntry,
  kBlock,
  kSegment,
};

struct Value {
  Kind kind = Kind::kNone;
  std::int64_t payload = 0;  // int, bool, string id, container or record index; float bits

  [[nodiscard]] bool is_container() const {
    return kind == Kind::kList || kind == Kind::kDict || kind == Kind::kTuple;
  }
  [[nodiscard]] double as_float() const;
  static Value of_float(double number);
};

// A list, tuple or dict (items alternate key, value).
struct Container {
  Kind kind = Kind::kList;
  std::vector<Value> items;
  std::int64_t memo = -1;    // memo slot that refers to it, to update when it is replaced
  bool shared_open = false;  // fetched from the memo while still open: never replaced
  bool finished = false;
};

}  // namespace stepscope::snapshot
