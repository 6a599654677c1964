// json_reader.h - a strict JSON reader driven by the caller's schema (RFC 8259; UTF-8 validated;
// every failure a CT_ERROR_FORMAT naming the byte offset and what to do). The safetensors header
// and the structure of a PyTorch file (io/torch_file.h) are read with it; neither builds a tree
// first, so nesting is bounded by the caller.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/error.h"
#include "core/utf8.h"

namespace ct::io {

inline bool is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// A cursor over n bytes of JSON text. pos() counts from p; messages add file_offset, so that
/// offsets are the file's when the text is part of one.
class JsonReader {
 public:
  /// allow_nul: strings may hold U+0000 (as \u0000); the safetensors header refuses it in names.
  JsonReader(const uint8_t* p, size_t n, const std::string& context, size_t file_offset, const char* fix,
             bool allow_nul = false)
      : p_(p), n_(n), context_(context), file_offset_(file_offset), fix_(fix), allow_nul_(allow_nul) {}

  /// Fails at position at (reported as a file offset), naming the tensor in scope, then the advice.
  [[noreturn]] void fail(size_t at, const std::string& what) const {
    ct::fail(CT_ERROR_FORMAT, str(context_, ": ", scope_ ? str("tensor '", *scope_, "': ") : std::string(), what,
                                  ", at byte ", at + file_offset_, ". ", fix_));
  }
  /// Names the tensor whose entry is being read (null: none) in later failures.
  void set_scope(const std::string* name) { scope_ = name; }
  size_t pos() const { return pos_; }
  bool at_end() const { return pos_ == n_; }

  void skip_ws() {
    while (pos_ < n_ && is_ws(p_[pos_])) ++pos_;
  }
  /// The next non-whitespace byte, not consumed; 0 at the end.
  uint8_t peek() {
    skip_ws();
    return pos_ < n_ ? p_[pos_] : 0;
  }
  void expect(char c, const char* where) {
    if (peek() != static_cast<uint8_t>(c)) fail(pos_, str("expected '", c, "' ", where, ", found ", describe()));
    ++pos_;
  }
  /// Consumes c when it comes next.
  bool accept(char c) {
    if (peek() != static_cast<uint8_t>(c)) return false;
    ++pos_;
    return true;
  }
  /// What is at the cursor, for messages.
  std::string describe() const {
    if (pos_ >= n_) return "the end of the text";
    const uint8_t c = p_[pos_];
    if (c >= 0x20 && c < 0x7f) return str("'", static_cast<char>(c), "'");
    return str("byte 0x", "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15]);
  }
  bool accept_literal(const char* lit) {
    skip_ws();
    const size_t len = std::strlen(lit);
    if (n_ - pos_ < len || std::memcmp(p_ + pos_, lit, len) != 0) return false;
    pos_ += len;
    return true;
  }

  /// A JSON string: escapes decoded, UTF-8 validated, U+0000 refused.
  std::string string(const char* what) {
    skip_ws();
    const size_t start = pos_;
    if (pos_ >= n_ || p_[pos_] != '"') fail(pos_, str("expected a string (", what, "), found ", describe()));
    ++pos_;
    std::string out;
    for (;;) {
      if (pos_ >= n_) fail(start, str("the string (", what, ") is not closed"));
      const uint8_t c = p_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c < 0x20) fail(pos_, str("a control character (0x", int{c}, ") inside a string (", what, ") must be escaped"));
      if (c == '\\') {
        escape(out, what);
      } else if (c < 0x80) {
        out += static_cast<char>(c);
        ++pos_;
      } else {
        utf8_sequence(out, what);
      }
    }
  }

  /// A non-negative integer in plain JSON form that fits in 63 bits.
  int64_t uint63(const char* what) {
    skip_ws();
    const size_t start = pos_;
    if (pos_ < n_ && (p_[pos_] == '-' || p_[pos_] == '+'))
      fail(start, str("the ", what, " must hold non-negative integers, found a sign"));
    if (pos_ >= n_ || p_[pos_] < '0' || p_[pos_] > '9')
      fail(start, str("the ", what, " must hold non-negative integers, found ", describe()));
    if (p_[pos_] == '0' && pos_ + 1 < n_ && p_[pos_ + 1] >= '0' && p_[pos_ + 1] <= '9')
      fail(start, str("a number in the ", what, " has a leading zero, which JSON does not allow"));
    uint64_t v = 0;
    while (pos_ < n_ && p_[pos_] >= '0' && p_[pos_] <= '9') {
      const uint64_t digit = p_[pos_] - '0';
      if (v > (static_cast<uint64_t>(INT64_MAX) - digit) / 10)
        fail(start, str("a number in the ", what, " is larger than ", INT64_MAX));
      v = v * 10 + digit;
      ++pos_;
    }
    if (pos_ < n_ && (p_[pos_] == '.' || p_[pos_] == 'e' || p_[pos_] == 'E'))
      fail(start, str("the ", what, " must hold integers, found a fraction or exponent"));
    return static_cast<int64_t>(v);
  }

