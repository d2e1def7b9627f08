// Parses one event's JSON text (cut out by the EventSplitter) into a RawEvent with simdjson's
// On-Demand API: only the fields the importer needs are decoded, the rest are skipped.
#pragma once

#include <memory>

#include "importers/kineto/event_splitter.h"
#include "importers/kineto/raw_event.h"
#include "stepscope/error.h"

namespace stepscope::kineto {

class EventParser {
 public:
  // `fast_path`: try fast_event_parser.h first (tests turn it off to compare the two).
  explicit EventParser(bool fast_path = true);
  ~EventParser();
  EventParser(const EventParser&) = delete;
  EventParser& operator=(const EventParser&) = delete;

  // `text` must stay readable for 64 bytes past `slice.length` (EventBatch guarantees it).
  Status parse(const char* text, const EventSlice& slice, std::size_t capacity, RawEvent& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool fast_path_;
};

}  // namespace stepscope::kineto
