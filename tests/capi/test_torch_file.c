/* test_torch_file.c - PyTorch files (ct_torch_*): a saved structure and its tensors come back
 * exactly (views sharing one storage, every dtype, requires_grad), through a buffer and a path,
 * saving replaces atomically, and every documented failure: NULL and released arguments, bad
 * structures, and damaged files (truncated, a flipped byte, not a zip). Files from PyTorch itself,
 * and files PyTorch must load, are the Python suite's (bindings/python/tests/test_serialization.py). */
#include "capi_test.h" /* first: it selects POSIX 2008 (mkdtemp) */

#include <dirent.h>

static const char* scratch(const char* name) {
  static char dir[256], path[512];
  if (!dir[0]) {
    const char* base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ctorch_torchfile_XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(dir)) dir[0] = '\0';
  }
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return path;
}

/* Saves structure over ts into a buffer and loads it back. */
static ct_torch_file* round_trip(const char* structure, const ct_tensor* const* ts, size_t n) {
  char* data = NULL;
  size_t size = 0;
  ct_torch_file* f = NULL;
  if (ct_torch_save_buffer(structure, ts, n, &data, &size) != CT_OK) return NULL;
  if (ct_torch_load_buffer(data, size, &f) != CT_OK) f = NULL;
  ct_string_release(data);
  return f;
}

static const char* structure_of(const ct_torch_file* f) {
  const char* s = NULL;
  return ct_torch_file_structure(f, &s) == CT_OK ? s : "";
}

