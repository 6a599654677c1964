// safetensors_header.h - the header of a safetensors file: its dtypes, a strict parser that
// validates every rule of the format, and the JSON text the writer produces.
//
// Note [The safetensors format]
// A file is: 8 bytes N (unsigned, little-endian), N bytes of UTF-8 JSON (the header), then the data
// buffer. The header is one object: each member is a tensor, {"dtype": "F32", "shape": [2, 3],
// "data_offsets": [begin, end]} with offsets relative to the first byte after the header, except the
// optional "__metadata__", an object of string -> string (null means absent). The writer pads the
// header with spaces to a multiple of 8 bytes. A file is accepted only when (docs/checkpoints.md):
//   - N <= 100,000,000 (the reference implementation's limit) and 8 + N <= the file's size;
//   - the header is valid UTF-8 and valid JSON (RFC 8259, no extensions): one object, with only
//     whitespace before its '{' and after its closing '}';
//   - no key repeats (tensor names, metadata keys, or a tensor's own fields), and no string holds
//     U+0000 (names travel as C strings);
//   - each tensor has dtype, shape and data_offsets; dtype is one the format names; shape holds at
//     most 64 non-negative integers (ctorch's rank limit); offsets are two integers; those numbers
//     are plain integers (no sign, fraction or exponent) that fit in 63 bits. Other fields of an
//     entry may hold any JSON value (nested at most 128 deep) and are ignored, as the reference
//     ignores them;
//   - numel * bits / 8 equals end - begin (computed without overflow; sub-byte dtypes must fill
//     whole bytes), and sorted by (begin, end) the ranges tile the buffer exactly: the first starts
//     at 0, each starts where the previous ended, the last ends at the end of the file.
// These are the reference's rules, plus the two ctorch limits above (NUL in strings, rank 64).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/dtype.h"

namespace ct::io {

/// The reference implementation's cap on N, which stops a hostile file from making the parser
/// allocate or scan gigabytes before anything else is checked.
constexpr uint64_t kMaxHeaderBytes = 100000000;

/// One element type the format names. ctorch computes with ten of them; the others can be listed
/// and skipped but not read (ct_checkpoint_get says which).
struct StDType {
  const char* name;  // as written in the header: "F32"
  uint8_t bits;      // 4, 6, 8, 16, 32 or 64
  int8_t ctorch;     // the ct::DType value, or -1 when ctorch has no such dtype
  uint8_t rank;      // position in the reference's dtype order, which its writer sorts by
};

/// The dtype called name, or null when the format has none of that name.
const StDType* find_st_dtype(std::string_view name);
/// The format's entry for a ctorch dtype (every ctorch dtype has one).
const StDType& st_dtype_of(DType d);

struct HeaderEntry {
  std::string name;
  const StDType* dtype = nullptr;
  std::vector<int64_t> shape;  // INVARIANT: each >= 0, at most kMaxDims entries
  uint64_t begin = 0;          // INVARIANT: relative to the data buffer, begin <= end
  uint64_t end = 0;
  size_t at = 0;  // where its name starts in the header, for messages
};

struct Header {
  std::vector<HeaderEntry> entries;  // in data order: by (begin, end), then header order
  std::vector<std::pair<std::string, std::string>> metadata;  // in header order
  bool has_metadata = false;                                  // "__metadata__" was present and not null
  uint64_t data_start = 0;                                    // 8 + N: the data buffer's first byte
};

/// Parses and validates a whole file held in bytes[0, size): every rule of Note [The safetensors
/// format]. Failures are CT_ERROR_FORMAT "<context>: <what>, at byte <offset of the field>. <what
/// to do>", the offset counted from the start of the file.
Header parse_header(const uint8_t* bytes, size_t size, const std::string& context);

/// Parses a JSON object of string -> string (the metadata argument of the writer), with the same
/// strictness; CT_ERROR_FORMAT naming context on failure.
std::vector<std::pair<std::string, std::string>> parse_string_map(std::string_view text, const std::string& context);

/// Appends s as a JSON string literal escaped as serde_json escapes it (", \, and control
/// characters; everything else as is), so ctorch's headers match the reference writer's bytes.
void append_json_string(std::string& out, std::string_view s);


}  // namespace ct::io
