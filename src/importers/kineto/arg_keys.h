// The keys the importer reads, an event's own and those of its `args`, recognised by both event
// parsers.
#pragma once

#include <cstdint>
#include <string_view>

namespace stepscope::kineto {

// The event's own keys the importer reads; any other is skipped.
enum class EventKey : std::uint8_t {
  kOther,
  kPhase,
  kCategory,
  kName,
  kPid,
  kTid,
  kTs,
  kDur,
  kArgs,
  kId,
};

inline EventKey classify_event_key(std::string_view key) {
  switch (key.size()) {
    case 2:
      if (key == "ph") return EventKey::kPhase;
      if (key == "ts") return EventKey::kTs;
      if (key == "id") return EventKey::kId;
      break;
    case 3:
      if (key == "cat") return EventKey::kCategory;
      if (key == "dur") return EventKey::kDur;
      if (key == "pid") return EventKey::kPid;
      if (key == "tid") return EventKey::kTid;
      break;
    case 4:
      if (key == "name") return EventKey::kName;
      if (key == "args") return EventKey::kArgs;
      break;
    default:
      break;
  }
  return EventKey::kOther;
}

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

// Dispatches on the key's length first: most args are not ours, and a key is compared with the
// literals of its length only, which the compiler compares word by word rather than through
// memcmp. Inline, as the fast parser calls it for every arg of every event.
inline ArgKey classify_arg_key(std::string_view key) {
  switch (key.size()) {
    case 4:
      if (key == "grid") return ArgKey::kGrid;
      if (key == "Addr") return ArgKey::kAddress;
      if (key == "name") return ArgKey::kName;
      break;
    case 5:
      if (key == "bytes") return ArgKey::kBytes;
      if (key == "block") return ArgKey::kBlock;
      if (key == "dtype") return ArgKey::kDtype;
      if (key == "flops") return ArgKey::kFlops;
      if (key == "Bytes") return ArgKey::kMemoryBytes;
      break;
    case 6:
      if (key == "stream") return ArgKey::kStream;
      if (key == "device") return ArgKey::kDevice;
      break;
    case 9:
      if (key == "Device Id") return ArgKey::kDeviceId;
      break;
    case 10:
      if (key == "Input Dims") return ArgKey::kInputDims;
      if (key == "Input type") return ArgKey::kInputTypes;
      if (key == "Group size") return ArgKey::kGroupSize;
      break;
    case 11:
      if (key == "External id" || key == "external id") return ArgKey::kExternalId;
      if (key == "correlation") return ArgKey::kCorrelation;
      if (key == "Device Type") return ArgKey::kDeviceType;
      break;
    case 12:
      if (key == "warps per SM") return ArgKey::kWarpsPerSm;
      break;
    case 13:
      if (key == "blocks per SM") return ArgKey::kBlocksPerSm;
      if (key == "shared memory") return ArgKey::kSharedMemory;
      if (key == "In msg nelems") return ArgKey::kInMsgNelems;
      break;
    case 14:
      if (key == "Out msg nelems") return ArgKey::kOutMsgNelems;
      if (key == "Total Reserved") return ArgKey::kTotalReserved;
      break;
    case 15:
      if (key == "Concrete Inputs") return ArgKey::kConcreteInputs;
      if (key == "Collective name") return ArgKey::kCollectiveName;
      if (key == "Sequence number") return ArgKey::kSequenceNumber;
      if (key == "Total Allocated") return ArgKey::kTotalAllocated;
      break;
    case 18:
      if (key == "Process Group Name") return ArgKey::kProcessGroupName;
      break;
    case 20:
      if (key == "registers per thread") return ArgKey::kRegisters;
      break;
    case 25:
      if (key == "est. achieved occupancy %") return ArgKey::kOccupancy;
      break;
    default:
      break;
  }
  return ArgKey::kOther;
}

}  // namespace stepscope::kineto