static void test_a_state_dict_round_trips(void) {
  ct_tensor* w = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* b = T(CT_FLOAT64, S(2), -1, 0.5);
  ct_tensor* steps = T(CT_INT64, S0, 7);
  const ct_tensor* ts[] = {w, b, steps};
  const char* structure =
      "{\"dict\": [[\"model\", {\"ordered_dict\": [[\"fc.weight\", {\"tensor\": 0}], [\"fc.bias\", {\"tensor\": 1}]]}], "
      "[\"step\", {\"tensor\": 2}], [\"epoch\", 3], [\"lr\", 0.5], [\"big\", -9007199254740993], [\"name\", \"gpt\\u00e9\"], "
      "[\"flags\", {\"tuple\": [true, false, null]}], [\"nan\", {\"float\": \"nan\"}], [\"inf\", {\"float\": \"-inf\"}], "
      "[7, [1, 2.0]], [\"empty\", {\"dict\": []}], [\"none\", {\"tuple\": []}], [\"list\", []]]}";
  ct_torch_file* f = round_trip(structure, ts, 3);
  CHECK(f != NULL);
  /* The structure comes back in canonical form: compact, floats with a '.', tensors by first use. */
  CHECK(strcmp(structure_of(f),
               "{\"dict\":[[\"model\",{\"ordered_dict\":[[\"fc.weight\",{\"tensor\":0}],[\"fc.bias\",{\"tensor\":1}]]}],"
               "[\"step\",{\"tensor\":2}],[\"epoch\",3],[\"lr\",0.5],[\"big\",-9007199254740993],[\"name\",\"gpt\xc3\xa9\"],"
               "[\"flags\",{\"tuple\":[true,false,null]}],[\"nan\",{\"float\":\"nan\"}],[\"inf\",{\"float\":\"-inf\"}],"
               "[7,[1,2.0]],[\"empty\",{\"dict\":[]}],[\"none\",{\"tuple\":[]}],[\"list\",[]]]}") == 0);
  size_t n = 0;
  CHECK_OK(ct_torch_file_num_tensors(f, &n));
  CHECK(n == 3);
  const char* names[] = {"model.fc.weight", "model.fc.bias", "step"};
  for (size_t i = 0; i < 3; ++i) {
    const char* name = NULL;
    CHECK_OK(ct_torch_file_tensor_name(f, i, &name));
    CHECK(name && strcmp(name, names[i]) == 0);
  }
  const char* none = "x";
  CHECK_STATUS(ct_torch_file_tensor_name(f, 3, &none), CT_ERROR_INDEX);
  CHECK(none == NULL);
  ct_tensor *w2 = NULL, *b2 = NULL, *s2 = NULL;
  CHECK_OK(ct_torch_file_tensor(f, 0, &w2));
  CHECK_OK(ct_torch_file_tensor(f, 1, &b2));
  CHECK_OK(ct_torch_file_tensor(f, 2, &s2));
  ct_torch_file_release(f); /* the tensors live on */
  CHECK_TENSOR(w2, CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  CHECK_TENSOR(b2, CT_FLOAT64, S(2), -1, 0.5);
  CHECK_TENSOR(s2, CT_INT64, S0, 7);
  RELEASE(w, b, steps, w2, b2, s2);
}

static void test_views_share_their_storage(void) {
  ct_tensor* base = T(CT_INT32, S(3, 4), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
  ct_tensor *t = NULL, *row = NULL;
  CHECK_OK(ct_tensor_transpose(base, 0, 1, &t));
  CHECK_OK(ct_tensor_select(base, 0, 2, &row));
  const ct_tensor* ts[] = {t, row, base};
  ct_torch_file* f = round_trip("[{\"tensor\": 0}, {\"tensor\": 1}, {\"tensor\": 2}, {\"tensor\": 1}]", ts, 3);
  CHECK(f != NULL);
  const char* name = NULL;
  CHECK_OK(ct_torch_file_tensor_name(f, 2, &name));
  CHECK(name && strcmp(name, "2") == 0);
  CHECK(strcmp(structure_of(f), "[{\"tensor\":0},{\"tensor\":1},{\"tensor\":2},{\"tensor\":1}]") == 0);
  ct_tensor *t2 = NULL, *row2 = NULL, *base2 = NULL;
  CHECK_OK(ct_torch_file_tensor(f, 0, &t2));
  CHECK_OK(ct_torch_file_tensor(f, 1, &row2));
  CHECK_OK(ct_torch_file_tensor(f, 2, &base2));
  CHECK_TENSOR(t2, CT_INT32, S(4, 3), 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11);
  CHECK_TENSOR(row2, CT_INT32, S(4), 8, 9, 10, 11);
  /* One storage: writing through the loaded base shows in the loaded views. */
  ct_scalar seven = SI(-7);
  CHECK_OK(ct_tensor_fill_scalar_(base2, &seven));
  CHECK_TENSOR(row2, CT_INT32, S(4), -7, -7, -7, -7);
  ct_torch_file_release(f);
  RELEASE(base, t, row, t2, row2, base2);
}

static void test_every_dtype_and_requires_grad(void) {
  const ct_dtype dtypes[] = {CT_BOOL, CT_UINT8, CT_INT8, CT_INT16, CT_INT32, CT_INT64, CT_FLOAT16, CT_BFLOAT16,
                             CT_FLOAT32, CT_FLOAT64};
  for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; ++i) {
    ct_tensor* a = T(dtypes[i], S(2, 2), 1, 0, 0, 1);
    ct_tensor* e = TE(dtypes[i], S(0, 3));
    const ct_tensor* ts[] = {a, e};
    ct_torch_file* f = round_trip("{\"tuple\": [{\"tensor\": 0}, {\"tensor\": 1}]}", ts, 2);
    CHECK(f != NULL);
    ct_tensor *a2 = NULL, *e2 = NULL;
    CHECK_OK(ct_torch_file_tensor(f, 0, &a2));
    CHECK_OK(ct_torch_file_tensor(f, 1, &e2));
    CHECK_TENSOR(a2, dtypes[i], S(2, 2), 1, 0, 0, 1);
    CHECK_TENSOR(e2, dtypes[i], S(0, 3));
    ct_torch_file_release(f);
    RELEASE(a, e, a2, e2);
  }
  ct_tensor* p = T(CT_FLOAT32, S(2), 1, 2);
  CHECK_OK(ct_tensor_set_requires_grad(p, 1));
  const ct_tensor* ts[] = {p};
  ct_torch_file* f = round_trip("{\"tensor\": 0}", ts, 1);
  ct_tensor* p2 = NULL;
  CHECK_OK(ct_torch_file_tensor(f, 0, &p2));
  int rg = 0, leaf = 0;
  CHECK_OK(ct_tensor_requires_grad(p2, &rg));
  CHECK_OK(ct_tensor_is_leaf(p2, &leaf));
  CHECK(rg == 1 && leaf == 1);
  ct_torch_file_release(f);
  RELEASE(p, p2);
}

static void test_save_to_a_path_replaces_it(void) {
  const char* path = scratch("model.pt");
  ct_tensor* a = T(CT_FLOAT32, S(3), 1, 2, 3);
  const ct_tensor* ts[] = {a};
  CHECK_OK(ct_torch_save(path, "[1, {\"tensor\": 0}]", ts, 1));
  CHECK_OK(ct_torch_save(path, "{\"dict\": [[\"a\", {\"tensor\": 0}]]}", ts, 1));
  ct_torch_file* f = NULL;
  CHECK_OK(ct_torch_load(path, &f));
  CHECK(strcmp(structure_of(f), "{\"dict\":[[\"a\",{\"tensor\":0}]]}") == 0);
  ct_torch_file_release(f);
  /* A bad structure fails before the file is touched, and before any temporary is made. */
  CHECK_STATUS(ct_torch_save(path, "{\"tensor\": 1}", ts, 1), CT_ERROR_FORMAT);
  {
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    DIR* d = opendir(dir);
    CHECK(d != NULL);
    int entries = 0;
    for (struct dirent* e; d && (e = readdir(d)) != NULL;)
      if (e->d_name[0] != '.') entries += strcmp(e->d_name, "model.pt") == 0 ? 1 : 100;
    if (d) closedir(d);
    CHECK(entries == 1); /* model.pt, and no "model.pt.tmp.*" */
  }
  CHECK_OK(ct_torch_load(path, &f));
  CHECK(strcmp(structure_of(f), "{\"dict\":[[\"a\",{\"tensor\":0}]]}") == 0);
  ct_torch_file_release(f);
  CHECK_STATUS(ct_torch_load(scratch("missing.pt"), &f), CT_ERROR_IO);
  CHECK(f == NULL);
  RELEASE(a);
}

static void test_argument_errors(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  const ct_tensor* ts[] = {a};
  const ct_tensor* bad[] = {capi_released()};
  ct_torch_file* f = NULL;
  char* data = NULL;
  size_t size = 0;
  CHECK_STATUS(ct_torch_load(NULL, &f), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_torch_load(scratch("x.pt"), NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_torch_load_buffer(NULL, 3, &f), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_torch_save(NULL, "1", ts, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_torch_save_buffer(NULL, ts, 1, &data, &size), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("structure is NULL");
  CHECK_STATUS(ct_torch_save_buffer("1", NULL, 1, &data, &size), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_torch_save_buffer("{\"tensor\": 0}", bad, 1, &data, &size), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_torch_save_buffer("1", ts, 1, NULL, &size), CT_ERROR_INVALID_ARGUMENT);
  CHECK(data == NULL && size == 0);
  const char* s = "x";
  size_t n = 1;
  CHECK_STATUS(ct_torch_file_structure(NULL, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK(s == NULL);
  CHECK_STATUS(ct_torch_file_num_tensors(NULL, &n), CT_ERROR_INVALID_ARGUMENT);
  ct_torch_file* ok = round_trip("{\"tensor\": 0}", ts, 1);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_torch_file_tensor(ok, 1, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  CHECK_STATUS(ct_torch_file_structure(ok, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_torch_file_release(ok);
  CHECK_STATUS(ct_torch_file_num_tensors(ok, &n), CT_ERROR_INVALID_ARGUMENT); /* released */
  CHECK_ERROR_CONTAINS("released");
  ct_torch_file_release(ok); /* a second release is a no-op */
  ct_torch_file_release(NULL);
  RELEASE(a);
}

static void test_bad_structures_are_format_errors(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  const ct_tensor* ts[] = {a};
  const char* bad[][2] = {
      {"", "expected"},
      {"[1, 2", "expected"},
      {"{\"tensor\": 1}", "tensor index"},
      {"{\"tensor\": -1}", "tensor index"},
      {"{\"tensor\": 0.5}", "tensor index"},
      {"{\"set\": [1]}", "unknown tag"},
      {"{\"dict\": [[1.5, 2]]}", "dict key"},
      {"{\"dict\": [[\"a\"]]}", "expected ','"},
      {"{\"float\": \"huge\"}", "\"nan\""},
      {"1 2", "text follows"},
      {"{\"tuple\": [1], \"more\": 2}", "expected '}'"},
      {"nul", "expected a JSON value"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    char* data = NULL;
    size_t size = 7;
    CHECK_STATUS(ct_torch_save_buffer(bad[i][0], ts, 1, &data, &size), CT_ERROR_FORMAT);
    CHECK_ERROR_CONTAINS(bad[i][1]);
    CHECK(data == NULL && size == 0);
  }
  /* Nesting is bounded. */
  char deep[1000];
  size_t k = 0;
  for (; k < 300; ++k) deep[k] = '[';
  deep[k] = '\0';
  char* data = NULL;
  size_t size = 0;
  CHECK_STATUS(ct_torch_save_buffer(deep, ts, 1, &data, &size), CT_ERROR_FORMAT);
  CHECK_ERROR_CONTAINS("nests more than");
  RELEASE(a);
}

static void test_damaged_files_are_format_errors(void) {
  ct_tensor* a = TE(CT_FLOAT32, S(64));
  const ct_tensor* ts[] = {a};
  char* data = NULL;
  size_t size = 0;
  CHECK_OK(ct_torch_save_buffer("{\"ordered_dict\": [[\"w\", {\"tensor\": 0}]]}", ts, 1, &data, &size));
  ct_torch_file* f = NULL;
  /* Every truncation fails cleanly (a sample of lengths, the last bytes included). */
  for (size_t len = 0; len < size; len += (len < 64 || size - len < 64) ? 1 : 37) {
    f = (ct_torch_file*)capi_sentinel();
    CHECK_STATUS(ct_torch_load_buffer(data, len, &f), CT_ERROR_FORMAT);
    CHECK(f == NULL);
  }
  /* A flipped byte anywhere in an entry's data fails its CRC-32; in a header, the header check. */
  for (size_t at = 0; at < size; at += 13) {
    data[at] ^= 0x5a;
    ct_status st = ct_torch_load_buffer(data, size, &f);
    CHECK(st == CT_ERROR_FORMAT || st == CT_OK);
    if (st == CT_OK) ct_torch_file_release(f); /* a byte no reader checks: padding, a timestamp */
    data[at] ^= 0x5a;
  }
  const char junk[] = "PK\x05\x06 not really a zip archive, just bytes";
  CHECK_STATUS(ct_torch_load_buffer(junk, sizeof junk, &f), CT_ERROR_FORMAT);
  CHECK_STATUS(ct_torch_load_buffer("", 0, &f), CT_ERROR_FORMAT);
  CHECK_ERROR_CONTAINS("too few");
  ct_string_release(data);
  RELEASE(a);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_a_state_dict_round_trips),
    CAPI_TEST(test_views_share_their_storage),
    CAPI_TEST(test_every_dtype_and_requires_grad),
    CAPI_TEST(test_save_to_a_path_replaces_it),
    CAPI_TEST(test_argument_errors),
    CAPI_TEST(test_bad_structures_are_format_errors),
    CAPI_TEST(test_damaged_files_are_format_errors),
};
CAPI_MAIN(TESTS)
