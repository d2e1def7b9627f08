#include "importers/kineto/arg_keys.h"

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
  if (key.size() > kLongest) return ArgKey::kOther;
  for (const Entry& entry : kEntries) {
    if (entry.text.size() == key.size() && entry.text[0] == key[0] && entry.text == key) {
      return entry.key;
    }
  }
  return ArgKey::kOther;
}

}  // namespace stepscope::kineto
