// What the importer accepted rather than refused: an optional field of the wrong type (treated
// as absent, or parsed when it is a numeric string), an event without a usable phase, duplicate
// correlation ids, an event array without its closing ']'. One entry per kind, with how many
// events and where the first is (a byte offset in a JSON trace, a row id in a database), so that
// nothing is tolerated silently. Every reader keeps its notes here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stepscope {

class ImportNotes {
 public:
  // `position`: what a note's first position counts, as the note's line names it ("byte",
  // "row").
  explicit ImportNotes(std::string_view position = "byte") : position_(position) {}

  struct Note {
    std::string what;
    std::uint64_t events = 0;
    std::uint64_t first_byte_offset = 0;  // in the decompressed input, or the first row
  };

  // `events` more events for `what`, the first of them at `byte_offset`; the note is added
  // when new.
  void add(std::string_view what, std::uint64_t byte_offset, std::uint64_t events = 1) {
    for (Note& note : notes_) {
      if (note.what == what) {
        note.events += events;
        if (byte_offset < note.first_byte_offset) note.first_byte_offset = byte_offset;
        return;
      }
    }
    notes_.push_back({std::string(what), events, byte_offset});
  }
  [[nodiscard]] const std::vector<Note>& notes() const { return notes_; }
  // "FILE: WHAT (N events, the first at byte M)", the lines a TraceSet's notes hold.
  [[nodiscard]] std::vector<std::string> describe(const std::string& file) const {
    std::vector<std::string> lines;
    for (const Note& note : notes_) {
      lines.push_back(file + ": " + note.what + " (" + std::to_string(note.events) +
                      (note.events == 1 ? " event" : " events") + ", the first at " + position_ +
                      " " + std::to_string(note.first_byte_offset) + ")");
    }
    return lines;
  }

 private:
  std::vector<Note> notes_;
  std::string position_;
};

}  // namespace stepscope
