#include "importers/kineto/arg_keys.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace stepscope::kineto {
namespace {

const std::vector<std::pair<std::string, ArgKey>>& known_keys() {
  static const std::vector<std::pair<std::string, ArgKey>> keys = {
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
  return keys;
}

TEST(ArgKeys, RecognisesEveryKeyTheImporterReads) {
  for (const auto& [text, key] : known_keys()) EXPECT_EQ(classify_arg_key(text), key) << text;
}

TEST(ArgKeys, KeysThatDifferByOneByteOrInLengthAreOther) {
  for (const auto& [text, key] : known_keys()) {
    std::string changed = text;
    for (std::size_t at : {std::size_t{0}, text.size() / 2, text.size() - 1}) {
      changed[at] = static_cast<char>(changed[at] ^ 0x01);
      EXPECT_EQ(classify_arg_key(changed), ArgKey::kOther) << changed;
      changed[at] = text[at];
    }
    EXPECT_EQ(classify_arg_key(text + " "), ArgKey::kOther) << text;
    EXPECT_EQ(classify_arg_key(text.substr(1)), ArgKey::kOther) << text;
  }
  for (const char* other : {"", "Trace name", "Call stack", "cbid", "Name", "NAME", "Stream"}) {
    EXPECT_EQ(classify_arg_key(other), ArgKey::kOther) << other;
  }
}

}  // namespace
}  // namespace stepscope::kineto
