// Writers put an object's keys in the same order event after event: Kineto writes "ph", "cat",
// "name", "pid", "tid", "ts", "dur", "args" for every event, and a CPU op's args in one order
// too, with the same spaces and line breaks each time. A KeyOrder remembers, position by
// position, the bytes the parser last read for each key: the whitespace before it, the quoted
// key, its colon and the space after it. The parser then matches the next object's key whole
// with a few word compares, and skips whitespace and scans for a closing quote only when the
// text differs. What it remembers changes only how a key is recognised, never what is accepted:
// a match covers exactly bytes the general path has read before as that same key.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace stepscope::kineto {

// The bytes of one key as a writer put them, in at most 32 bytes, with the mask of the bytes
// they cover.
class KeyBytes {
 public:
  static constexpr std::size_t kMaxBytes = 32;
  static constexpr std::size_t kWords = kMaxBytes / 8;

  // An empty pattern, which matches nothing.
  KeyBytes() = default;

  // `text`: what the general path read as whitespace, one key without escapes and its colon
  // (and a space after it). False, leaving the pattern empty, when it is too long or holds a
  // byte above 0x7F (the general path decides about those).
  bool assign(std::string_view text) {
    length_ = 0;
    if (text.empty() || text.size() > kMaxBytes) return false;
    for (const char c : text) {
      if (static_cast<unsigned char>(c) >= 0x80) return false;
    }
    std::array<char, kMaxBytes> bytes{};
    std::array<unsigned char, kMaxBytes> covered{};
    std::memcpy(bytes.data(), text.data(), text.size());
    std::memset(covered.data(), 0xFF, text.size());
    std::memcpy(words_.data(), bytes.data(), kMaxBytes);
    std::memcpy(masks_.data(), covered.data(), kMaxBytes);
    length_ = text.size();
    return true;
  }

  // The pattern's length when `text` starts with it, else 0. `text` must have 32 readable bytes;
  // the caller checks that the match ends within its input.
  [[nodiscard]] std::size_t match(const char* text) const {
    // Word by word, stopping at the first that differs: most keys fit in the first two words,
    // and a position whose key changed usually differs in the first.
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

// The keys last read at each position of one kind of object, with what each meant to the
// parser (`Meaning`: its classification of the key).
template <typename Meaning>
class KeyOrder {
 public:
  static constexpr std::size_t kPositions = 16;

  // The key remembered at `position` when `text` starts with its bytes: their length, and
  // `meaning` set. 0 when nothing is remembered there or the text differs.
  [[nodiscard]] std::size_t match(std::size_t position, const char* text, Meaning& meaning) const {
    if (position >= kPositions) return 0;
    const Entry& entry = entries_[position];
    const std::size_t length = entry.key.match(text);
    if (length != 0) meaning = entry.meaning;
    return length;
  }

  // The bytes the general path read for the key at `position` (see KeyBytes::assign), to expect
  // them there next time.
  void remember(std::size_t position, std::string_view text, Meaning meaning) {
    if (position >= kPositions) return;
    Entry& entry = entries_[position];
    if (entry.key.assign(text)) entry.meaning = meaning;
  }

 private:
  struct Entry {
    KeyBytes key;
    Meaning meaning{};
  };
  std::array<Entry, kPositions> entries_{};
};

}  // namespace stepscope::kineto
