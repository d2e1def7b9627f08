#include "importers/kineto/arg_keys.h"

#include <iterator>

namespace stepscope::kineto {

ArgKey classify_arg_key(std::string_view key) {
  struct Entry {
    std::string_view text;
    ArgKey key;
  };
  static constexpr Entry kEntries[] = {
      {"correlation", ArgKey::kCorrelation},
      {"External id", ArgKey::kExternalId},
      {"external id", ArgKey::kExternalId},
      {"stream", ArgKey::kStream},
      {"device", ArgKey::kDevice},
      {"Input Dims", ArgKey::kInputDims},
      {"Input type", ArgKey::kInputTypes},
      {"Concrete Inputs", ArgKey::kConcreteInputs},
      {"bytes", ArgKey::kBytes},
      {"blocks per SM", ArgKey::kBlocksPerSm},
      {"est. achieved occupancy %", ArgKey::kOccupancy},
      {"warps per SM", ArgKey::kWarpsPerSm},
      {"grid", ArgKey::kGrid},
      {"block", ArgKey::kBlock},
      {"registers per thread", ArgKey::kRegisters},
      {"shared memory", ArgKey::kSharedMemory},
      {"Collective name", ArgKey::kCollectiveName},
      {"dtype", ArgKey::kDtype},
      {"Process Group Name", ArgKey::kProcessGroupName},
      {"In msg nelems", ArgKey::kInMsgNelems},
      {"Out msg nelems", ArgKey::kOutMsgNelems},
      {"Group size", ArgKey::kGroupSize},
      {"Sequence number", ArgKey::kSequenceNumber},
      {"flops", ArgKey::kFlops},
      {"Addr", ArgKey::kAddress},
      {"Bytes", ArgKey::kMemoryBytes},
      {"Total Allocated", ArgKey::kTotalAllocated},
      {"Total Reserved", ArgKey::kTotalReserved},
      {"Device Type", ArgKey::kDeviceType},
      {"Device Id", ArgKey::kDeviceId},
      {"name", ArgKey::kName},
  };
  static constexpr std::size_t kLongest = 25;
  // Entries grouped by length, computed once at compile time: a key is compared with the one
  // to three entries of its length instead of all of them (this runs for every arg of every
  // event).
  struct ByLength {
    std::uint8_t index[std::size(kEntries)] = {};
    std::uint8_t begin[kLongest + 2] = {};
  };
  static constexpr ByLength kByLength = [] {
    ByLength table;
    std::uint8_t next = 0;
    for (std::size_t length = 0; length <= kLongest; ++length) {
      table.begin[length] = next;
      for (std::size_t i = 0; i < std::size(kEntries); ++i) {
        if (kEntries[i].text.size() == length) table.index[next++] = static_cast<std::uint8_t>(i);
      }
    }
    table.begin[kLongest + 1] = next;
    return table;
  }();
  if (key.size() > kLongest) return ArgKey::kOther;
  for (std::uint8_t at = kByLength.begin[key.size()]; at < kByLength.begin[key.size() + 1]; ++at) {
    const Entry& entry = kEntries[kByLength.index[at]];
    // Most keys are not ones the importer keeps: the end bytes reject them without a compare.
    if (entry.text.front() == key.front() && entry.text.back() == key.back() && entry.text == key)
      return entry.key;
  }
  return ArgKey::kOther;
}

}  // namespace stepscope::kineto
