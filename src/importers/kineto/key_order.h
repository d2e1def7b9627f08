// Writers put an object's keys in the same order event after event: Kineto writes "ph", "cat",
// "name", "pid", "tid", "ts", "dur", "args" for every event, and a CPU op's args in one order
// too. A KeyOrder remembers, position by position, the keys of the last objects a parser read,
// so that the parser can match the key it expects whole, quotes and colon included, with a few
// word compares, and scan for a closing quote only when the order changes. What it remembers
// changes only how a key is recognised, never what is accepted: a match covers exactly the bytes
// `"key":` (and a space the reader would skip), which the general path reads as that same key.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace stepscope::kineto {

// `"key":` as a writer puts it (with the space after it, if any), in at most 32 bytes, with the
// mask of the bytes it covers.
class QuotedKey {
 public:
  static constexpr std::size_t kMaxBytes = 32;
  static constexpr std::size_t kWords = kMaxBytes / 8;

  // An empty pattern, which matches nothing.
  QuotedKey() = default;

  // `"key":`, and the space after it when `space_after` (writers put one there as a rule; the
  // reader would skip it anyway). False, leaving the pattern empty, when the key is too long or
  // holds a byte that is not printable ASCII (the general path decides about those).
  bool assign(std::string_view key, bool space_after) {
    length_ = 0;
    const std::size_t length = key.size() + (space_after ? 4 : 3);
    if (length > kMaxBytes) return false;
    for (const char c : key) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20 || byte >= 0x80 || c == '"' || c == '\\') return false;
    }
    std::array<char, kMaxBytes> bytes{};
    std::array<unsigned char, kMaxBytes> covered{};
    bytes[0] = '"';
    std::memcpy(bytes.data() + 1, key.data(), key.size());
    bytes[key.size() + 1] = '"';
    bytes[key.size() + 2] = ':';
    if (space_after) bytes[key.size() + 3] = ' ';
    std::memset(covered.data(), 0xFF, length);
    std::memcpy(words_.data(), bytes.data(), kMaxBytes);
    std::memcpy(masks_.data(), covered.data(), kMaxBytes);
    length_ = length;
    return true;
  }

  // The pattern's length when `text` starts with it, else 0. `text` must have 32 readable bytes;
  // the caller checks that the match ends within its input.
  [[nodiscard]] std::size_t match(const char* text) const {
    // Word by word, stopping at the first that differs: most keys fit in the first two words,
    // and a position whose key changes usually differs in the first.
    for (std::size_t i = 0; i < kWords; ++i) {
      std::uint64_t word = 0;
      std::memcpy(&word, text + 8 * i, sizeof word);
      if (((word ^ words_[i]) & masks_[i]) != 0) return 0;
      if (length_ <= 8 * (i + 1)) return length_;
    }
    return length_;
  }

 private:
  std::array<std::uint64_t, kWords> words_{};
  std::array<std::uint64_t, kWords> masks_{};
  std::size_t length_ = 0;  // 0: empty, matches nothing
};

// The keys last seen at each position of one kind of object, with what each meant to the
// parser (`Meaning`: its classification of the key).
template <typename Meaning>
class KeyOrder {
 public:
  static constexpr std::size_t kPositions = 16;

  // The key remembered at `position` when `text` starts with it: its length, and `meaning`
  // set. 0 when nothing is remembered there or the text holds another key.
  [[nodiscard]] std::size_t match(std::size_t position, const char* text, Meaning& meaning) const {
    if (position >= kPositions) return 0;
    const Entry& entry = entries_[position];
    const std::size_t length = entry.key.match(text);
    if (length != 0) meaning = entry.meaning;
    return length;
  }

  // The key the general path read at `position` (unescaped), to expect it there next time;
  // `space_after`: a space followed its colon.
  void remember(std::size_t position, std::string_view key, Meaning meaning, bool space_after) {
    if (position >= kPositions) return;
    Entry& entry = entries_[position];
    if (entry.key.assign(key, space_after)) entry.meaning = meaning;
  }

 private:
  struct Entry {
    QuotedKey key;
    Meaning meaning{};
  };
  std::array<Entry, kPositions> entries_{};
};

}  // namespace stepscope::kineto
