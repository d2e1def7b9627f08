// The `args` keys the importer reads, recognised by both event parsers.
#pragma once

#include <cstdint>
#include <string_view>

namespace stepscope::kineto {

enum class ArgKey : std::uint8_t {
  kOther,
  kCorrelation,
  kExternalId,
  kStream,
  kDevice,
  kInputDims,
  kInputTypes,
  kConcreteInputs,
  kBytes,
  kBlocksPerSm,
  kOccupancy,
  kWarpsPerSm,
  kGrid,
  kBlock,
  kRegisters,
  kSharedMemory,
  kCollectiveName,
  kDtype,
  kProcessGroupName,
  kInMsgNelems,
  kOutMsgNelems,
  kGroupSize,
  kSequenceNumber,
  kFlops,
  kAddress,
  kMemoryBytes,
  kTotalAllocated,
  kTotalReserved,
  kDeviceType,
  kDeviceId,
  kName,
};

// Dispatches on the key's length first: most args are not ours.
ArgKey classify_arg_key(std::string_view key);

}  // namespace stepscope::kineto
