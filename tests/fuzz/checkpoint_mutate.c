/* checkpoint_mutate.c - a deterministic fuzz run for CTest, where libFuzzer may be missing: valid
 * checkpoints mutated tens of thousands of times (truncations, bit flips, header lengths, numbers,
 * dtypes, duplicated keys, nesting, overlapping ranges), each opened and exercised as the libFuzzer
 * target does (checkpoint_exercise.h). Every open must succeed or fail with a documented status;
 * the sanitizer builds (asan preset) catch any out-of-bounds read on the way. Fixed seeds: a
 * failure reproduces. */
#include "../capi/capi_test.h"
#include "checkpoint_exercise.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}
static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

typedef struct {
  uint8_t* b;
  size_t n;
} bytes;

static bytes from_parts(const char* header, size_t hl, const uint8_t* data, size_t dl, int keep_n, uint64_t n) {
  bytes out = {malloc(8 + hl + dl + 1), 8 + hl + dl};
  const uint64_t len = keep_n ? n : hl;
  for (int i = 0; i < 8; ++i) out.b[i] = (uint8_t)(len >> (8 * i));
  memcpy(out.b + 8, header, hl);
  if (dl) memcpy(out.b + 8 + hl, data, dl);
  return out;
}

static uint64_t header_len(const bytes* f) {
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= (uint64_t)f->b[i] << (8 * i);
  return n;
}

enum { kSeeds = 3 };
static bytes seeds[kSeeds];

static bytes make_saved_seed(void) {
  ct_tensor* ts[5];
  ts[0] = T(CT_BOOL, S(3), 1, 0, 1);
  ts[1] = T(CT_FLOAT16, S(2), 0.5, -1);
  ts[2] = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ts[3] = T(CT_INT64, S0, 7);
  ts[4] = TE(CT_BFLOAT16, S(0, 4));
  const char* names[5] = {"mask", "half", "weight", "step", "empty"};
  char* data = NULL;
  size_t size = 0;
  bytes out = {NULL, 0};
  if (ct_checkpoint_save_buffer(names, (const ct_tensor* const*)ts, 5, "{\"format\":\"pt\",\"note\":\"a\\nb\"}", &data,
                                &size) == CT_OK) {
    out.b = malloc(size);
    memcpy(out.b, data, size);
    out.n = size;
  }
  ct_string_release(data);
  for (int i = 0; i < 5; ++i) ct_tensor_release(ts[i]);
  return out;
}

static void make_seeds(void) {
  if (seeds[0].b) return;
  seeds[0] = make_saved_seed();
  /* By hand: an unaligned F32, a U32 ctorch cannot read, an escaped name, whitespace. */
  const char* h1 = "{\"p\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}, \"f\" : {\"dtype\":\"F32\","
                   "\"shape\":[2],\"data_offsets\":[1,9]},\n\"u\\u00e9\":{\"dtype\":\"U32\",\"shape\":[1,1],"
                   "\"data_offsets\":[9,13]}}   ";
  uint8_t d1[13] = {1, 0, 0, 0xc0, 0x3f, 0, 0, 0x80, 0xbf, 9, 0, 0, 0};
  seeds[1] = from_parts(h1, strlen(h1), d1, sizeof d1, 0, 0);
  /* Twenty small tensors, I16 and I8. */
  char h2[4096] = "{";
  size_t off = 0;
  for (int i = 0; i < 20; ++i) {
    const int wide = i % 2;
    char entry[160];
    snprintf(entry, sizeof entry, "%s\"t%d\":{\"dtype\":\"%s\",\"shape\":[%d],\"data_offsets\":[%zu,%zu]}", i ? "," : "",
             i, wide ? "I16" : "I8", i % 3, off, off + (size_t)(i % 3) * (wide ? 2 : 1));
    strcat(h2, entry);
    off += (size_t)(i % 3) * (wide ? 2 : 1);
  }
  strcat(h2, "}");
  uint8_t d2[64] = {0};
  seeds[2] = from_parts(h2, strlen(h2), d2, off, 0, 0);
}

static int run_one(bytes f, const char* what) {
  const char* problem = exercise_checkpoint(f.b, f.n);
  if (problem) {
    printf("  %s: %s [last error: %s]\n", what, problem, ct_last_error());
    return 0;
  }
  return 1;
}

/* Exercises f (freed here); ends the test on a broken promise. */
#define RUN(f, what)                  \
  do {                                \
    bytes f_ = (f);                   \
    const int ok_ = run_one(f_, what); \
    free(f_.b);                       \
    CHECK(ok_);                       \
  } while (0)

static void test_seeds_open(void) {
  make_seeds();
  for (int s = 0; s < kSeeds; ++s) {
    CHECK(seeds[s].b != NULL);
    ct_checkpoint* ck = NULL;
    CHECK_OK(ct_checkpoint_open_buffer(seeds[s].b, seeds[s].n, &ck));
    ct_checkpoint_release(ck);
  }
}

