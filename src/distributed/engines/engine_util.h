// engine_util.h - what every engine module needs and cannot take from libctorch (Note [Engine
// modules] in ../engine.h): filling a ct_engine_error, and a ct_dtype's name and width.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdio>

#include "ctorch.h"
#include "distributed/engine.h"

namespace ct::engine {

/// Fills *err with status and a printf-style message; returns status.
inline int fail(ct_engine_error* err, int status, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
inline int fail(ct_engine_error* err, int status, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  err->status = status;
  return status;
}

inline const char* dtype_name(int dtype) {
  static const char* const names[] = {"bool",    "uint8",   "int8",     "int16",   "int32",
                                      "int64",   "float16", "bfloat16", "float32", "float64"};
  return dtype >= 0 && dtype <= CT_FLOAT64 ? names[dtype] : "unknown";
}

/// Bytes per element of a ct_dtype (0 for a value that is not one).
inline size_t dtype_size(int dtype) {
  static const size_t sizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  return dtype >= 0 && dtype <= CT_FLOAT64 ? sizes[dtype] : 0;
}

}  // namespace ct::engine
