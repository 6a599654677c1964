/*
 * make_program_corpus.c - writes the seed corpus of fuzz_program: program files ctorch exports
 * (static with captured constants, a dynamic batch, a guarded dynamic dim, topk with k from a size
 * and from item(), views and integer dtypes), plus truncated and byte-flipped copies of each. Run
 * once from the repository root after a build, then check the files in:
 *
 *   ./build/tests/fuzz/make_program_corpus tests/fuzz/corpus/program
 *
 * CTest replays them (fuzz_program_corpus) and libFuzzer starts from them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctorch.h"

#define TRY(call)                                                                        \
  do {                                                                                   \
    ct_status s_ = (call);                                                               \
    if (s_ != CT_OK) {                                                                   \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ct_status_name(s_), ct_last_error()); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

static const char* g_dir;

static void write_file(const char* name, const char* data, size_t size) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
}

/* The program's file, and copies cut short and with one byte flipped (header, middle). */
static void save_all(const char* name, const ct_program* p) {
  char* data = NULL;
  size_t size = 0;
  char file[128];
  TRY(ct_program_save_buffer(p, &data, &size));
  snprintf(file, sizeof file, "%s.ctprog", name);
  write_file(file, data, size);
  const size_t cuts[] = {12, size / 3, size - 1};
  for (size_t k = 0; k < sizeof cuts / sizeof *cuts; ++k) {
    snprintf(file, sizeof file, "%s_cut_%zu", name, cuts[k]);
    write_file(file, data, cuts[k]);
  }
  const size_t flips[] = {20, size / 2};
  for (size_t k = 0; k < sizeof flips / sizeof *flips; ++k) {
    data[flips[k]] ^= 0x41;
    snprintf(file, sizeof file, "%s_flip_%zu", name, flips[k]);
    write_file(file, data, size);
    data[flips[k]] ^= 0x41;
  }
  ct_string_release(data);
}

static ct_tensor* randn2(int64_t rows, int64_t cols) {
  ct_tensor* t = NULL;
  const int64_t sizes[2] = {rows, cols};
  TRY(ct_tensor_randn(sizes, 2, CT_FLOAT32, "cpu", NULL, &t));
  return t;
}

/* relu(x @ w + b) with w and b captured: constants in the file. */
static ct_status linear_relu(void* user_data, const ct_tensor* const* in, size_t n_in, ct_tensor** out, size_t n_out) {
  (void)n_in, (void)n_out;
  ct_tensor* const* wb = user_data;
  ct_tensor *y = NULL, *z = NULL;
  ct_status st = ct_tensor_matmul(in[0], wb[0], &y);
  if (st == CT_OK) st = ct_tensor_add(y, wb[1], &z);
  if (st == CT_OK) st = ct_tensor_relu(z, &out[0]);
  ct_tensor_release(y), ct_tensor_release(z);
  return st;
}

/* x * sigmoid(x) - y, for a dynamic batch. */
static ct_status chain(void* user_data, const ct_tensor* const* in, size_t n_in, ct_tensor** out, size_t n_out) {
  (void)user_data, (void)n_in, (void)n_out;
  ct_tensor *s = NULL, *a = NULL;
  ct_status st = ct_tensor_sigmoid(in[0], &s);
  if (st == CT_OK) st = ct_tensor_mul(in[0], s, &a);
  if (st == CT_OK) st = ct_tensor_sub(a, in[1], &out[0]);
  ct_tensor_release(s), ct_tensor_release(a);
  return st;
}

/* The first two rows of x, transposed, and the sum of all of x: guards on the dynamic dim. */
static ct_status views(void* user_data, const ct_tensor* const* in, size_t n_in, ct_tensor** out, size_t n_out) {
  (void)user_data, (void)n_in, (void)n_out;
  ct_tensor* head = NULL;
  ct_status st = ct_tensor_narrow(in[0], 0, 0, 2, &head);
  if (st == CT_OK) st = ct_tensor_transpose(head, 0, 1, &out[0]);
  if (st == CT_OK) st = ct_tensor_sum(in[0], NULL, 0, 0, &out[1]);
  ct_tensor_release(head);
  return st;
}

/* Integer and bool dtypes: where(i > 0, i, -i), cumsum, and a cast. */
static ct_status ints(void* user_data, const ct_tensor* const* in, size_t n_in, ct_tensor** out, size_t n_out) {
  (void)user_data, (void)n_in, (void)n_out;
  const ct_scalar zero = {CT_SCALAR_INT, 0, 0};
  ct_tensor *pos = NULL, *neg = NULL;
  ct_status st = ct_tensor_gt_scalar(in[0], &zero, &pos);
  if (st == CT_OK) st = ct_tensor_neg(in[0], &neg);
  if (st == CT_OK) st = ct_tensor_where(pos, in[0], neg, &out[0]);
  if (st == CT_OK) st = ct_tensor_cumsum(in[0], 1, NULL, &out[1]);
  if (st == CT_OK) st = ct_tensor_to(pos, CT_FLOAT64, &out[2]);
  ct_tensor_release(pos), ct_tensor_release(neg);
  return st;
}

