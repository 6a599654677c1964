/* Rearranging and splitting: repeat, roll, flip, tril, triu, diagonal, movedim, broadcast_to, pad,
 * and the lists of views split, split_with_sizes, chunk and unbind. */
#include "capi_test.h"

/* a = [[0, 1, 2], [3, 4, 5]] float32 */
static ct_tensor* mat23(void) { return T(CT_FLOAT32, S(2, 3), 0, 1, 2, 3, 4, 5); }

static void test_repeat_tiles(void) {
  ct_tensor* a = mat23();
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_repeat(a, S(1, 2), &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(2, 6), 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5);
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_repeat(a, S(2, 1, 1), &out));
  CHECK_META(out, CT_FLOAT32, S(2, 2, 3));
  RELEASE(a, out);
}

static void test_repeat_bad_input(void) {
  ct_tensor* a = mat23();
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_repeat(a, S(2), &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("repeat");
  CHECK_STATUS(ct_tensor_repeat(a, S(-1, 2), &out), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_repeat(a, NULL, 2, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_repeat(NULL, S(1, 1), &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_repeat(a, S(1, 1), NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* r = capi_released();
  CHECK_STATUS(ct_tensor_repeat(r, S(1, 1), &out), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor_release(a);
}

static void test_roll_along_dims_and_flattened(void) {
  ct_tensor* a = mat23();
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_roll(a, SZ(1), SZ(1), 1, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(2, 3), 2, 0, 1, 5, 3, 4);
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_roll(a, SZ(-1, 1), SZ(1, 0), 2, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(2, 3), 4, 5, 3, 1, 2, 0);
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_roll(a, SZ(2), NULL, 1, &out)); /* flattened */
  CHECK_TENSOR(out, CT_FLOAT32, S(2, 3), 4, 5, 0, 1, 2, 3);
  ct_tensor_release(out);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_roll(a, SZ(1, 1), NULL, 2, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_roll(a, NULL, NULL, 0, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_roll(a, SZ(1), SZ(2), 1, &out), CT_ERROR_INDEX);
  ct_tensor_release(a);
}

static void test_flip_reverses(void) {
  ct_tensor* a = mat23();
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_flip(a, S(1), &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(2, 3), 2, 1, 0, 5, 4, 3);
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_flip(a, S(0, -1), &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(2, 3), 5, 4, 3, 2, 1, 0);
  ct_tensor_release(out);
  ct_tensor* t = NULL; /* a non-contiguous input */
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t));
  CHECK_OK(ct_tensor_flip(t, S(0), &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(3, 2), 2, 5, 1, 4, 0, 3);
  ct_tensor_release(out);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_flip(a, S(0, 0), &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_flip(a, S(2), &out), CT_ERROR_INDEX);
  CHECK_STATUS(ct_tensor_flip(a, NULL, 1, &out), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(a, t);
}

static void test_tril_triu(void) {
  ct_tensor* a = T(CT_INT32, S(3, 3), 1, 2, 3, 4, 5, 6, 7, 8, 9);
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_tril(a, 0, &out));
  CHECK_TENSOR(out, CT_INT32, S(3, 3), 1, 0, 0, 4, 5, 0, 7, 8, 9);
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_triu(a, 1, &out));
  CHECK_TENSOR(out, CT_INT32, S(3, 3), 0, 2, 3, 0, 0, 6, 0, 0, 0);
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_tril(a, -1, &out));
  CHECK_TENSOR(out, CT_INT32, S(3, 3), 0, 0, 0, 4, 0, 0, 7, 8, 0);
  ct_tensor_release(out);
  ct_tensor* v = T(CT_INT32, S(3), 1, 2, 3);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_tril(v, 0, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_triu(NULL, 0, &out), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(a, v);
}

static void test_diagonal_is_a_view(void) {
  ct_tensor* a = mat23();
  ct_tensor* d = NULL;
  CHECK_OK(ct_tensor_diagonal(a, 0, 0, 1, &d));
  CHECK_TENSOR(d, CT_FLOAT32, S(2), 0, 4);
  ct_tensor* d1 = NULL;
  CHECK_OK(ct_tensor_diagonal(a, 1, 0, 1, &d1));
  CHECK_TENSOR(d1, CT_FLOAT32, S(2), 1, 5);
  ct_tensor* dn = NULL;
  CHECK_OK(ct_tensor_diagonal(a, -1, 1, 0, &dn)); /* dims swapped: a[i][i + 1] */
  CHECK_TENSOR(dn, CT_FLOAT32, S(2), 1, 5);
  ct_scalar ten = SI(10);
  CHECK_OK(ct_tensor_add_scalar_(a, &ten)); /* writes through a are seen through the view */
  CHECK_TENSOR(d, CT_FLOAT32, S(2), 10, 14);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_diagonal(a, 0, 1, 1, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_diagonal(a, 0, 0, 2, &out), CT_ERROR_INDEX);
  ct_tensor* v = T(CT_FLOAT32, S(3), 1, 2, 3);
  CHECK_STATUS(ct_tensor_diagonal(v, 0, 0, 1, &out), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_diagonal(NULL, 0, 0, 1, &out), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(a, d, d1, dn, v);
}

static void test_diag_of_a_huge_offset_is_refused_before_allocating(void) {
  /* Found by the sequence fuzzer: diag(x, 2^32) allocated 16 GiB of padding before the n x n
   * matrix's size (2^64 elements) overflowed. */
  ct_tensor* v = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* out = SENTINEL;
  const int64_t offsets[] = {(int64_t)1 << 32, -((int64_t)1 << 32), INT64_MAX, INT64_MIN};
  for (size_t i = 0; i < sizeof offsets / sizeof *offsets; ++i) {
    ct_value args[] = {VT(v), VI(offsets[i])};
    out = SENTINEL;
    CHECK_STATUS(ct_op_call("diag", args, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_ERROR_CONTAINS("diag");
  }
  ct_value args[] = {VT(v), VI(-1)};
  CHECK_OK(ct_op_call("diag", args, 2, &out, 1)); /* [4, 4] with v below the main diagonal */
  int64_t sizes[2] = {0, 0};
  CHECK_OK(ct_tensor_sizes(out, sizes, 2));
  CHECK(sizes[0] == 4 && sizes[1] == 4);
  RELEASE(v, out);
}

static void test_movedim_and_broadcast_to(void) {
  ct_tensor* a = NULL;
  CHECK_OK(ct_tensor_zeros(S(2, 3, 4), CT_FLOAT32, NULL, &a));
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_movedim(a, SZ(0), SZ(2), 1, &out));
  CHECK_META(out, CT_FLOAT32, S(3, 4, 2));
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_movedim(a, SZ(2, 0), SZ(0, 1), 2, &out));
  CHECK_META(out, CT_FLOAT32, S(4, 2, 3));
  ct_tensor_release(out);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_movedim(a, SZ(0, 0), SZ(1, 2), 2, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_movedim(a, NULL, SZ(1), 1, &out), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* v = T(CT_INT64, S(3, 1), 1, 2, 3);
  CHECK_OK(ct_tensor_broadcast_to(v, S(2, 3, 2), &out));
  CHECK_TENSOR(out, CT_INT64, S(2, 3, 2), 1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3);
  ct_tensor_release(out);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_broadcast_to(v, S(3, 2, 2), &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  RELEASE(a, v);
}

static void test_pad_modes(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1, 3), 1, 2, 3);
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_pad(a, S(2, 1), NULL, NULL, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(1, 6), 0, 0, 1, 2, 3, 0);
  ct_tensor_release(out);
  ct_scalar v = SF(-1.5);
  CHECK_OK(ct_tensor_pad(a, S(1, -1), "constant", &v, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(1, 3), -1.5, 1, 2);
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_pad(a, S(2, 2), "reflect", NULL, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(1, 7), 3, 2, 1, 2, 3, 2, 1);
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_pad(a, S(2, 1), "replicate", NULL, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(1, 6), 1, 1, 1, 2, 3, 3);
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_pad(a, S(1, 2), "circular", NULL, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(1, 6), 3, 1, 2, 3, 1, 2);
  ct_tensor_release(out);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_pad(a, S(3, 0), "reflect", NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_pad(a, S(1, 1), "reflect", &v, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_pad(a, S(1, 1), "mirror", NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("mirror");
  CHECK_STATUS(ct_tensor_pad(a, S(1, 1, 1), NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_pad(a, S(-2, -2), NULL, NULL, &out), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_pad(a, NULL, 2, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_pad(a, S(4, 0), "circular", NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_pad(a, S(-1, 0), "replicate", NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_pad(a, S(1, 1, 1, 1), "replicate", NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("replicate");
  CHECK_STATUS(ct_tensor_pad(a, S(1, 1), "reflect", NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* e = NULL; /* only the batch dim may be empty */
  CHECK_OK(ct_tensor_zeros(S(2, 0), CT_FLOAT32, NULL, &e));
  CHECK_STATUS(ct_tensor_pad(e, S(1, 1), "replicate", NULL, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  RELEASE(a, e);
}

static void test_split_counts_then_fills(void) {
  ct_tensor* a = T(CT_FLOAT32, S(5), 0, 1, 2, 3, 4);
  size_t count = 99;
  CHECK_OK(ct_tensor_split(a, 2, 0, NULL, 0, &count));
  CHECK(count == 3);
  ct_tensor* outs[3] = {NULL, NULL, NULL};
  CHECK_OK(ct_tensor_split(a, 2, 0, outs, 3, &count));
  CHECK(count == 3);
  CHECK_TENSOR(outs[0], CT_FLOAT32, S(2), 0, 1);
  CHECK_TENSOR(outs[1], CT_FLOAT32, S(2), 2, 3);
  CHECK_TENSOR(outs[2], CT_FLOAT32, S(1), 4);
  ct_scalar one = SI(1);
  CHECK_OK(ct_tensor_add_scalar_(a, &one)); /* the pieces are views */
  CHECK_TENSOR(outs[2], CT_FLOAT32, S(1), 5);
  RELEASE(outs[0], outs[1], outs[2]);
  ct_tensor* small[2] = {SENTINEL, SENTINEL};
  CHECK_STATUS(ct_tensor_split(a, 2, 0, small, 2, &count), CT_ERROR_INVALID_ARGUMENT);
  CHECK(count == 3); /* still says how many are needed */
  CHECK(small[0] == SENTINEL && small[1] == SENTINEL); /* and writes no slot */
  ct_tensor_release(a);
}

static void test_split_with_sizes_chunk_unbind(void) {
  ct_tensor* a = mat23();
  ct_tensor* outs[4] = {NULL, NULL, NULL, NULL};
  size_t count = 0;
  CHECK_OK(ct_tensor_split_with_sizes(a, S(1, 2), 1, outs, 4, &count));
  CHECK(count == 2);
  CHECK_TENSOR(outs[0], CT_FLOAT32, S(2, 1), 0, 3);
  CHECK_TENSOR(outs[1], CT_FLOAT32, S(2, 2), 1, 2, 4, 5);
  CHECK(outs[2] == NULL && outs[3] == NULL);
  RELEASE(outs[0], outs[1]);
  CHECK_OK(ct_tensor_chunk(a, 2, -1, outs, 4, &count));
  CHECK(count == 2);
  CHECK_TENSOR(outs[0], CT_FLOAT32, S(2, 2), 0, 1, 3, 4);
  CHECK_TENSOR(outs[1], CT_FLOAT32, S(2, 1), 2, 5);
  RELEASE(outs[0], outs[1]);
  CHECK_OK(ct_tensor_unbind(a, 1, outs, 4, &count));
  CHECK(count == 3);
  CHECK_TENSOR(outs[0], CT_FLOAT32, S(2), 0, 3);
  CHECK_TENSOR(outs[2], CT_FLOAT32, S(2), 2, 5);
  RELEASE(outs[0], outs[1], outs[2]);
  ct_tensor* e = NULL; /* an empty dim chunks into `chunks` empty pieces */
  CHECK_OK(ct_tensor_zeros(S(0, 2), CT_FLOAT32, NULL, &e));
  CHECK_OK(ct_tensor_chunk(e, 3, 0, outs, 4, &count));
  CHECK(count == 3);
  CHECK_META(outs[1], CT_FLOAT32, S(0, 2));
  RELEASE(outs[0], outs[1], outs[2], e);
}

static void test_lists_bad_input(void) {
  ct_tensor* a = mat23();
  ct_tensor* outs[4] = {SENTINEL, SENTINEL, SENTINEL, SENTINEL};
  size_t count = 7;
  CHECK_STATUS(ct_tensor_split(a, 1, 0, outs, 4, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_split(a, 1, 0, NULL, 4, &count), CT_ERROR_INVALID_ARGUMENT);
  CHECK(count == 0);
  CHECK_STATUS(ct_tensor_split(NULL, 1, 0, outs, 4, &count), CT_ERROR_INVALID_ARGUMENT);
  CHECK(outs[0] == SENTINEL && outs[3] == SENTINEL); /* a failure writes no slot */
  /* A capacity larger than the array is harmless: only outs[0, *count) is ever written. */
  ct_tensor* two[2] = {SENTINEL, SENTINEL};
  CHECK_OK(ct_tensor_split(a, 1, 0, two, (size_t)1 << 40, &count));
  CHECK(count == 2);
  RELEASE(two[0], two[1]);
  CHECK_STATUS(ct_tensor_split(a, -1, 0, outs, 4, &count), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_split(a, 0, 0, outs, 4, &count), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_split(a, 1, 2, outs, 4, &count), CT_ERROR_INDEX);
  CHECK_STATUS(ct_tensor_split_with_sizes(a, S(1, 1), 1, outs, 4, &count), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("sum");
  CHECK_STATUS(ct_tensor_split_with_sizes(a, NULL, 2, 1, outs, 4, &count), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_chunk(a, 0, 0, outs, 4, &count), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_split_with_sizes(a, S(4, -1), 1, outs, 4, &count), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_unbind(a, -3, outs, 4, &count), CT_ERROR_INDEX);
  ct_tensor* z = T(CT_FLOAT32, S0, 1);
  CHECK_STATUS(ct_tensor_unbind(z, 0, outs, 4, &count), CT_ERROR_INDEX);
  CHECK_STATUS(ct_tensor_split(z, 1, 0, outs, 4, &count), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_chunk(z, 1, 0, outs, 4, &count), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_split_with_sizes(z, S(1), 0, outs, 4, &count), CT_ERROR_SHAPE);
  ct_tensor* r = capi_released();
  CHECK_STATUS(ct_tensor_unbind(r, 0, outs, 4, &count), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(a, z);
}

static void test_gradient_flows_through_split(void) {
  ct_tensor* x = T(CT_FLOAT64, S(4), 1, 2, 3, 4);
  CHECK_OK(ct_tensor_set_requires_grad(x, 1));
  ct_tensor* parts[2] = {NULL, NULL};
  size_t count = 0;
  CHECK_OK(ct_tensor_split(x, 2, 0, parts, 2, &count));
  ct_scalar three = SI(3);
  ct_tensor *scaled = NULL, *s0 = NULL, *s1 = NULL, *total = NULL;
  CHECK_OK(ct_tensor_mul_scalar(parts[1], &three, &scaled));
  CHECK_OK(ct_tensor_sum(parts[0], NULL, 0, 0, &s0));
  CHECK_OK(ct_tensor_sum(scaled, NULL, 0, 0, &s1));
  CHECK_OK(ct_tensor_add(s0, s1, &total));
  CHECK_OK(ct_tensor_backward(total, NULL, 0));
  ct_tensor* g = NULL;
  CHECK_OK(ct_tensor_grad(x, &g));
  CHECK_TENSOR(g, CT_FLOAT64, S(4), 1, 1, 3, 3);
  RELEASE(x, parts[0], parts[1], scaled, s0, s1, total, g);
}

static void test_on_meta(void) {
  ct_tensor* m = NULL;
  CHECK_OK(ct_tensor_empty(S(2, 3, 4), CT_FLOAT32, "meta", &m));
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_repeat(m, S(2, 1, 1), &out));
  CHECK_META(out, CT_FLOAT32, S(4, 3, 4));
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_flip(m, S(1), &out));
  CHECK_META(out, CT_FLOAT32, S(2, 3, 4));
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_triu(m, 0, &out));
  CHECK_META(out, CT_FLOAT32, S(2, 3, 4));
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_pad(m, S(1, 1, 2, 2), "reflect", NULL, &out));
  CHECK_META(out, CT_FLOAT32, S(2, 7, 6));
  ct_tensor_release(out);
  ct_tensor* outs[3] = {NULL, NULL, NULL};
  size_t count = 0;
  CHECK_OK(ct_tensor_chunk(m, 3, 1, outs, 3, &count));
  CHECK(count == 3);
  CHECK_META(outs[2], CT_FLOAT32, S(2, 1, 4));
  RELEASE(outs[0], outs[1], outs[2], m);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_repeat_tiles),
    CAPI_TEST(test_repeat_bad_input),
    CAPI_TEST(test_roll_along_dims_and_flattened),
    CAPI_TEST(test_flip_reverses),
    CAPI_TEST(test_tril_triu),
    CAPI_TEST(test_diagonal_is_a_view),
    CAPI_TEST(test_diag_of_a_huge_offset_is_refused_before_allocating),
    CAPI_TEST(test_movedim_and_broadcast_to),
    CAPI_TEST(test_pad_modes),
    CAPI_TEST(test_split_counts_then_fills),
    CAPI_TEST(test_split_with_sizes_chunk_unbind),
    CAPI_TEST(test_lists_bad_input),
    CAPI_TEST(test_gradient_flows_through_split),
    CAPI_TEST(test_on_meta),
};
CAPI_MAIN(TESTS)
