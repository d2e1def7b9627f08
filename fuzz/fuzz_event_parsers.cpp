// libFuzzer target: whatever the fast event parser accepts, simdjson must accept too, with the
// same fields (the fast path may only decline, never disagree); read where it lies, the fast
// parser must agree with itself reading the event measured; and key orders learned from
// earlier events must not change what it reads.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "importers/kineto/container_scanner.h"
#include "importers/kineto/decimal.h"
#include "importers/kineto/event_parser.h"
#include "importers/kineto/fast_event_parser.h"

namespace {

// A time the fast parser converted must be what the builder makes of the literal.
bool same_time(const stepscope::kineto::RawEvent::Time& time, std::string_view literal) {
  return !time.converted || (time.ns == stepscope::kineto::microseconds_literal_to_ns(literal) &&
                             time.fractional == !stepscope::kineto::is_integer_literal(literal));
}

bool same(const stepscope::kineto::RawEvent& a, const stepscope::kineto::RawEvent& b) {
  return same_time(a.ts, b.ts_literal) && same_time(a.dur, b.dur_literal) && a.phase == b.phase &&
         a.name == b.name && a.category == b.category && a.ts_literal == b.ts_literal &&
         a.dur_literal == b.dur_literal && a.pid.text == b.pid.text && a.tid.text == b.tid.text &&
         a.flow_id == b.flow_id && a.stream == b.stream && a.device == b.device &&
         a.correlation == b.correlation && a.external_id == b.external_id &&
         a.input_dims == b.input_dims && a.input_types == b.input_types &&
         a.metadata_name == b.metadata_name && a.memory.address == b.memory.address &&
         a.memory.bytes == b.memory.bytes && a.numeric_args.bytes == b.numeric_args.bytes &&
         a.numeric_args.sequence_number == b.numeric_args.sequence_number &&
         a.numeric_args.flops == b.numeric_args.flops &&
         a.numeric_args.grid[0] == b.numeric_args.grid[0] &&
         a.tolerated_count == b.tolerated_count;  // the fast path accepts no tolerated field
}

// Read where it lies, with the rest of the input after it, the fast parser must end the event
// where the bracket scan does and read what it reads from the measured text.
void check_reading_at(const std::vector<char>& buffer, std::size_t size) {
  stepscope::kineto::RawEvent at;
  const std::size_t length =
      stepscope::kineto::fast_parse_event_at(buffer.data(), buffer.data() + size, at);
  if (length == 0) return;
  stepscope::kineto::RawEvent measured;
  if (length != stepscope::kineto::find_container_end(buffer.data(), size) ||
      !stepscope::kineto::fast_parse_event(buffer.data(), length, measured) ||
      !same(at, measured)) {
    std::fprintf(stderr, "reading at an event disagrees with reading it measured\n");
    std::abort();
  }
}

// Orders learned from a typical event and from the input itself, then the input read with them:
// the same acceptance and fields as without them, both where it lies and measured.
void check_learned_orders(const std::vector<char>& buffer, std::size_t size) {
  static constexpr char kTeacher[] =
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 10, "dur": 5, "args": {"External id": 3, "Input Dims": [[2, 3]], "Input type": ["float"], "correlation": 4}})"
      "                                                                ";
  stepscope::kineto::LearnedKeyOrders orders;
  stepscope::kineto::RawEvent ignored;
  (void)stepscope::kineto::fast_parse_event(kTeacher, sizeof kTeacher - 1 - 64, ignored, false,
                                            &orders);
  (void)stepscope::kineto::fast_parse_event(buffer.data(), size, ignored, false, &orders);
  stepscope::kineto::RawEvent learned;
  stepscope::kineto::RawEvent plain;
  const bool learned_ok =
      stepscope::kineto::fast_parse_event(buffer.data(), size, learned, false, &orders);
  const bool plain_ok = stepscope::kineto::fast_parse_event(buffer.data(), size, plain);
  const char* end = buffer.data() + size;
  stepscope::kineto::RawEvent learned_there;
  stepscope::kineto::RawEvent plain_there;
  const std::size_t learned_at =
      stepscope::kineto::fast_parse_event_at(buffer.data(), end, learned_there, &orders);
  const std::size_t plain_at =
      stepscope::kineto::fast_parse_event_at(buffer.data(), end, plain_there);
  if (learned_ok != plain_ok || learned_at != plain_at || !same(learned, plain) ||
      !same(learned_there, plain_there)) {
    std::fprintf(stderr, "learned key orders changed what the fast parser reads\n");
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || data[0] != '{' || size > (1U << 20)) return 0;
  std::vector<char> buffer(size + 64, ' ');
  std::memcpy(buffer.data(), data, size);
  check_reading_at(buffer, size);
  check_learned_orders(buffer, size);
  stepscope::kineto::RawEvent fast;
  if (!stepscope::kineto::fast_parse_event(buffer.data(), size, fast)) return 0;
  stepscope::kineto::EventParser slow_parser(false);
  stepscope::kineto::RawEvent slow;
  const stepscope::kineto::EventSlice slice{0, static_cast<std::uint32_t>(size), 0};
  if (!slow_parser.parse(buffer.data(), slice, buffer.size(), slow).ok() || !same(fast, slow)) {
    std::fprintf(stderr, "fast and simdjson parsers disagree\n");
    std::abort();
  }
  return 0;
}