/* topk(x, k): k is the size of in[1] (a meta tensor), or item() of in[1] (an int64 tensor). */
static ct_status topk(void* by_item, const ct_tensor* const* in, size_t n_in, ct_tensor** out, size_t n_out) {
  (void)n_in, (void)n_out;
  ct_symint* k = NULL;
  ct_status st = by_item ? ct_tensor_sym_item(in[1], &k) : ct_tensor_sym_size(in[1], 0, &k);
  if (st != CT_OK) return st;
  ct_value args[2];
  memset(args, 0, sizeof args);
  args[0].kind = CT_VALUE_TENSOR;
  args[0].tensor = in[0];
  ct_value_set_symint(&args[1], k);
  st = ct_op_call("topk", args, 2, out, 2);
  ct_symint_release(k);
  return st;
}

static ct_program* export_or_exit(ct_traced_fn fn, void* user_data, const ct_tensor* const* in, size_t n_in, size_t n_out,
                          const ct_dynamic_shapes* dims) {
  ct_program* p = NULL;
  TRY(ct_export(fn, user_data, in, n_in, n_out, dims, &p));
  return p;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  g_dir = argv[1];
  TRY(ct_manual_seed(0));
  ct_tensor *x = randn2(2, 3), *w = randn2(3, 4), *b = randn2(1, 4);
  ct_tensor* wb[2] = {w, b};
  const ct_tensor* one[1] = {x};
  ct_program* p = export_or_exit(linear_relu, wb, one, 1, 1, NULL);
  save_all("linear_relu", p);
  ct_program_release(p);

  ct_tensor *u = randn2(4, 8), *v = randn2(4, 8);
  const ct_tensor* two[2] = {u, v};
  ct_dynamic_shapes* dims = NULL;
  TRY(ct_dynamic_shapes_create(&dims));
  for (size_t i = 0; i < 2; ++i) TRY(ct_dynamic_shapes_set_dim(dims, i, 0, "batch", 1, 1024));
  p = export_or_exit(chain, NULL, two, 2, 1, dims);
  save_all("chain_batch", p);
  ct_program_release(p);
  ct_dynamic_shapes_release(dims);

  TRY(ct_dynamic_shapes_create(&dims));
  TRY(ct_dynamic_shapes_set_dim(dims, 0, 0, "n", 2, 64));
  p = export_or_exit(views, NULL, two, 1, 2, dims);
  save_all("views_guarded", p);
  ct_program_release(p);
  ct_dynamic_shapes_release(dims);

  const int64_t imat[6] = {3, -1, 0, 7, -5, 2}, isizes[2] = {2, 3};
  ct_tensor* im = NULL;
  TRY(ct_tensor_from_data(imat, isizes, 2, CT_INT64, &im));
  const ct_tensor* ione[1] = {im};
  p = export_or_exit(ints, NULL, ione, 1, 3, NULL);
  save_all("ints", p);
  ct_program_release(p);

  const float values[6] = {0.5f, 3.0f, -1.0f, 7.0f, 2.0f, 4.0f};
  const int64_t row[2] = {1, 6}, five = 5;
  ct_tensor *vals = NULL, *k_meta = NULL, *k_int = NULL;
  TRY(ct_tensor_from_data(values, row, 2, CT_FLOAT32, &vals));
  TRY(ct_tensor_empty(&five, 1, CT_FLOAT32, "meta", &k_meta));
  TRY(ct_tensor_from_data(&five, NULL, 0, CT_INT64, &k_int));
  const ct_tensor* by_size[2] = {vals, k_meta};
  const ct_tensor* by_value[2] = {vals, k_int};
  TRY(ct_dynamic_shapes_create(&dims));
  TRY(ct_dynamic_shapes_set_dim(dims, 1, 0, "k", 1, 6));
  p = export_or_exit(topk, NULL, by_size, 2, 2, dims);
  save_all("topk_size", p);
  ct_program_release(p);
  ct_dynamic_shapes_release(dims);
  p = export_or_exit(topk, (void*)1, by_value, 2, 2, NULL);
  save_all("topk_item", p);
  ct_program_release(p);

  ct_tensor* all[] = {x, w, b, u, v, im, vals, k_meta, k_int};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) ct_tensor_release(all[i]);
  return 0;
}