static void test_truncations_at_every_length(void) {
  make_seeds();
  for (int s = 0; s < kSeeds; ++s)
    for (size_t len = 0; len <= seeds[s].n; ++len) {
      bytes f = {malloc(len + 1), len};
      memcpy(f.b, seeds[s].b, len);
      RUN(f, "truncation");
    }
}

static void test_bit_flips_and_random_bytes(void) {
  make_seeds();
  rng_state = 1;
  for (int it = 0; it < 50000; ++it) {
    const bytes* s = &seeds[below(kSeeds)];
    bytes f = {malloc(s->n), s->n};
    memcpy(f.b, s->b, s->n);
    const size_t head = 8 + (size_t)header_len(s);
    for (size_t k = 1 + below(4); k > 0; --k) {
      const size_t at = below(10) < 8 ? below(head) : below(f.n); /* mostly the header */
      if (below(2)) f.b[at] ^= (uint8_t)(1u << below(8));
      else f.b[at] = (uint8_t)rnd();
    }
    RUN(f, "bit flip");
  }
}

static void test_header_length_edits(void) {
  make_seeds();
  for (int s = 0; s < kSeeds; ++s) {
    const uint64_t n = header_len(&seeds[s]), size = seeds[s].n;
    const uint64_t values[] = {0, 1, 2, 7, 8, n - 1, n + 1, n - 8, n + 8, size - 8, size - 7, size, 100000000,
                               100000001, 1ull << 32, 1ull << 63, ~0ull, ~0ull - 7};
    for (size_t v = 0; v < sizeof values / sizeof *values; ++v) {
      bytes f = {malloc(seeds[s].n), seeds[s].n};
      memcpy(f.b, seeds[s].b, f.n);
      for (int i = 0; i < 8; ++i) f.b[i] = (uint8_t)(values[v] >> (8 * i));
      RUN(f, "header length");
    }
  }
}

/* A copy of seed s whose header text is edited by edit(); N follows the edit unless keep_n. */
typedef void (*edit_fn)(char* text, size_t* len, size_t cap);

static bytes edited(const bytes* s, edit_fn edit, int keep_n) {
  const size_t hl = (size_t)header_len(s), cap = hl + 65536;
  char* text = malloc(cap);
  memcpy(text, s->b + 8, hl);
  size_t len = hl;
  edit(text, &len, cap);
  bytes f = from_parts(text, len, s->b + 8 + hl, s->n - 8 - hl, keep_n, hl);
  free(text);
  return f;
}

static void splice(char* text, size_t* len, size_t cap, size_t at, size_t remove, const char* insert) {
  const size_t il = strlen(insert);
  if (at > *len) at = *len;
  if (remove > *len - at) remove = *len - at;
  if (*len - remove + il > cap) return;
  memmove(text + at + il, text + at + remove, *len - at - remove);
  memcpy(text + at, insert, il);
  *len = *len - remove + il;
}

static void edit_number(char* text, size_t* len, size_t cap) {
  static const char* tokens[] = {"-1", "NaN", "Infinity", "-Infinity", "1e3", "1.5", "18446744073709551616",
                                 "9223372036854775807", "9223372036854775808", "0", "00", "4294967296", "",
                                 "-0", "2", "3", "100000000", "[1]", "\"4\"", "null", "true", "{}"};
  size_t digits[512], nd = 0; /* starts of digit runs */
  for (size_t i = 0; i < *len && nd < 512; ++i)
    if (text[i] >= '0' && text[i] <= '9' && (i == 0 || text[i - 1] < '0' || text[i - 1] > '9')) digits[nd++] = i;
  if (!nd) return;
  const size_t at = digits[below(nd)];
  size_t run = 0;
  while (at + run < *len && text[at + run] >= '0' && text[at + run] <= '9') ++run;
  char random_number[24];
  snprintf(random_number, sizeof random_number, "%llu", (unsigned long long)(below(3) ? below(40) : rnd()));
  splice(text, len, cap, at, run, below(3) ? tokens[below(sizeof tokens / sizeof *tokens)] : random_number);
}

