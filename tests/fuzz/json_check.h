/*
 * json_check.h - json_valid(text): 1 when text is exactly one JSON value (RFC 8259) and nothing
 * else but whitespace. The fuzz targets check with it every JSON document ctorch.h promises
 * (ct_program_json, ct_op_registry_json), whatever names and strings the input smuggled into them.
 */
#ifndef CTORCH_JSON_CHECK_H
#define CTORCH_JSON_CHECK_H

#include <string.h>

static void json_ws(const char** p) {
  while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r') ++*p;
}

static int json_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static int json_digit(char c) { return c >= '0' && c <= '9'; }

static int json_string_ok(const char** p) {
  if (**p != '"') return 0;
  for (++*p;; ++*p) {
    const unsigned char c = (unsigned char)**p;
    if (c == '"') return ++*p, 1;
    if (c < 0x20) return 0; /* NUL (the end) and control characters must be escaped */
    if (c == '\\') {
      const char e = *++*p;
      if (e == 'u') {
        for (int k = 1; k <= 4; ++k)
          if (!json_hex((*p)[k])) return 0;
        *p += 4;
      } else if (!strchr("\"\\/bfnrt", e) || e == '\0') {
        return 0;
      }
    }
  }
}

static int json_number_ok(const char** p) {
  if (**p == '-') ++*p;
  if (**p == '0') ++*p;
  else if (json_digit(**p)) while (json_digit(**p)) ++*p;
  else return 0;
  if (**p == '.') {
    if (!json_digit(*++*p)) return 0;
    while (json_digit(**p)) ++*p;
  }
  if (**p == 'e' || **p == 'E') {
    ++*p;
    if (**p == '+' || **p == '-') ++*p;
    if (!json_digit(**p)) return 0;
    while (json_digit(**p)) ++*p;
  }
  return 1;
}

static int json_value_ok(const char** p, int depth) {
  if (depth > 64) return 0; /* ctorch's documents are shallow; deeper means something is wrong */
  json_ws(p);
  if (**p == '{' || **p == '[') {
    const char close = **p == '{' ? '}' : ']';
    const int object = close == '}';
    ++*p;
    json_ws(p);
    if (**p == close) return ++*p, 1;
    for (;;) {
      if (object) {
        json_ws(p);
        if (!json_string_ok(p)) return 0;
        json_ws(p);
        if (*(*p)++ != ':') return 0;
      }
      if (!json_value_ok(p, depth + 1)) return 0;
      json_ws(p);
      if (**p == close) return ++*p, 1;
      if (*(*p)++ != ',') return 0;
    }
  }
  if (**p == '"') return json_string_ok(p);
  static const char* const words[] = {"true", "false", "null"};
  for (int k = 0; k < 3; ++k)
    if (!strncmp(*p, words[k], strlen(words[k]))) return *p += strlen(words[k]), 1;
  return json_number_ok(p);
}

static int json_valid(const char* text) {
  const char* p = text;
  if (!json_value_ok(&p, 0)) return 0;
  json_ws(&p);
  return *p == '\0';
}

#endif /* CTORCH_JSON_CHECK_H */
