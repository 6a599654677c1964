/* test_checkpoint.c - safetensors checkpoints: round trips of every dtype and shape, the reference
 * writer's exact bytes, lazy zero-copy tensors and their lifetime, unaligned and unsupported data,
 * atomic saves, every documented failure, and a table of malformed headers. */
#include "capi_test.h" /* first: it selects POSIX 2008 (mkdtemp) */

#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>

/* A fresh directory for this run's files (not removed: it is tiny and under TMPDIR or /tmp). */
static const char* scratch_dir(void) {
  static char dir[256];
  if (!dir[0]) {
    const char* base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ctorch_ckpt_XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(dir)) dir[0] = '\0';
  }
  return dir;
}

static const char* scratch(const char* name) {
  static char path[2][512];
  static int which = 0;
  which ^= 1;
  snprintf(path[which], sizeof path[which], "%s/%s", scratch_dir(), name);
  return path[which];
}

/* A whole file: the 8-byte length of json, json, then n bytes of data (malloc'ed). */
static unsigned char* file_bytes(const char* json, const void* data, size_t n, size_t* size) {
  const size_t hl = strlen(json);
  unsigned char* b = malloc(8 + hl + n + 1);
  for (int i = 0; i < 8; ++i) b[i] = (unsigned char)(((uint64_t)hl >> (8 * i)) & 0xff);
  memcpy(b + 8, json, hl);
  if (n) memcpy(b + 8 + hl, data, n);
  *size = 8 + hl + n;
  return b;
}

static ct_status open_json(const char* json, const void* data, size_t n, ct_checkpoint** out) {
  size_t size = 0;
  unsigned char* b = file_bytes(json, data, n, &size);
  ct_status st = ct_checkpoint_open_buffer(b, size, out);
  free(b);
  return st;
}

static int write_file(const char* path, const void* data, size_t n) {
  FILE* f = fopen(path, "wb");
  if (!f) return 0;
  int ok = fwrite(data, 1, n, f) == n;
  return fclose(f) == 0 && ok;
}

static void test_every_dtype_round_trips_through_a_buffer(void) {
  const ct_dtype dts[] = {CT_BOOL, CT_UINT8, CT_INT8, CT_INT16, CT_INT32, CT_INT64,
                          CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32, CT_FLOAT64};
  const char* names[10] = {"bool", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};
  ct_tensor* ts[10] = {NULL};
  for (int i = 0; i < 10; ++i) {
    if (dts[i] == CT_BOOL) ts[i] = T(CT_BOOL, S(2, 3), 1, 0, 0, 1, 1, 0);
    else if (dts[i] == CT_UINT8) ts[i] = T(CT_UINT8, S(2, 3), 0, 1, 255, 3, 4, 5);
    else ts[i] = T(dts[i], S(2, 3), 0, 1, -2, 3, 4, 5);
    CHECK(ts[i] != NULL);
  }
  char* data = NULL;
  size_t size = 0;
  CHECK_OK(ct_checkpoint_save_buffer(names, (const ct_tensor* const*)ts, 10, NULL, &data, &size));
  ct_checkpoint* ck = NULL;
  CHECK_OK(ct_checkpoint_open_buffer(data, size, &ck));
  ct_string_release(data);
  size_t n = 0;
  CHECK_OK(ct_checkpoint_num_tensors(ck, &n));
  CHECK(n == 10);
  for (int i = 0; i < 10; ++i) {
    ct_tensor* got = NULL;
    capi_context = names[i];
    CHECK_OK(ct_checkpoint_get(ck, names[i], &got));
    if (dts[i] == CT_BOOL) CHECK_TENSOR(got, CT_BOOL, S(2, 3), 1, 0, 0, 1, 1, 0);
    else if (dts[i] == CT_UINT8) CHECK_TENSOR(got, CT_UINT8, S(2, 3), 0, 1, 255, 3, 4, 5);
    else CHECK_TENSOR(got, dts[i], S(2, 3), 0, 1, -2, 3, 4, 5);
    ct_tensor_release(got);
  }
  ct_checkpoint_release(ck);
  for (int i = 0; i < 10; ++i) ct_tensor_release(ts[i]);
}

