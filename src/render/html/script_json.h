// JSON inside an HTML <script type="application/json"> element. The HTML parser ends the element
// at the first `</script`, whatever the JSON means, so trace text must never hold a raw `<`;
// `>` and `&` are escaped as well (`<!--` and `-->` games), and U+2028/U+2029 because older
// JavaScript parsers take them for line ends.
#pragma once

#include <string>
#include <string_view>

namespace stepscope::render::html {

// Appends `text` as a quoted JSON string in which <, >, &, U+2028 and U+2029 are \u escapes,
// control characters are escaped, and invalid UTF-8 becomes U+FFFD.
void append_script_json_string(std::string& out, std::string_view text);

}  // namespace stepscope::render::html
