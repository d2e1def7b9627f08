// A parser for the common shape of a Kineto event, much cheaper than a general JSON parser: it
// reads the fields the importer needs in one pass and skips the rest with the SIMD bracket
// scanner. It accepts only what it is sure of: on anything unusual (an escape in a string it
// needs, a type it does not expect, a malformed number or structure) it declines, and the event
// goes through simdjson, which validates it and reports the error. Both parsers must produce the
// same RawEvent for every event this one accepts (a test and a fuzz target check it).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "importers/kineto/arg_keys.h"
#include "importers/kineto/key_order.h"
#include "importers/kineto/raw_event.h"

namespace stepscope::kineto {

// The key orders a reader learns from the events it parses (key_order.h): one per reading
// thread, kept from event to event. Without one, every key is scanned for. Events of different
// kinds interleave (a CPU op, a flow arrow, a runtime call, a kernel), each with its own order:
// an event's keys are remembered by its phase, its args' keys by its category, each in one of a
// few orders picked by a hash, so that one kind does not keep overwriting another's.
class LearnedKeyOrders {
 public:
  static constexpr std::size_t kOrders = 8;

  // For an event's keys, once its phase is known (0 before).
  KeyOrder<EventKey>* for_event(char phase) {
    return &event_[static_cast<unsigned char>(phase) % kOrders];
  }
  // For an event's args, once its category is known (empty when not).
  KeyOrder<ArgKey>* for_args(std::string_view category) {
    const std::size_t hash = category.empty() ? 0
                                              : category.size() * 31 +
                                                    static_cast<unsigned char>(category.front()) +
                                                    static_cast<unsigned char>(category.back());
    return &args_[hash % kOrders];
  }

 private:
  std::array<KeyOrder<EventKey>, kOrders> event_;
  std::array<KeyOrder<ArgKey>, kOrders> args_;
};

// `text` must stay readable for 64 bytes past `length`. False: parse it with simdjson instead.
// `ascii`: the caller found every byte below 0x80, so the UTF-8 check is skipped.
bool fast_parse_event(const char* text, std::size_t length, RawEvent& out, bool ascii = false,
                      LearnedKeyOrders* orders = nullptr);

// The same for an event whose end is not known yet: reads the object that starts at `text` (a
// '{') and answers its length, or 0 to decline. It also declines any byte above 0x7F, leaving
// the UTF-8 check to the other path. [text, end) is the rest of the input, and 64 bytes past
// `end` must be readable. For the events it accepts, the length is where a bracket scan would
// end the event and `out` is what fast_parse_event gives for that text.
std::size_t fast_parse_event_at(const char* text, const char* end, RawEvent& out,
                                LearnedKeyOrders* orders = nullptr);

}  // namespace stepscope::kineto