static void test_scalars_empty_and_views_round_trip(void) {
  ct_tensor* s = T(CT_FLOAT64, S0, 3.5);
  ct_tensor* e = TE(CT_FLOAT32, S(0, 4));
  ct_tensor* m = T(CT_INT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* mt = NULL;
  CHECK_OK(ct_tensor_transpose(m, 0, 1, &mt)); /* non-contiguous: written in row-major order */
  const char* names[] = {"scalar", "empty", "transposed"};
  const ct_tensor* ts[] = {s, e, mt};
  const char* path = scratch("views.safetensors");
  CHECK_OK(ct_checkpoint_save(path, names, ts, 3, "{}"));
  ct_checkpoint* ck = NULL;
  CHECK_OK(ct_checkpoint_open(path, &ck));
  ct_tensor *gs = NULL, *ge = NULL, *gt = NULL;
  CHECK_OK(ct_checkpoint_get(ck, "scalar", &gs));
  CHECK_OK(ct_checkpoint_get(ck, "empty", &ge));
  CHECK_OK(ct_checkpoint_get(ck, "transposed", &gt));
  CHECK_TENSOR(gs, CT_FLOAT64, S0, 3.5);
  CHECK_META(ge, CT_FLOAT32, S(0, 4));
  CHECK_TENSOR(gt, CT_INT32, S(3, 2), 1, 4, 2, 5, 3, 6);
  char* meta = NULL;
  CHECK_OK(ct_checkpoint_metadata_json(ck, &meta));
  CHECK_STR_EQ(meta, "{}");
  ct_string_release(meta);
  ct_checkpoint_release(ck);
  RELEASE(s, e, m, mt, gs, ge, gt);
}

/* The reference implementation's own serialization test: one F32 tensor "attn.0" of shape [1, 2, 3]
 * holding 0..5 is these exact bytes (a 64-byte header, already a multiple of 8). */
static void test_bytes_match_the_reference_writer(void) {
  static const unsigned char want[] = {
      64, 0, 0, 0, 0, 0, 0, 0, 123, 34, 97, 116, 116, 110, 46, 48, 34, 58, 123, 34, 100, 116, 121, 112, 101, 34,
      58, 34, 70, 51, 50, 34, 44, 34, 115, 104, 97, 112, 101, 34, 58, 91, 49, 44, 50, 44, 51, 93, 44, 34, 100, 97,
      116, 97, 95, 111, 102, 102, 115, 101, 116, 115, 34, 58, 91, 48, 44, 50, 52, 93, 125, 125, 0, 0, 0, 0, 0, 0,
      128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 0, 0, 160, 64};
  ct_tensor* t = T(CT_FLOAT32, S(1, 2, 3), 0, 1, 2, 3, 4, 5);
  const char* names[] = {"attn.0"};
  char* data = NULL;
  size_t size = 0;
  CHECK_OK(ct_checkpoint_save_buffer(names, (const ct_tensor* const*)&t, 1, NULL, &data, &size));
  CHECK(size == sizeof want);
  CHECK(memcmp(data, want, sizeof want) == 0);
  ct_string_release(data);
  /* An empty checkpoint is "{}" padded with six spaces. */
  CHECK_OK(ct_checkpoint_save_buffer(NULL, NULL, 0, NULL, &data, &size));
  CHECK(size == 16 && memcmp(data, "\x08\0\0\0\0\0\0\0{}      ", 16) == 0);
  ct_string_release(data);
  ct_tensor_release(t);
}

static void test_data_is_ordered_like_the_reference_and_aligned(void) {
  ct_tensor* b = T(CT_BOOL, S(3), 1, 0, 1);
  ct_tensor* h = T(CT_FLOAT16, S(1), 1);
  ct_tensor* d = T(CT_FLOAT64, S(2), 1, 2);
  ct_tensor* i = T(CT_INT64, S(1), 7);
  const char* names[] = {"b", "h", "d", "i"};
  const ct_tensor* ts[] = {b, h, d, i};
  char* data = NULL;
  size_t size = 0;
  CHECK_OK(ct_checkpoint_save_buffer(names, ts, 4, "{\"format\":\"pt\"}", &data, &size));
  /* I64 before F64 before F16 before BOOL; metadata first. */
  const char* want = "{\"__metadata__\":{\"format\":\"pt\"},\"i\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]},"
                     "\"d\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[8,24]},"
                     "\"h\":{\"dtype\":\"F16\",\"shape\":[1],\"data_offsets\":[24,26]},"
                     "\"b\":{\"dtype\":\"BOOL\",\"shape\":[3],\"data_offsets\":[26,29]}}";
  uint64_t n = 0;
  for (int k = 0; k < 8; ++k) n |= (uint64_t)(unsigned char)data[k] << (8 * k);
  CHECK(n % 8 == 0 && n >= strlen(want));
  CHECK(memcmp(data + 8, want, strlen(want)) == 0);
  for (size_t k = strlen(want); k < n; ++k) CHECK(data[8 + k] == ' ');
  ct_checkpoint* ck = NULL;
  CHECK_OK(ct_checkpoint_open_buffer(data, size, &ck));
  const char* name = NULL;
  CHECK_OK(ct_checkpoint_name(ck, 0, &name));
  CHECK_STR_EQ(name, "i");
  CHECK_OK(ct_checkpoint_name(ck, 3, &name));
  CHECK_STR_EQ(name, "b");
  const char* fmt = NULL;
  CHECK_OK(ct_checkpoint_metadata_get(ck, "format", &fmt));
  CHECK_STR_EQ(fmt, "pt");
  CHECK_OK(ct_checkpoint_metadata_get(ck, "missing", &fmt));
  CHECK(fmt == NULL);
  ct_checkpoint_release(ck);
  ct_string_release(data);
  RELEASE(b, h, d, i);
}

static void test_tensors_view_the_mapping_and_outlive_the_checkpoint(void) {
  ct_tensor* w = T(CT_FLOAT32, S(4), 1, 2, 3, 4);
  const char* names[] = {"w"};
  const char* path = scratch("lazy.safetensors");
  CHECK_OK(ct_checkpoint_save(path, names, (const ct_tensor* const*)&w, 1, NULL));
  ct_checkpoint* ck = NULL;
  CHECK_OK(ct_checkpoint_open(path, &ck));
  ct_tensor *a = NULL, *b = NULL;
  CHECK_OK(ct_checkpoint_get(ck, "w", &a));
  CHECK_OK(ct_checkpoint_get(ck, "w", &b));
  void *pa = NULL, *pb = NULL;
  CHECK_OK(ct_tensor_data_ptr(a, &pa));
  CHECK_OK(ct_tensor_data_ptr(b, &pb));
  CHECK(pa == pb); /* both view the mapping: no copy */
  ct_checkpoint_release(ck);
  /* The mapping lives on with a; writing into it changes this process's pages, not the file. */
  ct_scalar ten = SF(10.0);
  CHECK_OK(ct_tensor_add_scalar_(a, &ten));
  CHECK_TENSOR(b, CT_FLOAT32, S(4), 11, 12, 13, 14);
  ct_checkpoint* again = NULL;
  ct_tensor* c = NULL;
  CHECK_OK(ct_checkpoint_open(path, &again));
  CHECK_OK(ct_checkpoint_get(again, "w", &c));
  ct_checkpoint_release(again);
  CHECK_TENSOR(c, CT_FLOAT32, S(4), 1, 2, 3, 4);
  RELEASE(w, a, c);
  CHECK_TENSOR(b, CT_FLOAT32, S(4), 11, 12, 13, 14); /* the last user keeps the mapping */
  ct_tensor_release(b);
}

static void test_unaligned_data_is_copied(void) {
  /* A 1-byte tensor first puts the F32 tensor at an odd offset (the reference writer never does). */
  const char* json = "{\"p\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
                     "\"f\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[1,9]}}";
  unsigned char data[9] = {7};
  const float v[2] = {1.5f, -2.0f};
  memcpy(data + 1, v, sizeof v);
  ct_checkpoint* ck = NULL;
  CHECK_OK(open_json(json, data, sizeof data, &ck));
  ct_tensor* f = NULL;
  CHECK_OK(ct_checkpoint_get(ck, "f", &f));
  void* p = NULL;
  CHECK_OK(ct_tensor_data_ptr(f, &p));
  CHECK((uintptr_t)p % 4 == 0);
  ct_checkpoint_release(ck);
  CHECK_TENSOR(f, CT_FLOAT32, S(2), 1.5, -2.0);
  ct_tensor_release(f);
}

static void test_unsupported_dtypes_are_listed_but_refused(void) {
  const char* json = "{\"u\":{\"dtype\":\"U32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                     "\"q\":{\"dtype\":\"F4\",\"shape\":[2],\"data_offsets\":[4,5]},"
                     "\"ok\":{\"dtype\":\"I8\",\"shape\":[1],\"data_offsets\":[5,6]}}";
  const unsigned char data[6] = {1, 0, 0, 0, 0x21, 0xfe};
  ct_checkpoint* ck = NULL;
  CHECK_OK(open_json(json, data, sizeof data, &ck));
  size_t n = 0;
  CHECK_OK(ct_checkpoint_num_tensors(ck, &n));
  CHECK(n == 3);
  ct_tensor* t = SENTINEL;
  CHECK_STATUS(ct_checkpoint_get(ck, "u", &t), CT_ERROR_DTYPE);
  CHECK(t == NULL);
  CHECK_ERROR_CONTAINS("U32");
  CHECK_STATUS(ct_checkpoint_get(ck, "q", &t), CT_ERROR_DTYPE);
  CHECK_OK(ct_checkpoint_get(ck, "ok", &t));
  CHECK_TENSOR(t, CT_INT8, S(1), -2);
  ct_tensor_release(t);
  ct_checkpoint_release(ck);
}

static void test_bool_bytes_other_than_0_and_1_are_refused(void) {
  const unsigned char data[3] = {1, 2, 0};
  ct_checkpoint* ck = NULL;
  CHECK_OK(open_json("{\"b\":{\"dtype\":\"BOOL\",\"shape\":[3],\"data_offsets\":[0,3]}}", data, 3, &ck));
  ct_tensor* t = NULL;
  CHECK_STATUS(ct_checkpoint_get(ck, "b", &t), CT_ERROR_FORMAT);
  CHECK_ERROR_CONTAINS("must be 0 or 1");
  ct_checkpoint_release(ck);
}

static void test_metadata_null_or_absent_is_json_null(void) {
  const char* cases[] = {"{}", "{\"__metadata__\":null}  "};
  for (int i = 0; i < 2; ++i) {
    ct_checkpoint* ck = NULL;
    CHECK_OK(open_json(cases[i], NULL, 0, &ck));
    char* meta = NULL;
    CHECK_OK(ct_checkpoint_metadata_json(ck, &meta));
    CHECK_STR_EQ(meta, "null");
    ct_string_release(meta);
    ct_checkpoint_release(ck);
  }
  /* Escapes survive: decoded on open, escaped again (as serde_json escapes) by metadata_json. */
  ct_checkpoint* ck = NULL;
  CHECK_OK(open_json("{\"__metadata__\":{\"k\\u00e9\":\"a\\\"b\\n\\u0001\\/\"}}", NULL, 0, &ck));
  char* meta = NULL;
  CHECK_OK(ct_checkpoint_metadata_json(ck, &meta));
  CHECK_STR_EQ(meta, "{\"k\xc3\xa9\":\"a\\\"b\\n\\u0001/\"}");
  ct_string_release(meta);
  ct_checkpoint_release(ck);
}

static void test_save_replaces_atomically_and_leaves_no_temporary(void) {
  const char* path = scratch("atomic.safetensors");
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  ct_tensor* b = T(CT_FLOAT32, S(1), 2);
  const char* names[] = {"x"};
  CHECK_OK(ct_checkpoint_save(path, names, (const ct_tensor* const*)&a, 1, NULL));
  CHECK_OK(ct_checkpoint_save(path, names, (const ct_tensor* const*)&b, 1, NULL)); /* replaces */
  ct_checkpoint* ck = NULL;
  ct_tensor* got = NULL;
  CHECK_OK(ct_checkpoint_open(path, &ck));
  CHECK_OK(ct_checkpoint_get(ck, "x", &got));
  CHECK_TENSOR(got, CT_FLOAT32, S(1), 2);
  ct_checkpoint_release(ck);
  ct_tensor_release(got);
  /* A failing save (renaming over a directory) leaves the directory as it was and no temporary. */
  const char* dir = scratch("a_directory");
  CHECK(mkdir(dir, 0777) == 0);
  CHECK_STATUS(ct_checkpoint_save(dir, names, (const ct_tensor* const*)&a, 1, NULL), CT_ERROR_IO);
  CHECK_ERROR_CONTAINS("rename");
  DIR* d = opendir(scratch_dir());
  CHECK(d != NULL);
  int temporaries = 0;
  for (struct dirent* e; (e = readdir(d)) != NULL;)
    if (strstr(e->d_name, ".tmp.")) ++temporaries;
  closedir(d);
  CHECK(temporaries == 0);
  /* Arguments are checked before any file is created. */
  const char* fresh = scratch("never_written.safetensors");
  ct_tensor* meta = NULL;
  CHECK_OK(ct_tensor_empty(S(2), CT_FLOAT32, "meta", &meta));
  CHECK_STATUS(ct_checkpoint_save(fresh, names, (const ct_tensor* const*)&meta, 1, NULL), CT_ERROR_DEVICE);
  FILE* f = fopen(fresh, "rb");
  CHECK(f == NULL);
  RELEASE(a, b, meta);
}

static void test_save_argument_errors(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  ct_tensor* b = T(CT_FLOAT32, S(1), 2);
  const ct_tensor* ab[] = {a, b};
  const char* dup[] = {"x", "x"};
  const char* empty[] = {"", "y"};
  const char* reserved[] = {"__metadata__", "y"};
  const char* bad_utf8[] = {"\xff", "y"};
  const char* with_null[] = {"x", NULL};
  const char* ok[] = {"x", "y"};
  char* data = (char*)"untouched";
  size_t size = 1;
  CHECK_STATUS(ct_checkpoint_save_buffer(dup, ab, 2, NULL, &data, &size), CT_ERROR_INVALID_ARGUMENT);
  CHECK(data == NULL && size == 0);
  CHECK_ERROR_CONTAINS("twice");
  CHECK_STATUS(ct_checkpoint_save_buffer(empty, ab, 2, NULL, &data, &size), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_save_buffer(reserved, ab, 2, NULL, &data, &size), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_save_buffer(bad_utf8, ab, 2, NULL, &data, &size), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_save_buffer(with_null, ab, 2, NULL, &data, &size), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_save_buffer(NULL, ab, 2, NULL, &data, &size), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_save_buffer(ok, NULL, 2, NULL, &data, &size), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_save_buffer(ok, ab, 2, NULL, NULL, &size), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_save_buffer(ok, ab, 2, NULL, &data, NULL), CT_ERROR_INVALID_ARGUMENT);
  const char* bad_meta[] = {"[]", "{\"a\":1}", "{\"a\":\"b\",\"a\":\"c\"}", "{\"a\":\"b\"} x", "{"};
  for (int i = 0; i < 5; ++i) {
    capi_context = bad_meta[i];
    CHECK_STATUS(ct_checkpoint_save_buffer(ok, ab, 2, bad_meta[i], &data, &size), CT_ERROR_FORMAT);
    CHECK_ERROR_CONTAINS("metadata_json");
  }
  capi_context = NULL;
  CHECK_STATUS(ct_checkpoint_save(NULL, ok, ab, 2, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_save(scratch("no_such_dir/x.safetensors"), ok, ab, 2, NULL), CT_ERROR_IO);
  ct_tensor* gone = capi_released();
  const ct_tensor* with_gone[] = {a, gone};
  CHECK_STATUS(ct_checkpoint_save_buffer(ok, with_gone, 2, NULL, &data, &size), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(a, b);
}

static void test_open_and_query_errors(void) {
  ct_checkpoint* ck = (ct_checkpoint*)SENTINEL;
  CHECK_STATUS(ct_checkpoint_open(scratch("does_not_exist.safetensors"), &ck), CT_ERROR_IO);
  CHECK(ck == NULL);
  CHECK_STATUS(ct_checkpoint_open(scratch_dir(), &ck), CT_ERROR_IO);
  CHECK_ERROR_CONTAINS("is a directory");
  CHECK_STATUS(ct_checkpoint_open(NULL, &ck), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_open(scratch("x"), NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_open_buffer(NULL, 3, &ck), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_open_buffer(NULL, 0, &ck), CT_ERROR_FORMAT);
  const char* empty_file = scratch("empty.safetensors");
  CHECK(write_file(empty_file, "", 0));
  CHECK_STATUS(ct_checkpoint_open(empty_file, &ck), CT_ERROR_FORMAT);
  CHECK_ERROR_CONTAINS("8-byte header length");

  CHECK_OK(open_json("{\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]}}", "\0\0\0\0", 4, &ck));
  size_t n = 0;
  const char* name = (const char*)SENTINEL;
  ct_tensor* t = SENTINEL;
  char* text = (char*)SENTINEL;
  CHECK_STATUS(ct_checkpoint_name(ck, 1, &name), CT_ERROR_INDEX);
  CHECK(name == NULL);
  CHECK_STATUS(ct_checkpoint_name(ck, 0, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_get(ck, "b", &t), CT_ERROR_INDEX);
  CHECK(t == NULL);
  CHECK_ERROR_CONTAINS("'b'");
  CHECK_STATUS(ct_checkpoint_get(ck, NULL, &t), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_get(ck, "a", NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_num_tensors(ck, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_metadata_json(ck, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_metadata_get(ck, NULL, &name), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_metadata_get(ck, "k", NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_checkpoint_retain(ck));
  ct_checkpoint_release(ck);
  CHECK_OK(ct_checkpoint_num_tensors(ck, &n)); /* still one reference */
  CHECK(n == 1);
  ct_checkpoint_release(ck);
  /* Released and NULL handles. */
  CHECK_STATUS(ct_checkpoint_num_tensors(ck, &n), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("released");
  CHECK_STATUS(ct_checkpoint_get(ck, "a", &t), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_name(NULL, 0, &name), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_metadata_json(NULL, &text), CT_ERROR_INVALID_ARGUMENT);
  CHECK(text == NULL);
  CHECK_STATUS(ct_checkpoint_metadata_get(NULL, "k", &name), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_retain(ck), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_checkpoint_retain(NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_checkpoint_release(ck);   /* released: a no-op */
  ct_checkpoint_release(NULL); /* a no-op */
}

/* Each malformed header is CT_ERROR_FORMAT, and the message says what is wrong. */
static void test_malformed_headers_are_format_errors(void) {
  static const struct {
    const char* json;
    size_t data;
    const char* says;
  } cases[] = {
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[2,6]}}", 6, "overlapping"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[6,10]}}", 10, "unused"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[2,6]}}", 6, "unused"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}", 6, "trailing"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 4, "truncated"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8, "need 12 bytes"},
      {"{\"a\":{\"dtype\":\"F33\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, "unknown dtype 'F33'"},
      {"{\"a\":{\"dtype\":\"f32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, "unknown dtype"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[-1],\"data_offsets\":[0,0]}}", 0, "sign"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[2.0],\"data_offsets\":[0,2]}}", 2, "fraction"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[2e0],\"data_offsets\":[0,2]}}", 2, "exponent"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[NaN],\"data_offsets\":[0,0]}}", 0, "non-negative integer"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[Infinity],\"data_offsets\":[0,0]}}", 0, "non-negative integer"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[01],\"data_offsets\":[0,1]}}", 1, "leading zero"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4294967296,4294967296,4294967296],\"data_offsets\":[0,0]}}", 0, "overflows"},
      {"{\"a\":{\"dtype\":\"F64\",\"shape\":[2305843009213693952],\"data_offsets\":[0,0]}}", 0, "64 bits"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[99999999999999999999],\"data_offsets\":[0,0]}}", 0, "larger than"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}", 2, "appears twice"},
      {"{\"a\":{\"dtype\":\"U8\",\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1, "twice"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1]}}", 1, "has no data_offsets"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"offsets\":[0,}}", 1, "a field the format does not define"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":1,\"x\":2}}", 1, "'x' appears twice"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":-}}", 1, "expected a JSON value"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":1.}}", 1, "no digits after"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":tru}}", 1, "expected a JSON value"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,0]}}", 1, "before its begin"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1,2]}}", 1, "[begin, end]"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0]}}", 1, "[begin, end]"},
      {"{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,1]}}", 1, "whole bytes"},
      {"{\"a\":[1,2]}", 0, "expected '{'"},
      {"{\"a\":{\"dtype\":{\"x\":[[[[[[[[]]]]]]]]},\"shape\":[],\"data_offsets\":[0,0]}}", 0, "expected a string"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[[1]],\"data_offsets\":[0,1]}}", 1, "non-negative integer"},
      {"[{\"a\":1}]", 0, "must be a JSON object"},
      {" x{}", 0, "must be a JSON object"},
      {"{} x", 0, "after its closing"},
      {"{}{}", 0, "after its closing"},
      {"{,}", 0, "a tensor name"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},}", 1, "a tensor name"},
      {"{\"a\" {}}", 0, "expected ':'"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}", 1, "to close the header"},
      {"{\"__metadata__\":{\"k\":1}}", 0, "must be a string"},
      {"{\"__metadata__\":[]}", 0, "expected '{'"},
      {"{\"__metadata__\":{\"k\":\"v\",\"k\":\"w\"}}", 0, "twice"},
      {"{\"__metadata__\":{},\"__metadata__\":{}}", 0, "twice"},
      {"{\"ab", 0, "not closed"},
      {"{\"a\xff\":{}}", 0, "UTF-8"},
      {"{\"a\xc0\x80\":{}}", 0, "UTF-8"},
      {"{\"a\xed\xa0\x80\":{}}", 0, "UTF-8"},
      {"{\"a\\u0000\":{}}", 0, "U+0000"},
      {"{\"a\\ud800\":{}}", 0, "surrogate"},
      {"{\"a\\udc00\":{}}", 0, "surrogate"},
      {"{\"a\\x\":{}}", 0, "unknown escape"},
      {"{\"a\\u12\":{}}", 0, "hex"},
      {"{\"a\tb\":{}}", 0, "control character"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}\x01", 1, "after its closing"},
      {"{}", 3, "trailing"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    unsigned char zeros[16] = {0};
    ct_checkpoint* ck = (ct_checkpoint*)SENTINEL;
    capi_context = cases[i].json;
    CHECK_STATUS(open_json(cases[i].json, zeros, cases[i].data, &ck), CT_ERROR_FORMAT);
    CHECK(ck == NULL);
    CHECK_ERROR_CONTAINS(cases[i].says);
    CHECK_ERROR_CONTAINS("ct_checkpoint_open_buffer");
  }
  capi_context = NULL;
  /* Rank 65 is over ctorch's limit. */
  char json[512] = "{\"a\":{\"dtype\":\"U8\",\"shape\":[";
  for (int d = 0; d < 65; ++d) strcat(json, d ? ",1" : "1");
  strcat(json, "],\"data_offsets\":[0,1]}}");
  ct_checkpoint* ck = NULL;
  CHECK_STATUS(open_json(json, "\0", 1, &ck), CT_ERROR_FORMAT);
  CHECK_ERROR_CONTAINS("rank limit");
  /* 64 dims is fine. */
  strcpy(json, "{\"a\":{\"dtype\":\"U8\",\"shape\":[");
  for (int d = 0; d < 64; ++d) strcat(json, d ? ",1" : "1");
  strcat(json, "],\"data_offsets\":[0,1]}}");
  CHECK_OK(open_json(json, "\0", 1, &ck));
  ct_checkpoint_release(ck);
}

static void test_header_length_is_checked_before_anything_else(void) {
  unsigned char b[24] = {0};
  memcpy(b + 8, "{}              ", 16);
  ct_checkpoint* ck = NULL;
  b[0] = 16; /* exactly the rest of the file */
  CHECK_OK(ct_checkpoint_open_buffer(b, sizeof b, &ck));
  ct_checkpoint_release(ck);
  b[0] = 17; /* one past the end */
  CHECK_STATUS(ct_checkpoint_open_buffer(b, sizeof b, &ck), CT_ERROR_FORMAT);
  CHECK_ERROR_CONTAINS("only 16 bytes follow");
  b[0] = 0x01, b[3] = 0x10; /* 268435457: over the 100,000,000-byte limit */
  CHECK_STATUS(ct_checkpoint_open_buffer(b, sizeof b, &ck), CT_ERROR_FORMAT);
  CHECK_ERROR_CONTAINS("limit");
  memset(b, 0xff, 8); /* 2^64 - 1 */
  CHECK_STATUS(ct_checkpoint_open_buffer(b, sizeof b, &ck), CT_ERROR_FORMAT);
  memset(b, 0, 8); /* 0 */
  CHECK_STATUS(ct_checkpoint_open_buffer(b, sizeof b, &ck), CT_ERROR_FORMAT);
  CHECK_STATUS(ct_checkpoint_open_buffer(b, 7, &ck), CT_ERROR_FORMAT);
  CHECK_ERROR_CONTAINS("fewer than the 8-byte header length");
}

static void test_a_file_written_by_hand_opens(void) {
  /* Tensors in any header order, zero-size tensors anywhere, whitespace and escapes. */
  const char* json = " {\n  \"z\" : {\"shape\": [0, 3], \"dtype\": \"F32\", \"data_offsets\": [4, 4]},\n"
                     "  \"w\\u00e9\": {\"data_offsets\": [0, 4], \"dtype\": \"I32\", \"shape\": [1]}\r\n}\t ";
  const int32_t v = -7;
  size_t size = 0;
  unsigned char* b = file_bytes(json + 1, &v, 4, &size); /* json + 1: it must start with '{' */
  const char* path = scratch("by_hand.safetensors");
  CHECK(write_file(path, b, size));
  free(b);
  ct_checkpoint* ck = NULL;
  CHECK_OK(ct_checkpoint_open(path, &ck));
  const char* name = NULL;
  CHECK_OK(ct_checkpoint_name(ck, 0, &name));
  CHECK_STR_EQ(name, "w\xc3\xa9");
  ct_tensor *w = NULL, *z = NULL;
  CHECK_OK(ct_checkpoint_get(ck, "w\xc3\xa9", &w));
  CHECK_OK(ct_checkpoint_get(ck, "z", &z));
  CHECK_TENSOR(w, CT_INT32, S(1), -7);
  CHECK_META(z, CT_FLOAT32, S(0, 3));
  RELEASE(w, z);
  ct_checkpoint_release(ck);
}

typedef struct {
  const ct_checkpoint* ck;
  int ok;
} reader_arg;

static void* read_many(void* p) {
  reader_arg* a = p;
  a->ok = 1;
  for (int i = 0; i < 200 && a->ok; ++i) {
    ct_tensor* t = NULL;
    double v = 0;
    a->ok = ct_checkpoint_get(a->ck, "v", &t) == CT_OK && ct_tensor_copy_to(t, &v, sizeof v) == CT_OK && v == 42.0;
    ct_tensor_release(t);
  }
  return NULL;
}

/* A path to something that is not a regular file: opened without blocking (a FIFO with no writer
 * blocked forever) and refused with what it is (Note [Reading files from a path]). */
static void test_paths_that_are_not_regular_files_are_io_errors_without_blocking(void) {
  const char* fifo = scratch("fifo.safetensors");
  CHECK(mkfifo(fifo, 0600) == 0);
  ct_checkpoint* ck = (ct_checkpoint*)SENTINEL;
  CHECK_STATUS(ct_checkpoint_open(fifo, &ck), CT_ERROR_IO);
  CHECK(ck == NULL);
  CHECK_ERROR_CONTAINS("a FIFO");
  CHECK_STATUS(ct_checkpoint_open("/dev/zero", &ck), CT_ERROR_IO);
  CHECK_ERROR_CONTAINS("a character device");
  remove(fifo);
}

/* Files the reference safetensors package opens: whitespace before the header's '{', and fields of
 * a tensor entry that the format does not define (any JSON value), which are ignored. */
static void test_headers_the_reference_accepts_open(void) {
  static const char* const headers[] = {
      " \n\t{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}",
      "{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2],\"extra\":1}}",
      "{\"a\":{\"note\":{\"x\":[1,-2.5e3,true,null,\"s\"],\"y\":{}},\"dtype\":\"U8\",\"shape\":[2],"
      "\"data_offsets\":[0,2],\"z\":[]}}",
  };
  const unsigned char data[2] = {7, 9};
  for (size_t i = 0; i < sizeof headers / sizeof *headers; ++i) {
    capi_context = headers[i];
    ct_checkpoint* ck = NULL;
    CHECK_OK(open_json(headers[i], data, sizeof data, &ck));
    ct_tensor* t = NULL;
    CHECK_OK(ct_checkpoint_get(ck, "a", &t));
    CHECK_TENSOR(t, CT_UINT8, S(2), 7, 9);
    ct_tensor_release(t);
    ct_checkpoint_release(ck);
  }
  capi_context = NULL;
  /* An extra field's value is still JSON, nested at most 128 deep. */
  char deep[600];
  size_t n = (size_t)snprintf(deep, sizeof deep, "{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2],\"x\":");
  for (int d = 0; d < 129; ++d) deep[n++] = '[';
  for (int d = 0; d < 129; ++d) deep[n++] = ']';
  memcpy(deep + n, "}}", 3);
  ct_checkpoint* ck = (ct_checkpoint*)SENTINEL;
  CHECK_STATUS(open_json(deep, data, sizeof data, &ck), CT_ERROR_FORMAT);
  CHECK_ERROR_CONTAINS("nests more than 128 deep");
}

static void test_threads_read_one_checkpoint(void) {
  ct_tensor* v = T(CT_FLOAT64, S(1), 42);
  const char* names[] = {"v"};
  const char* path = scratch("threads.safetensors");
  CHECK_OK(ct_checkpoint_save(path, names, (const ct_tensor* const*)&v, 1, NULL));
  ct_checkpoint* ck = NULL;
  CHECK_OK(ct_checkpoint_open(path, &ck));
  pthread_t th[4];
  reader_arg args[4];
  for (int i = 0; i < 4; ++i) {
    args[i].ck = ck;
    pthread_create(&th[i], NULL, read_many, &args[i]);
  }
  for (int i = 0; i < 4; ++i) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; ++i) CHECK(args[i].ok);
  ct_checkpoint_release(ck);
  ct_tensor_release(v);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_every_dtype_round_trips_through_a_buffer),
    CAPI_TEST(test_scalars_empty_and_views_round_trip),
    CAPI_TEST(test_bytes_match_the_reference_writer),
    CAPI_TEST(test_data_is_ordered_like_the_reference_and_aligned),
    CAPI_TEST(test_tensors_view_the_mapping_and_outlive_the_checkpoint),
    CAPI_TEST(test_unaligned_data_is_copied),
    CAPI_TEST(test_unsupported_dtypes_are_listed_but_refused),
    CAPI_TEST(test_bool_bytes_other_than_0_and_1_are_refused),
    CAPI_TEST(test_metadata_null_or_absent_is_json_null),
    CAPI_TEST(test_save_replaces_atomically_and_leaves_no_temporary),
    CAPI_TEST(test_save_argument_errors),
    CAPI_TEST(test_open_and_query_errors),
    CAPI_TEST(test_malformed_headers_are_format_errors),
    CAPI_TEST(test_header_length_is_checked_before_anything_else),
    CAPI_TEST(test_a_file_written_by_hand_opens),
    CAPI_TEST(test_paths_that_are_not_regular_files_are_io_errors_without_blocking),
    CAPI_TEST(test_headers_the_reference_accepts_open),
    CAPI_TEST(test_threads_read_one_checkpoint),
};
CAPI_MAIN(TESTS)
