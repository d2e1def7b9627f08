#include "importers/kineto/arg_keys.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace stepscope::kineto {
namespace {

// What the classifier must answer: the key of the spelling equal to `text`, else kOther.
template <typename Key>
Key linear_lookup(std::span<const KeySpelling<Key>> spellings, std::string_view text) {
  for (const KeySpelling<Key>& spelling : spellings) {
    if (spelling.text == text) return spelling.key;
  }
  return Key::kOther;
}

// The spellings with each byte changed, a byte added or removed, cut short: keys near ours.
std::vector<std::string> near_misses(std::string_view spelling) {
  std::vector<std::string> keys;
  const std::string text(spelling);
  for (std::size_t at = 0; at < text.size(); ++at) {
    for (const char flip : {0x01, 0x20, 0x40}) {
      std::string changed = text;
      changed[at] = static_cast<char>(changed[at] ^ flip);
      keys.push_back(changed);
    }
    keys.push_back(text.substr(0, at));
    keys.push_back(text.substr(at + 1));
  }
  keys.push_back(text + " ");
  keys.push_back(" " + text);
  keys.push_back(text + text);
  return keys;
}

template <typename Key, typename Classify>
void expect_classifies_like_the_table(std::span<const KeySpelling<Key>> spellings,
                                      Classify classify) {
  for (const KeySpelling<Key>& spelling : spellings) {
    EXPECT_EQ(classify(spelling.text), spelling.key) << spelling.text;
    for (const std::string& key : near_misses(spelling.text)) {
      EXPECT_EQ(classify(key), linear_lookup(spellings, key)) << '"' << key << '"';
    }
  }
  for (const char* other : {"", "x", "Trace name", "Call stack", "cbid", "Name", "NAME", "Stream",
                            "0123456789012345678901234567890123456789"}) {
    EXPECT_EQ(classify(other), Key::kOther) << other;
  }
  // Random keys of the spellings' own bytes and lengths, most of them with a spelling's length,
  // first and last byte, so that they land on a candidate's slot.
  std::mt19937 random(5);
  for (int round = 0; round < 20000; ++round) {
    std::string key(spellings[random() % spellings.size()].text);
    const std::string_view donor = spellings[random() % spellings.size()].text;
    for (std::size_t at = 1; at + 1 < key.size(); ++at) {
      if (random() % 4 == 0) key[at] = donor[random() % donor.size()];
    }
    EXPECT_EQ(classify(key), linear_lookup(spellings, key)) << '"' << key << '"';
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(ArgKeys, ClassifiesEverySpellingAndNothingElse) {
  expect_classifies_like_the_table(arg_key_spellings(), classify_arg_key);
  expect_classifies_like_the_table(event_key_spellings(), classify_event_key);
}

// A few spellings as Kineto writes them, checked against the table rather than taken from it.
TEST(ArgKeys, RecognisesKinetosSpellings) {
  EXPECT_EQ(classify_arg_key("External id"), ArgKey::kExternalId);
  EXPECT_EQ(classify_arg_key("external id"), ArgKey::kExternalId);
  EXPECT_EQ(classify_arg_key("est. achieved occupancy %"), ArgKey::kOccupancy);
  EXPECT_EQ(classify_arg_key("registers per thread"), ArgKey::kRegisters);
  EXPECT_EQ(classify_arg_key("Bytes"), ArgKey::kMemoryBytes);
  EXPECT_EQ(classify_arg_key("bytes"), ArgKey::kBytes);
  EXPECT_EQ(classify_event_key("ph"), EventKey::kPhase);
  EXPECT_EQ(classify_event_key("args"), EventKey::kArgs);
  EXPECT_EQ(classify_event_key("id"), EventKey::kId);
}

// Every key has a spelling, and no spelling is given twice.
TEST(ArgKeys, EveryKeyIsSpelledAndEverySpellingOnce) {
  std::set<std::string_view> texts;
  std::set<int> arg_keys;
  for (const auto& spelling : arg_key_spellings()) {
    EXPECT_TRUE(texts.insert(spelling.text).second) << spelling.text;
    arg_keys.insert(static_cast<int>(spelling.key));
  }
  EXPECT_EQ(arg_keys.size(), static_cast<std::size_t>(ArgKey::kName));  // the last enumerator
  EXPECT_EQ(arg_keys.count(static_cast<int>(ArgKey::kOther)), 0U);
  texts.clear();
  std::set<int> event_keys;
  for (const auto& spelling : event_key_spellings()) {
    EXPECT_TRUE(texts.insert(spelling.text).second) << spelling.text;
    event_keys.insert(static_cast<int>(spelling.key));
  }
  EXPECT_EQ(event_keys.size(), static_cast<std::size_t>(EventKey::kId));
  EXPECT_EQ(event_keys.count(static_cast<int>(EventKey::kOther)), 0U);
}

// Records what the dispatch hands over: the field's name, whether the destination lies in the
// event, and which kind it was.
struct Recorder {
  explicit Recorder(const RawEvent& recorded) : event(&recorded) {}

  const RawEvent* event;
  std::string field;
  bool inside = false;
  bool skip = false;

  template <typename Kind, typename Destination>
  bool operator()(Kind /*kind*/, Destination&& destination, const char* name) {
    field = name;
    skip = std::is_same_v<Kind, value_kind::Skip>;
    if constexpr (std::is_same_v<std::decay_t<Destination>, TimeSlot>) {
      inside = lies_in_event(&destination.literal) && lies_in_event(&destination.present) &&
               lies_in_event(&destination.time);
    } else {
      inside = lies_in_event(&destination);
    }
    return true;
  }
  [[nodiscard]] bool lies_in_event(const void* address) const {
    const auto* byte = static_cast<const char*>(address);
    const auto* begin = reinterpret_cast<const char*>(event);
    return byte >= begin && byte < begin + sizeof(RawEvent);
  }
};

TEST(ArgKeys, StoringNamesTheFieldAndMarksEventArgs) {
  for (const auto& spelling : arg_key_spellings()) {
    RawEvent event;
    Recorder recorder(event);
    EXPECT_TRUE(store_arg_value(spelling.key, event, recorder));
    EXPECT_TRUE(recorder.inside) << spelling.text;
    EXPECT_FALSE(recorder.skip) << spelling.text;
    // The first spelling names the field, for both of External id's.
    EXPECT_EQ(
        recorder.field,
        "args." + std::string(spelling.key == ArgKey::kExternalId ? "External id" : spelling.text))
        << spelling.text;
  }
  for (const ArgKey key : {ArgKey::kInputDims, ArgKey::kGrid, ArgKey::kDtype, ArgKey::kFlops}) {
    RawEvent event;
    Recorder recorder(event);
    store_arg_value(key, event, recorder);
    EXPECT_TRUE(event.has_event_args) << recorder.field;
  }
  for (const ArgKey key :
       {ArgKey::kCorrelation, ArgKey::kStream, ArgKey::kAddress, ArgKey::kName, ArgKey::kOther}) {
    RawEvent event;
    Recorder recorder(event);
    store_arg_value(key, event, recorder);
    EXPECT_FALSE(event.has_event_args) << recorder.field;
  }
  RawEvent event;
  Recorder recorder(event);
  store_arg_value(ArgKey::kOther, event, recorder);
  EXPECT_TRUE(recorder.skip);
  for (const auto& spelling : event_key_spellings()) {
    store_event_value(spelling.key, event, recorder);
    EXPECT_EQ(recorder.field, spelling.text);
    EXPECT_TRUE(recorder.inside) << spelling.text;
    EXPECT_FALSE(recorder.skip) << spelling.text;
  }
  store_event_value(EventKey::kOther, event, recorder);
  EXPECT_TRUE(recorder.skip);
}

// The fuzzer's dictionary offers every key the parsers recognise, quoted.
TEST(ArgKeys, TheFuzzDictionaryHoldsEveryKey) {
  std::ifstream file(std::string(STEPSCOPE_TEST_DATA) + "/../../fuzz/kineto.dict");
  ASSERT_TRUE(file.good());
  std::stringstream text;
  text << file.rdbuf();
  const std::string dictionary = text.str();
  // A line of its own: "\"name\"" is not found inside "\"process_name\"".
  const auto quoted = [](std::string_view key) {
    return "\n\"\\\"" + std::string(key) + "\\\"\"\n";
  };
  for (const auto& spelling : arg_key_spellings()) {
    EXPECT_NE(dictionary.find(quoted(spelling.text)), std::string::npos) << spelling.text;
  }
  for (const auto& spelling : event_key_spellings()) {
    EXPECT_NE(dictionary.find(quoted(spelling.text)), std::string::npos) << spelling.text;
  }
}

}  // namespace
}  // namespace stepscope::kineto
