// utf8.h - UTF-8 validation for text that arrives from outside: file headers, names in files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ct {

/// The length of the valid UTF-8 sequence of the non-ASCII lead byte p[0] (n bytes left), or 0
/// when it is not one: overlong forms, surrogates and code points past U+10FFFF are invalid.
size_t utf8_sequence_length(const uint8_t* p, size_t n);

/// Whether s is valid UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF).
bool valid_utf8(std::string_view s);

}  // namespace ct