static void edit_structure(char* text, size_t* len, size_t cap) {
  static const char* dtypes[] = {"\"F33\"", "\"\"", "\"f32\"", "\"I64 \"", "\"BOOL\"", "\"F64\"", "\"U64\"", "\"F4\"",
                                 "\"C64\"", "\"F8_E4M3\"", "1", "null", "[\"F32\"]"};
  static const char* punct[] = {"{", "}", "[", "]", ",", ":", "\"", "\\", " ", "\\u", "\\ud800", "\x01", "\xff",
                                "\xc3", "null", ",\"x\":1"};
  switch (below(6)) {
    case 0: { /* another dtype */
      char* p = strstr(text, "\"dtype\":");
      if (p && (size_t)(p - text) + 8 < *len) {
        size_t at = (size_t)(p - text) + 8, end = at + 1;
        while (end < *len && text[end] != '"') ++end;
        splice(text, len, cap, at, end + 1 - at, dtypes[below(sizeof dtypes / sizeof *dtypes)]);
      }
      break;
    }
    case 1: { /* the first member twice */
      char* first = memchr(text, '{', *len);
      char* comma = first ? strstr(first, "},") : NULL;
      if (first && comma && (size_t)(comma - first) < 4000) {
        char member[4096];
        const size_t ml = (size_t)(comma - first);
        memcpy(member, first + 1, ml);
        member[ml] = ',';
        member[ml + 1] = '\0';
        splice(text, len, cap, (size_t)(first - text) + 1, 0, member);
      }
      break;
    }
    case 2: /* delete a few bytes */
      splice(text, len, cap, below(*len), 1 + below(8), "");
      break;
    case 3: /* insert punctuation */
      splice(text, len, cap, below(*len + 1), 0, punct[below(sizeof punct / sizeof *punct)]);
      break;
    case 4: { /* deep nesting in place of a value, or of the whole header */
      const size_t depth = 1 + below(20000);
      char* deep = malloc(2 * depth + 1);
      const int obj = (int)below(2);
      size_t k = 0;
      for (size_t i = 0; i < depth; ++i) deep[k++] = obj ? '{' : '[';
      for (size_t i = 0; i < depth; ++i) deep[k++] = obj ? '}' : ']';
      deep[k] = '\0';
      char* colon = memchr(text, ':', *len);
      if (below(2) && colon) splice(text, len, cap, (size_t)(colon - text) + 1, 0, deep);
      else splice(text, len, cap, 0, *len, deep);
      free(deep);
      break;
    }
    default: { /* not an object */
      static const char* whole[] = {"[]", "\"x\"", "123", "null", "true", "", " ", "{", "}", "{\"a\"}", "[{}]"};
      splice(text, len, cap, 0, *len, whole[below(sizeof whole / sizeof *whole)]);
    }
  }
}

static void test_number_edits(void) {
  make_seeds();
  rng_state = 2;
  for (int it = 0; it < 20000; ++it) RUN(edited(&seeds[below(kSeeds)], edit_number, below(8) == 0), "number edit");
}

static void test_structural_edits(void) {
  make_seeds();
  rng_state = 3;
  for (int it = 0; it < 20000; ++it) RUN(edited(&seeds[below(kSeeds)], edit_structure, below(8) == 0), "structure edit");
}

/* Headers of 1-4 U8/F32 tensors with offsets near a valid layout: overlaps, gaps, reversed ranges,
 * past the end. Both outcomes must occur, or the run proves little. */
static void test_overlapping_and_shifted_ranges(void) {
  rng_state = 4;
  int opened = 0, refused = 0;
  for (int it = 0; it < 5000; ++it) {
    char h[1024] = "{";
    const int count = 1 + (int)below(4);
    size_t off = 0;
    for (int i = 0; i < count; ++i) {
      const int f32 = (int)below(2);
      const size_t numel = below(4), bytes = numel * (f32 ? 4 : 1);
      long long begin = (long long)off, end = (long long)(off + bytes);
      if (below(3) == 0) begin += (long long)below(9) - 4;
      if (below(3) == 0) end += (long long)below(9) - 4;
      char e[200];
      snprintf(e, sizeof e, "%s\"t%d\":{\"dtype\":\"%s\",\"shape\":[%zu],\"data_offsets\":[%lld,%lld]}", i ? "," : "", i,
               f32 ? "F32" : "U8", numel, begin, end);
      strcat(h, e);
      off += bytes;
    }
    strcat(h, "}");
    const size_t data = off + (below(4) == 0 ? below(5) : 0);
    uint8_t zeros[64] = {0};
    bytes f = from_parts(h, strlen(h), zeros, data < sizeof zeros ? data : sizeof zeros, 0, 0);
    ct_checkpoint* ck = NULL;
    (ct_checkpoint_open_buffer(f.b, f.n, &ck) == CT_OK ? ++opened : ++refused);
    ct_checkpoint_release(ck);
    RUN(f, "ranges");
  }
  CHECK(opened > 100 && refused > 100);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_seeds_open),
    CAPI_TEST(test_truncations_at_every_length),
    CAPI_TEST(test_bit_flips_and_random_bytes),
    CAPI_TEST(test_header_length_edits),
    CAPI_TEST(test_number_edits),
    CAPI_TEST(test_structural_edits),
    CAPI_TEST(test_overlapping_and_shifted_ranges),
};
CAPI_MAIN(TESTS)
