// json.h - writing JSON text by hand (metrics, plugin lists, traces): string escaping only.
#pragma once

#include <cstdio>
#include <string>

namespace ct::runtime {

/// Appends s as a JSON string literal: quotes, backslashes and control characters escaped.
inline void append_json_string(std::string& out, const char* s) {
  out += '"';
  for (; *s; ++s) {
    const unsigned char c = static_cast<unsigned char>(*s);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

}  // namespace ct::runtime
