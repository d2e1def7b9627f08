// JSON strings unescaped by hand, where simdjson is not the reader (text kept raw, such as
// `Concrete Inputs`) or refuses what the importer forgives: a lone UTF-16 surrogate (`\ud800`
// without its pair), which some writers emit when they cut a name, becomes U+FFFD instead of
// rejecting the whole trace.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace stepscope::kineto {

// The JSON string whose opening quote is at `at`, unescaped and appended to `out`; `at` ends
// past its closing quote. False when the text is not a string (no closing quote, a bad
// escape). `replaced` counts lone surrogates replaced by U+FFFD.
bool unescape_json_string(std::string_view text, std::size_t& at, std::string& out,
                          std::size_t& replaced);

}  // namespace stepscope::kineto
