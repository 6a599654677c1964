// safetensors_header.cpp - the strict header parser and the writer's JSON escaping.
// See Note [The safetensors format] for the rules enforced here.
//
// The parser (io/json_reader.h) is driven by the header's schema instead of building a JSON tree: the top level must
// be an object, each member value is parsed as what its key says (a tensor entry or the metadata
// object), and nothing nests deeper than an array inside an object inside the top object. So a
// hostile header cannot recurse the parser into a stack overflow, and every byte is looked at
// once. Every failure names the byte offset (from the start of the file) of the token at fault.
#include "io/safetensors_header.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "core/tensor_impl.h"
#include "io/json_reader.h"

namespace ct::io {
namespace {

// In the reference implementation's order, which its writer sorts by (largest rank first), so a
// ctorch file lists its tensors as the reference would.
constexpr StDType kDTypes[] = {
    {"BOOL", 8, static_cast<int8_t>(DType::Bool), 0},
    {"F4", 4, -1, 1},
    {"F6_E2M3", 6, -1, 2},
    {"F6_E3M2", 6, -1, 3},
    {"U8", 8, static_cast<int8_t>(DType::UInt8), 4},
    {"I8", 8, static_cast<int8_t>(DType::Int8), 5},
    {"F8_E5M2", 8, -1, 6},
    {"F8_E4M3", 8, -1, 7},
    {"F8_E8M0", 8, -1, 8},
    {"F8_E4M3FNUZ", 8, -1, 9},
    {"F8_E5M2FNUZ", 8, -1, 10},
    {"I16", 16, static_cast<int8_t>(DType::Int16), 11},
    {"U16", 16, -1, 12},
    {"F16", 16, static_cast<int8_t>(DType::Float16), 13},
    {"BF16", 16, static_cast<int8_t>(DType::BFloat16), 14},
    {"I32", 32, static_cast<int8_t>(DType::Int32), 15},
    {"U32", 32, -1, 16},
    {"F32", 32, static_cast<int8_t>(DType::Float32), 17},
    {"C64", 64, static_cast<int8_t>(DType::Complex64), 18},
    {"F64", 64, static_cast<int8_t>(DType::Float64), 19},
    {"I64", 64, static_cast<int8_t>(DType::Int64), 20},
    {"U64", 64, -1, 21},
};

constexpr const char* kFix = "The file is damaged or was not written as safetensors; write it again";

// The shared strict JSON reader (io/json_reader.h), failing with the advice for this format.
class Parser : public JsonReader {
 public:
  Parser(const uint8_t* p, size_t n, const std::string& context, size_t file_offset)
      : JsonReader(p, n, context, file_offset, kFix) {}
};

// "[a, b, ...]" of non-negative integers, at most max_len of them. Messages are built only on
// failure: a header may hold millions of entries.
std::vector<int64_t> int_array(Parser& ps, const char* what, size_t max_len, const char* limit) {
  std::vector<int64_t> out;
  const size_t start = ps.pos();
  if (!ps.accept('[')) ps.fail(ps.pos(), str("expected '[' to open its ", what, ", found ", ps.describe()));
  if (ps.accept(']')) return out;
  do {
    if (out.size() == max_len) ps.fail(start, str("its ", what, " has more than ", max_len, " entries (", limit, ")"));
    out.push_back(ps.uint63(what));
  } while (ps.accept(','));
  if (!ps.accept(']')) ps.fail(ps.pos(), str("expected ',' or ']' in its ", what, ", found ", ps.describe()));
  return out;
}

// One tensor's entry {"dtype": ..., "shape": [...], "data_offsets": [b, e]}; the cursor is on its '{'.
HeaderEntry tensor_entry(Parser& ps, std::string name, size_t name_at) {
  HeaderEntry e;
  e.name = std::move(name);
  e.at = name_at;
  ps.set_scope(&e.name);
  const size_t start = ps.pos();
  ps.expect('{', "to open its entry (tensor entries are objects)");
  bool seen[3] = {false, false, false};  // dtype, shape, data_offsets
  std::unordered_set<std::string> others;  // fields the format does not define: read past, as the reference does
  if (!ps.accept('}')) {
    do {
      ps.skip_ws();
      const size_t key_at = ps.pos();
      const std::string key = ps.string("a field name");
      ps.expect(':', "after a field name");
      const int which = key == "dtype" ? 0 : key == "shape" ? 1 : key == "data_offsets" ? 2 : -1;
      if (which < 0) {
        if (!others.insert(key).second) ps.fail(key_at, str("the field '", key, "' appears twice"));
        ps.skip_value("a field the format does not define");
        continue;
      }
      if (seen[which]) ps.fail(key_at, str("the field '", key, "' appears twice"));
      seen[which] = true;
      ps.skip_ws();
      const size_t value_at = ps.pos();
      if (which == 0) {
        const std::string d = ps.string("the dtype");
        e.dtype = find_st_dtype(d);
        if (!e.dtype) {
          std::string known;
          for (const StDType& k : kDTypes) known += str(known.empty() ? "" : ", ", k.name);
          ps.fail(value_at, str("unknown dtype '", d, "' (the format's dtypes: ", known, ")"));
        }
      } else if (which == 1) {
        e.shape = int_array(ps, "shape", kMaxDims, "ctorch's rank limit");
      } else {
        const std::vector<int64_t> off = int_array(ps, "data_offsets", 2, "it must be [begin, end]");
        if (off.size() != 2) ps.fail(value_at, str("data_offsets must be [begin, end], found ", off.size(), " numbers"));
        if (off[1] < off[0]) ps.fail(value_at, str("data_offsets end ", off[1], " is before its begin ", off[0]));
        e.begin = static_cast<uint64_t>(off[0]);
        e.end = static_cast<uint64_t>(off[1]);
      }
    } while (ps.accept(','));
    ps.expect('}', "to close its entry (or ',' before the next field)");
  }
  static const char* const kField[3] = {"dtype", "shape", "data_offsets"};
  for (int i = 0; i < 3; ++i)
    if (!seen[i]) ps.fail(start, str("its entry has no ", kField[i]));
  ps.set_scope(nullptr);
  return e;
}

// The members of a string -> string object (what names it); the cursor is on its '{'.
std::vector<std::pair<std::string, std::string>> string_map(Parser& ps, const char* what) {
  std::vector<std::pair<std::string, std::string>> out;
  std::unordered_set<std::string> keys;
  if (!ps.accept('{')) ps.fail(ps.pos(), str("expected '{' to open ", what, " (an object of strings), found ", ps.describe()));
  if (ps.accept('}')) return out;
  do {
    ps.skip_ws();
    const size_t key_at = ps.pos();
    std::string key = ps.string("a metadata key");
    if (!keys.insert(key).second) ps.fail(key_at, str(what, " has the key '", key, "' twice"));
    ps.expect(':', "after a metadata key");
    ps.skip_ws();
    if (ps.peek() != '"') ps.fail(ps.pos(), str("the value of '", key, "' in ", what, " must be a string, found ", ps.describe()));
    std::string value = ps.string("a metadata value");
    out.emplace_back(std::move(key), std::move(value));
  } while (ps.accept(','));
  if (!ps.accept('}')) ps.fail(ps.pos(), str("expected ',' or '}' in ", what, ", found ", ps.describe()));
  return out;
}

uint64_t read_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

// The bytes a tensor's data takes: numel * bits / 8, or fail when that overflows or is not whole.
uint64_t tensor_bytes(const HeaderEntry& e, Parser& ps) {
  const size_t at = e.at;
  uint64_t numel = 1;
  for (int64_t s : e.shape)
    if (__builtin_mul_overflow(numel, static_cast<uint64_t>(s), &numel) || numel > static_cast<uint64_t>(INT64_MAX))
      ps.fail(at, str("tensor '", e.name, "' has a shape whose element count overflows 63 bits"));
  uint64_t bits;
  if (__builtin_mul_overflow(numel, uint64_t{e.dtype->bits}, &bits))
    ps.fail(at, str("tensor '", e.name, "' has more bytes than 64 bits can count"));
  if (bits % 8 != 0)
    ps.fail(at, str("tensor '", e.name, "' has ", numel, " elements of ", int{e.dtype->bits}, "-bit ", e.dtype->name,
                    ", which do not fill whole bytes"));
  return bits / 8;
}

}  // namespace

const StDType* find_st_dtype(std::string_view name) {
  for (const StDType& d : kDTypes)
    if (name == d.name) return &d;
  return nullptr;
}

const StDType& st_dtype_of(DType d) {
  for (const StDType& k : kDTypes)
    if (k.ctorch == static_cast<int8_t>(d)) return k;
  // complex128 is the one ctorch dtype the format has no name for (its complex type is C64).
  fail(CT_ERROR_DTYPE, str("safetensors: the format has no dtype for ", d, " tensors (its only complex dtype is C64, "
                           "complex64). Convert the tensor with to(complex64), or save view_as_real(t) as float64"));
}

Header parse_header(const uint8_t* bytes, size_t size, const std::string& context) {
  CT_CHECK(size >= 8, CT_ERROR_FORMAT, context, ": the file has ", size,
           " bytes, fewer than the 8-byte header length that starts a safetensors file. ", kFix);
  const uint64_t n = read_le64(bytes);
  CT_CHECK(n <= kMaxHeaderBytes, CT_ERROR_FORMAT, context, ": the header length (bytes 0-7) is ", n,
           ", over the format's limit of ", kMaxHeaderBytes, " bytes. ", kFix);
  CT_CHECK(n <= size - 8, CT_ERROR_FORMAT, context, ": the header length (bytes 0-7) is ", n, " but only ", size - 8,
           " bytes follow it (the file is truncated?). ", kFix);
  CT_CHECK(n >= 2, CT_ERROR_FORMAT, context, ": the header length (bytes 0-7) is ", n,
           ", too short for a JSON object. ", kFix);
  Parser ps(bytes + 8, static_cast<size_t>(n), context, 8);
  if (ps.peek() != '{') ps.fail(ps.pos(), str("the header must be a JSON object, found ", ps.describe()));

  Header h;
  h.data_start = 8 + n;
  std::unordered_set<std::string> names;
  ps.expect('{', "to open the header");
  if (!ps.accept('}')) {
    do {
      ps.skip_ws();
      const size_t key_at = ps.pos();
      std::string key = ps.string("a tensor name");
      if (!names.insert(key).second) ps.fail(key_at, str("the name '", key, "' appears twice in the header"));
      ps.expect(':', "after a tensor name");
      if (key == "__metadata__") {
        if (!ps.accept_literal("null")) {
          h.metadata = string_map(ps, "__metadata__");
          h.has_metadata = true;
        }
      } else {
        h.entries.push_back(tensor_entry(ps, std::move(key), key_at));
      }
    } while (ps.accept(','));
    ps.expect('}', "to close the header (or ',' before the next tensor)");
  }
  ps.skip_ws();
  if (!ps.at_end()) ps.fail(ps.pos(), str("the header has ", ps.describe(), " after its closing '}' (only whitespace may follow)"));

  // Sorted by (begin, end), the ranges must tile [0, size - data_start) exactly.
  std::stable_sort(h.entries.begin(), h.entries.end(), [](const HeaderEntry& a, const HeaderEntry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  const uint64_t data_size = size - h.data_start;
  uint64_t next = 0;
  const HeaderEntry* prev = nullptr;
  for (const HeaderEntry& e : h.entries) {
    const uint64_t nbytes = tensor_bytes(e, ps);
    if (e.end - e.begin != nbytes)
      ps.fail(e.at, str("tensor '", e.name, "' has data_offsets [", e.begin, ", ", e.end, "] (", e.end - e.begin,
                        " bytes) but its shape and dtype ", e.dtype->name, " need ", nbytes, " bytes"));
    if (e.begin < next)
      ps.fail(e.at, str("tensor '", e.name, "' has data_offsets [", e.begin, ", ", e.end, "], overlapping tensor '",
                        prev->name, "' [", prev->begin, ", ", prev->end, "]"));
    if (e.begin > next)
      ps.fail(e.at, str("tensor '", e.name, "' starts at data offset ", e.begin, ", leaving ", e.begin - next,
                        " bytes unused before it (the ranges must cover the data without holes)"));
    next = e.end;
    prev = &e;
  }
  if (next != data_size)
    ct::fail(CT_ERROR_FORMAT,
             next < data_size
                 ? str(context, ": the tensors cover ", next, " bytes of data but ", data_size, " follow the header (",
                       data_size - next, " trailing bytes from byte ", h.data_start + next, "). ", kFix)
                 : str(context, ": the tensors need ", next, " bytes of data but only ", data_size,
                       " follow the header, which ends at byte ", h.data_start, " (the file is truncated?). ", kFix));
  return h;
}

std::vector<std::pair<std::string, std::string>> parse_string_map(std::string_view text, const std::string& context) {
  Parser ps(reinterpret_cast<const uint8_t*>(text.data()), text.size(), context, 0);
  auto out = string_map(ps, "the metadata");
  ps.skip_ws();
  if (!ps.at_end()) ps.fail(ps.pos(), str("the metadata has ", ps.describe(), " after its closing '}'"));
  return out;
}

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += "0123456789abcdef"[c >> 4];
          out += "0123456789abcdef"[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

}  // namespace ct::io