  /// Any JSON value, read for its syntax only: what an entry holds besides its known fields.
  /// Nesting deeper than kMaxNesting is refused (the reference's JSON reader stops at 128 too).
  void skip_value(const char* what, int depth = 0) {
    static constexpr int kMaxNesting = 128;
    const uint8_t c = peek();
    const size_t start = pos_;
    if (c == '"') {
      string(what);
    } else if (c == '{' || c == '[') {
      if (depth == kMaxNesting) fail(start, str(what, " nests more than ", kMaxNesting, " deep"));
      ++pos_;
      const char close = c == '{' ? '}' : ']';
      if (accept(close)) return;
      do {
        if (c == '{') {
          string(what);
          expect(':', "after a field name");
        }
        skip_value(what, depth + 1);
      } while (accept(','));
      if (!accept(close)) fail(pos_, str("expected ',' or '", close, "' in ", what, ", found ", describe()));
    } else if (!accept_literal("true") && !accept_literal("false") && !accept_literal("null")) {
      number(what);
    }
  }

  /// A JSON number's value: an integer when it has no fraction or exponent and fits in 64 bits
  /// (is_int), else a double.
  struct Number {
    bool is_int;
    int64_t i;
    double d;
  };
  Number number_value(const char* what) {
    skip_ws();
    const size_t start = pos_;
    number(what);
    const std::string text(reinterpret_cast<const char*>(p_ + start), pos_ - start);
    const bool integral = text.find_first_of(".eE") == std::string::npos;
    if (integral) {
      errno = 0;
      char* end = nullptr;
      const long long v = std::strtoll(text.c_str(), &end, 10);
      if (errno == 0) return {true, static_cast<int64_t>(v), static_cast<double>(v)};
    }
    return {false, 0, std::strtod(text.c_str(), nullptr)};
  }

 private:
  /// A JSON number (RFC 8259's grammar).
  void number(const char* what) {
    const size_t start = pos_;
    auto digits = [&] {
      const size_t from = pos_;
      while (pos_ < n_ && p_[pos_] >= '0' && p_[pos_] <= '9') ++pos_;
      return pos_ > from;
    };
    if (pos_ < n_ && p_[pos_] == '-') ++pos_;
    if (pos_ < n_ && p_[pos_] == '0') ++pos_;
    else if (!digits()) fail(start, str("expected a JSON value in ", what, ", found ", describe()));
    if (pos_ < n_ && p_[pos_] == '.') {
      ++pos_;
      if (!digits()) fail(start, str("a number in ", what, " has no digits after its '.'"));
    }
    if (pos_ < n_ && (p_[pos_] == 'e' || p_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < n_ && (p_[pos_] == '+' || p_[pos_] == '-')) ++pos_;
      if (!digits()) fail(start, str("a number in ", what, " has no digits in its exponent"));
    }
  }

  unsigned hex4(const char* what) {
    if (n_ - pos_ < 4) fail(pos_, str("a \\u escape in a string (", what, ") needs 4 hex digits"));
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      const uint8_t c = p_[pos_ + i];
      unsigned d;
      if (c >= '0' && c <= '9') d = c - '0';
      else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
      else fail(pos_ + i, str("a \\u escape in a string (", what, ") has a non-hex digit"));
      v = v * 16 + d;
    }
    pos_ += 4;
    return v;
  }
  static void put_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }
  void escape(std::string& out, const char* what) {
    const size_t at = pos_;
    if (n_ - pos_ < 2) fail(at, str("a string (", what, ") ends inside an escape"));
    const uint8_t e = p_[pos_ + 1];
    pos_ += 2;
    switch (e) {
      case '"': out += '"'; return;
      case '\\': out += '\\'; return;
      case '/': out += '/'; return;
      case 'b': out += '\b'; return;
      case 'f': out += '\f'; return;
      case 'n': out += '\n'; return;
      case 'r': out += '\r'; return;
      case 't': out += '\t'; return;
      case 'u': break;
      default: fail(at, str("a string (", what, ") has the unknown escape \\", static_cast<char>(e)));
    }
    uint32_t cp = hex4(what);
    if (cp >= 0xdc00 && cp <= 0xdfff) fail(at, str("a string (", what, ") has a lone low surrogate \\u escape"));
    if (cp >= 0xd800 && cp <= 0xdbff) {
      if (n_ - pos_ < 2 || p_[pos_] != '\\' || p_[pos_ + 1] != 'u')
        fail(at, str("a string (", what, ") has a high surrogate \\u escape without its low half"));
      pos_ += 2;
      const uint32_t lo = hex4(what);
      if (lo < 0xdc00 || lo > 0xdfff) fail(at, str("a string (", what, ") has a high surrogate \\u escape without its low half"));
      cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    if (cp == 0 && !allow_nul_)
      fail(at, str("a string (", what, ") holds U+0000, which ctorch does not accept in names or metadata"));
    put_utf8(out, cp);
  }
  // One multi-byte UTF-8 sequence starting at pos_ (its lead byte >= 0x80), copied when valid.
  void utf8_sequence(std::string& out, const char* what) {
    const size_t len = utf8_sequence_length(p_ + pos_, n_ - pos_);
    if (len == 0) fail(pos_, str("a string (", what, ") is not valid UTF-8"));
    out.append(reinterpret_cast<const char*>(p_ + pos_), len);
    pos_ += len;
  }

  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
  const std::string& context_;
  size_t file_offset_;
  const char* fix_;
  bool allow_nul_;
  const std::string* scope_ = nullptr;
};

}  // namespace ct::io
