/*
 * test_generated_ops.c - the typed C functions of ctorch_ops.h, generated from the operator
 * registry: values through each kind of argument the generator maps (optional pointers, lists with
 * their lengths, Scalars with and without defaults, dtypes, strings, generators, in-place selves,
 * several results), the same bits as ct_op_call, and the failures every function shares.
 */
#include <math.h>

#include "capi_test.h"

static int64_t live_tensors(void) {
  int64_t n = -1;
  return ct_metric_get("tensors.live", &n) == CT_OK ? n : -1;
}

static void test_binary_and_scalar_overloads(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), 1, -2, 3);
  ct_tensor* b = T(CT_FLOAT32, S(3), -1, 1, -0.0);
  ct_tensor *out = NULL, *out2 = NULL, *out3 = NULL;
  CHECK_OK(ct_tensor_copysign(a, b, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(3), -1, 2, -3);
  ct_scalar neg = SF(-1);
  CHECK_OK(ct_tensor_copysign_scalar(a, &neg, &out2));
  CHECK_TENSOR(out2, CT_FLOAT32, S(3), -1, -2, -3);
  /* xlogy.Scalar_Self: a number first, then a tensor; an int number and a float tensor give float. */
  ct_tensor* e = T(CT_FLOAT32, S(2), 1, 2.718281828459045);
  ct_scalar two = SI(2);
  CHECK_OK(ct_tensor_xlogy_scalar_self(&two, e, &out3));
  CHECK_TENSOR_NEAR(out3, CT_FLOAT32, 1e-6, S(2), 0, 2);
  RELEASE(a, b, e, out, out2, out3);
}

static void test_same_bits_as_op_call(void) {
  ct_tensor* a = T(CT_FLOAT32, S(4), 0, 1, -30, 88);
  ct_tensor* b = T(CT_FLOAT32, S(4), 0, 1.5, -31, 2);
  ct_tensor *typed = NULL, *boxed = NULL;
  CHECK_OK(ct_tensor_logaddexp(a, b, &typed));
  CHECK_TENSOR_NEAR(typed, CT_FLOAT32, 1e-6, S(4), 0.69314718, 1.97407698, -29.68673831, 88);
  const ct_value args[] = {VT(a), VT(b)};
  CHECK_OK(ct_op_call("logaddexp", args, 2, &boxed, 1));
  float x[4], y[4];
  CHECK_OK(ct_tensor_copy_to(typed, x, sizeof x));
  CHECK_OK(ct_tensor_copy_to(boxed, y, sizeof y));
  CHECK(memcmp(x, y, sizeof x) == 0);
  RELEASE(a, b, typed, boxed);
}

static void test_two_results_named_by_the_schema(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), 8, 0.75, -3);
  ct_tensor *mantissa = NULL, *exponent = NULL;
  CHECK_OK(ct_tensor_frexp(a, &mantissa, &exponent));
  CHECK_TENSOR(mantissa, CT_FLOAT32, S(3), 0.5, 0.75, -0.75);
  CHECK_TENSOR(exponent, CT_INT32, S(3), 4, 0, 2);
  RELEASE(mantissa, exponent);
  /* One out pointer missing: both are NULL afterwards and nothing is made. */
  mantissa = SENTINEL;
  int64_t before = live_tensors();
  CHECK_STATUS(ct_tensor_frexp(a, &mantissa, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK(mantissa == NULL);
  CHECK_ERROR_CONTAINS("ct_tensor_frexp");
  CHECK_ERROR_CONTAINS("exponent");
  CHECK(live_tensors() == before);
  RELEASE(a);
}

static void test_unnamed_results_and_optional_arguments(void) {
  ct_tensor* a = T(CT_FLOAT32, S(4), 1, 2, 3, 4);
  ct_tensor *var = NULL, *mean = NULL;
  /* dim NULL (None: every dim), correction NULL (None: 1). */
  CHECK_OK(ct_tensor_var_mean_correction(a, NULL, 0, NULL, 0, &var, &mean));
  CHECK_TENSOR_NEAR(var, CT_FLOAT32, 1e-6, S0, 1.6666667);
  CHECK_TENSOR(mean, CT_FLOAT32, S0, 2.5);
  RELEASE(var, mean);
  ct_scalar zero = SI(0);
  const int64_t dims[] = {0};
  CHECK_OK(ct_tensor_var_mean_correction(a, dims, 1, &zero, 1, &var, &mean));
  CHECK_TENSOR(var, CT_FLOAT32, S(1), 1.25);
  CHECK_TENSOR(mean, CT_FLOAT32, S(1), 2.5);
  RELEASE(var, mean);

  ct_tensor *p = NULL, *q = NULL;
  ct_tensor* half = T(CT_FLOAT32, S(2), 0.25, 0.5);
  CHECK_OK(ct_tensor_logit(half, NULL, &p));
  CHECK_TENSOR_NEAR(p, CT_FLOAT32, 1e-6, S(2), -1.09861229, 0);
  const double eps = 0.3;
  CHECK_OK(ct_tensor_logit(half, &eps, &q));
  CHECK_TENSOR_NEAR(q, CT_FLOAT32, 1e-6, S(2), -0.84729786, 0);
  RELEASE(a, half, p, q);
}

static void test_lists_scalar_defaults_and_dtypes(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor *padded = NULL, *nines = NULL;
  const int64_t pad[] = {1, 2};
  CHECK_OK(ct_tensor_constant_pad_nd(a, pad, 2, NULL, &padded)); /* value NULL: 0 */
  CHECK_TENSOR(padded, CT_FLOAT32, S(5), 0, 1, 2, 0, 0);
  ct_scalar nine = SF(9);
  CHECK_OK(ct_tensor_constant_pad_nd(a, pad, 2, &nine, &nines));
  CHECK_TENSOR(nines, CT_FLOAT32, S(5), 9, 1, 2, 9, 9);

  ct_tensor* i = T(CT_INT32, S(3), 1, 2, 3);
  ct_tensor *prod = NULL, *prod64 = NULL;
  CHECK_OK(ct_tensor_cumprod(i, 0, NULL, &prod)); /* integers accumulate in int64 */
  CHECK_TENSOR(prod, CT_INT64, S(3), 1, 2, 6);
  const ct_dtype f64 = CT_FLOAT64;
  CHECK_OK(ct_tensor_cumprod(i, 0, &f64, &prod64));
  CHECK_TENSOR(prod64, CT_FLOAT64, S(3), 1, 2, 6);
  ct_tensor* bad = SENTINEL;
  const ct_dtype not_a_dtype = (ct_dtype)99;
  CHECK_STATUS(ct_tensor_cumprod(i, 0, &not_a_dtype, &bad), CT_ERROR_INVALID_ARGUMENT);
  CHECK(bad == NULL);
  CHECK_ERROR_CONTAINS("ct_tensor_cumprod");

  ct_tensor* w = T(CT_FLOAT32, S(3, 2), 1, 2, 3, 4, 5, 6);
  ct_tensor* idx = T(CT_INT64, S(2), 2, 0);
  ct_tensor* rows = NULL;
  CHECK_OK(ct_tensor_embedding(w, idx, -1, 0, 0, &rows));
  CHECK_TENSOR(rows, CT_FLOAT32, S(2, 2), 5, 6, 1, 2);
  RELEASE(a, padded, nines, i, prod, prod64, w, idx, rows);
}

static void test_strings_bools_and_in_place(void) {
  ct_tensor* self = T(CT_FLOAT32, S(3), 0, 0, 0);
  ct_tensor* index = T(CT_INT64, S(3), 0, 0, 2);
  ct_tensor* src = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor *sum = NULL, *amax = NULL, *none = SENTINEL;
  CHECK_OK(ct_tensor_scatter_reduce(self, 0, index, src, "sum", 1, &sum));
  CHECK_TENSOR(sum, CT_FLOAT32, S(3), 3, 0, 3);
  CHECK_OK(ct_tensor_scatter_reduce(self, 0, index, src, "amax", 0, &amax));
  CHECK_TENSOR(amax, CT_FLOAT32, S(3), 2, 0, 3);
  CHECK_STATUS(ct_tensor_scatter_reduce(self, 0, index, src, NULL, 1, &none), CT_ERROR_INVALID_ARGUMENT);
  CHECK(none == NULL);
  CHECK_ERROR_CONTAINS("reduce");

  ct_tensor* v = T(CT_FLOAT32, S(4), 3, 1, 2, 1);
  ct_tensor *values = NULL, *indices = NULL;
  const int stable = 1;
  CHECK_OK(ct_tensor_sort_stable(v, &stable, -1, 0, &values, &indices));
  CHECK_TENSOR(values, CT_FLOAT32, S(4), 1, 1, 2, 3);
  CHECK_TENSOR(indices, CT_INT64, S(4), 1, 3, 2, 0);

  /* In place: self is written, nothing is returned. */
  ct_tensor* g = T(CT_FLOAT32, S(3), 1, 3, 0.5);
  CHECK_OK(ct_tensor_lgamma_(g));
  CHECK_TENSOR_NEAR(g, CT_FLOAT32, 1e-6, S(3), 0, 0.69314718, 0.57236494);
  CHECK_STATUS(ct_tensor_lgamma_(capi_released()), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("ct_tensor_lgamma_");

  ct_tensor* one = T(CT_FLOAT64, S(1), 1);
  ct_tensor* tri = NULL;
  CHECK_OK(ct_tensor_polygamma(1, one, &tri)); /* the int comes first, as in the schema */
  /* torch.polygamma's value: its zeta series and ctorch's stop 5e-10 short of pi^2 / 6. */
  CHECK_TENSOR_NEAR(tri, CT_FLOAT64, 1e-13, S(1), 1.6449340676383375);
  RELEASE(self, index, src, sum, amax, v, values, indices, g, one, tri);
}

static void test_generator_argument(void) {
  ct_generator* gen = NULL;
  CHECK_OK(ct_generator_create("cpu", &gen));
  ct_tensor* shape = TE(CT_FLOAT32, S(64));
  ct_tensor *x = NULL, *y = NULL;
  CHECK_OK(ct_generator_manual_seed(gen, 7));
  CHECK_OK(ct_tensor_bernoulli_p(shape, 0.5, gen, &x));
  CHECK_OK(ct_generator_manual_seed(gen, 7));
  CHECK_OK(ct_tensor_bernoulli_p(shape, 0.5, gen, &y));
  float a[64], b[64];
  CHECK_OK(ct_tensor_copy_to(x, a, sizeof a));
  CHECK_OK(ct_tensor_copy_to(y, b, sizeof b));
  CHECK(memcmp(a, b, sizeof a) == 0);
  int ones = 0;
  for (int k = 0; k < 64; ++k) {
    CHECK(a[k] == 0 || a[k] == 1);
    ones += a[k] == 1;
  }
  CHECK(ones > 8 && ones < 56);
  ct_tensor* z = NULL;
  CHECK_OK(ct_tensor_bernoulli_p(shape, 1.0, NULL, &z)); /* NULL: the default generator */
  CHECK_OK(ct_tensor_copy_to(z, a, sizeof a));
  for (int k = 0; k < 64; ++k) CHECK(a[k] == 1);
  ct_generator_release(gen);
  RELEASE(shape, x, y, z);
}

static void test_bad_handles_shapes_and_outs(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* b = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_copysign(NULL, a, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("ct_tensor_copysign");
  CHECK_ERROR_CONTAINS("self");
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_copysign(a, capi_released(), &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("other");
  CHECK_STATUS(ct_tensor_copysign(a, a, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("out");
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_copysign(a, b, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("copysign");
  /* gcd takes integers only. */
  CHECK_STATUS(ct_tensor_gcd(a, a, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  RELEASE(a, b);
}

/* The composite operators torch code meets first: max in its forms, nansum, isclose, fill_. */
static void test_extrema_nansum_isclose_fill(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 5, 2, 7, -1, 7);
  ct_tensor *all = NULL, *values = NULL, *indices = NULL, *both = NULL;
  CHECK_OK(ct_tensor_max(a, &all));
  CHECK_TENSOR(all, CT_FLOAT32, S0, 7);
  CHECK_OK(ct_tensor_max_dim(a, 1, 0, &values, &indices));
  CHECK_TENSOR(values, CT_FLOAT32, S(2), 5, 7);
  CHECK_TENSOR(indices, CT_INT64, S(2), 1, 0); /* ties: the first index */
  ct_tensor* b = T(CT_FLOAT32, S(3), 2, 2, 2);
  CHECK_OK(ct_tensor_min_other(a, b, &both));
  CHECK_TENSOR(both, CT_FLOAT32, S(2, 3), 1, 2, 2, 2, -1, 2);
  RELEASE(all, values, indices, both);
  ct_tensor* empty = TE(CT_FLOAT32, S(0, 3));
  all = SENTINEL;
  CHECK_STATUS(ct_tensor_max(empty, &all), CT_ERROR_SHAPE);
  CHECK(all == NULL);
  CHECK_ERROR_CONTAINS("max");

  ct_tensor* n = T(CT_FLOAT32, S(2, 2), NAN, 1, 2, NAN);
  ct_tensor *sum = NULL, *close = NULL;
  const int64_t dim0[] = {0};
  CHECK_OK(ct_tensor_nansum(n, dim0, 1, 0, NULL, &sum));
  CHECK_TENSOR(sum, CT_FLOAT32, S(2), 2, 1);
  ct_tensor* m = T(CT_FLOAT32, S(2, 2), NAN, 1.000005, 2.1, 0);
  CHECK_OK(ct_tensor_isclose(n, m, 1e-5, 1e-8, 1, &close));
  CHECK_TENSOR(close, CT_BOOL, S(2, 2), 1, 1, 0, 0);
  RELEASE(sum, close, m);

  ct_scalar three = SI(3);
  CHECK_OK(ct_tensor_fill_scalar_(n, &three));
  CHECK_TENSOR(n, CT_FLOAT32, S(2, 2), 3, 3, 3, 3);
  CHECK_OK(ct_tensor_zero_(n));
  CHECK_TENSOR(n, CT_FLOAT32, S(2, 2), 0, 0, 0, 0);
  CHECK_STATUS(ct_tensor_fill_(n, b), CT_ERROR_SHAPE); /* the value must be 0-dim */
  CHECK_ERROR_CONTAINS("fill_");
  RELEASE(a, b, empty, n);
}

/* Functions of torch.nn.functional and torch that models and data code call: distances,
 * one_hot, pixel_shuffle, a margin loss, diff, the stacking functions, a factory, clamp_. */
static void test_nn_functions_stacks_and_factories(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 2), 3, 4, 1, 0);
  ct_tensor* b = T(CT_FLOAT32, S(2, 2), 3, 4, 0, 1);
  ct_tensor *cos = NULL, *dist = NULL, *classes = NULL, *hot = NULL, *x = NULL, *up = NULL;
  CHECK_OK(ct_tensor_cosine_similarity(a, b, 1, 1e-8, &cos));
  CHECK_TENSOR_NEAR(cos, CT_FLOAT32, 1e-6, S(2), 1, 0);
  CHECK_OK(ct_tensor_cdist(a, b, 1.0, NULL, &dist)); /* L1 distances of every row pair */
  CHECK_TENSOR(dist, CT_FLOAT32, S(2, 2), 0, 6, 6, 2);
  ct_tensor* v3 = T(CT_FLOAT32, S(3), 1, 2, 3);
  dist = SENTINEL;
  CHECK_STATUS(ct_tensor_cdist(a, v3, 2.0, NULL, &dist), CT_ERROR_SHAPE);
  CHECK(dist == NULL);
  CHECK_ERROR_CONTAINS("cdist");
  classes = T(CT_INT64, S(3), 2, 0, 1);
  CHECK_OK(ct_tensor_one_hot(classes, -1, &hot));
  CHECK_TENSOR(hot, CT_INT64, S(3, 3), 0, 0, 1, 1, 0, 0, 0, 1, 0);
  x = T(CT_FLOAT32, S(1, 4, 1, 2), 0, 1, 2, 3, 4, 5, 6, 7);
  CHECK_OK(ct_tensor_pixel_shuffle(x, 2, &up));
  CHECK_TENSOR(up, CT_FLOAT32, S(1, 1, 2, 4), 0, 2, 1, 3, 4, 6, 5, 7);
  RELEASE(cos, hot, up);

  ct_tensor *anchor = T(CT_FLOAT32, S(1, 2), 0, 0), *pos = T(CT_FLOAT32, S(1, 2), 1, 0);
  ct_tensor *neg = T(CT_FLOAT32, S(1, 2), 3, 0), *loss = NULL;
  CHECK_OK(ct_tensor_triplet_margin_loss(anchor, pos, neg, 3.0, 2.0, 0.0, 0, 0, &loss));
  CHECK_TENSOR_NEAR(loss, CT_FLOAT32, 1e-6, S(1), 1);
  RELEASE(anchor, pos, neg, loss);

  ct_tensor *sq = T(CT_FLOAT64, S(4), 1, 4, 9, 16), *d = NULL, *stacked = NULL, *idx = NULL;
  CHECK_OK(ct_tensor_diff(sq, 2, -1, NULL, NULL, &d));
  CHECK_TENSOR(d, CT_FLOAT64, S(2), 2, 2);
  const ct_tensor* rows[] = {sq, sq};
  CHECK_OK(ct_tensor_vstack(rows, 2, &stacked));
  CHECK_TENSOR(stacked, CT_FLOAT64, S(2, 4), 1, 4, 9, 16, 1, 4, 9, 16);
  CHECK_OK(ct_tensor_tril_indices(3, 3, 0, NULL, NULL, &idx));
  CHECK_TENSOR(idx, CT_INT64, S(2, 6), 0, 1, 1, 2, 2, 2, 0, 0, 1, 0, 1, 2);
  ct_tensor *img = T(CT_FLOAT32, S(1, 1, 2, 2), 0, 1, 2, 3), *big = NULL;
  const int64_t four[] = {4, 4};
  CHECK_OK(ct_tensor_upsample_nearest2d(img, four, 2, NULL, NULL, &big));
  CHECK_TENSOR(big, CT_FLOAT32, S(1, 1, 4, 4), 0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3);
  ct_tensor_release(big);
  const int64_t three[] = {3, 3};
  CHECK_OK(ct_tensor_upsample_bilinear2d(img, three, 2, 1, NULL, NULL, &big)); /* align_corners: the midpoints */
  CHECK_TENSOR(big, CT_FLOAT32, S(1, 1, 3, 3), 0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3);
  RELEASE(img, big);
  const ct_scalar lo = SI(2), hi = SI(9);
  CHECK_OK(ct_tensor_clamp_(sq, &lo, &hi));
  CHECK_TENSOR(sq, CT_FLOAT64, S(4), 2, 4, 9, 9);
  RELEASE(d, stacked, idx, sq, a, b, v3, classes, x, dist);
}

static void test_upsample_of_an_empty_batch_to_a_huge_size_runs_out_of_memory(void) {
  /* Found by the sequence fuzzer: the result of an empty batch has no elements, but the plan holds a
   * source index per output position, and a 2^40-wide plan must fail as memory, not abort. */
  ct_tensor *img = NULL, *out = SENTINEL;
  CHECK_OK(ct_tensor_zeros(S(0, 1, 2, 2), CT_FLOAT32, NULL, &img));
  const int64_t huge[] = {2, (int64_t)1 << 40};
  CHECK_STATUS(ct_tensor_upsample_nearest2d(img, huge, 2, NULL, NULL, &out), CT_ERROR_OUT_OF_MEMORY);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_upsample_bilinear2d(img, huge, 2, 0, NULL, NULL, &out), CT_ERROR_OUT_OF_MEMORY);
  CHECK(out == NULL);
  const int64_t small[] = {3, 5};
  CHECK_OK(ct_tensor_upsample_bilinear2d(img, small, 2, 0, NULL, NULL, &out));
  int64_t sizes[4] = {-1, -1, -1, -1};
  CHECK_OK(ct_tensor_sizes(out, sizes, 4));
  CHECK(sizes[0] == 0 && sizes[1] == 1 && sizes[2] == 3 && sizes[3] == 5);
  RELEASE(img, out);
}

static void test_lcm_of_the_most_negative_int_does_not_divide_by_minus_one(void) {
  /* Found by the sequence fuzzer: gcd(INT32_MIN, 5) is -1 (abs leaves INT32_MIN negative, as in
   * PyTorch), and lcm divided INT32_MIN by it, which overflows (a trap on x86). */
  ct_tensor *a = T(CT_INT32, S(3), -2147483648.0, 12, -2147483648.0), *b = T(CT_INT32, S(3), 5, -8, -1);
  ct_tensor *l = NULL, *g = NULL;
  CHECK_OK(ct_tensor_lcm(a, b, &l));
  CHECK_TENSOR(l, CT_INT32, S(3), -2147483648.0, 24, -2147483648.0);
  CHECK_OK(ct_tensor_gcd(a, b, &g));
  CHECK_TENSOR(g, CT_INT32, S(3), -1, 4, 1);
  RELEASE(a, b, l, g);
}

static void test_as_strided_views_the_storage(void) {
  ct_tensor *v = T(CT_FLOAT32, S(6), 0, 1, 2, 3, 4, 5), *w = NULL, *bad = SENTINEL;
  const int64_t size[] = {2, 3}, stride[] = {2, 1}, offset = 1, past[] = {3, 3};
  CHECK_OK(ct_tensor_as_strided(v, size, 2, stride, 2, &offset, &w)); /* overlapping rows [1 2 3], [3 4 5] */
  CHECK_TENSOR(w, CT_FLOAT32, S(2, 3), 1, 2, 3, 3, 4, 5);
  CHECK_STATUS(ct_tensor_as_strided(v, past, 2, stride, 2, NULL, &bad), CT_ERROR_SHAPE); /* reaches element 6 */
  CHECK(bad == NULL);
  CHECK_ERROR_CONTAINS("as_strided");
  RELEASE(v, w);
}

static void test_incomplete_gamma(void) {
  /* P(1, x) = 1 - e^-x; P(a, 0) = 0; Q = 1 - P; ints are refused, as in PyTorch. */
  ct_tensor *a = T(CT_FLOAT64, S(3), 1, 1, 2), *x = T(CT_FLOAT64, S(3), 1, 2, 0), *p = NULL, *q = NULL;
  CHECK_OK(ct_tensor_igamma(a, x, &p));
  CHECK_TENSOR_NEAR(p, CT_FLOAT64, 1e-14, S(3), 1 - exp(-1.0), 1 - exp(-2.0), 0);
  CHECK_OK(ct_tensor_igammac(a, x, &q));
  CHECK_TENSOR_NEAR(q, CT_FLOAT64, 1e-14, S(3), exp(-1.0), exp(-2.0), 1);
  ct_tensor *ia = T(CT_INT64, S(1), 1), *ix = T(CT_INT64, S(1), 2), *bad = SENTINEL;
  CHECK_STATUS(ct_tensor_igamma(ia, ix, &bad), CT_ERROR_DTYPE);
  CHECK(bad == NULL);
  CHECK_ERROR_CONTAINS("igamma");
  RELEASE(a, x, p, q, ia, ix);
}

static void test_pools_of_huge_sizes_fail_or_skip_their_windows(void) {
  /* An empty batch leaves the other sizes unbounded by memory: adaptive max pooling to a huge size
   * has no window to take (the result is sized, not looped over), and max_unpool3d's output plane
   * of (2^31 - 1)^3 positions overflows int64 (a shape error, not a wrapped product). */
  ct_tensor *empty = NULL, *values = NULL, *indices = NULL, *one = NULL, *index = NULL, *out = SENTINEL;
  CHECK_OK(ct_tensor_zeros(S(0, 1, 2, 2), CT_FLOAT32, NULL, &empty));
  const int64_t huge[] = {2147483647, 2147483647};
  CHECK_OK(ct_tensor_adaptive_max_pool2d(empty, huge, 2, &values, &indices));
  int64_t sizes[4] = {-1, -1, -1, -1};
  CHECK_OK(ct_tensor_sizes(values, sizes, 4));
  CHECK(sizes[0] == 0 && sizes[2] == 2147483647 && sizes[3] == 2147483647);
  CHECK_OK(ct_tensor_zeros(S(1, 1, 1, 1, 1), CT_FLOAT32, NULL, &one));
  CHECK_OK(ct_tensor_zeros(S(1, 1, 1, 1, 1), CT_INT64, NULL, &index));
  const int64_t cube[] = {2147483647, 2147483647, 2147483647}, unit[] = {1}, none[] = {0};
  CHECK_STATUS(ct_tensor_max_unpool3d(one, index, cube, 3, unit, 1, none, 1, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("max_unpool3d");
  RELEASE(empty, values, indices, one, index);
}

static void test_volumes_and_fold(void) {
  /* One 2 x 2 x 2 volume holding 0..8: a kernel of ones sums it; the max pool finds 7 at 7. */
  ct_tensor *v = T(CT_FLOAT32, S(1, 1, 2, 2, 2), 0, 1, 2, 3, 4, 5, 6, 7), *ones = NULL, *y = NULL;
  ct_tensor *values = NULL, *indices = NULL, *cols = NULL, *counts = NULL;
  CHECK_OK(ct_tensor_ones(S(1, 1, 2, 2, 2), CT_FLOAT32, NULL, &ones));
  const int64_t one[] = {1}, zero[] = {0}, two[] = {2};
  CHECK_OK(ct_tensor_conv3d(v, ones, NULL, one, 1, zero, 1, one, 1, 1, &y));
  CHECK_TENSOR(y, CT_FLOAT32, S(1, 1, 1, 1, 1), 28);
  CHECK_OK(ct_tensor_max_pool3d_with_indices(v, two, 1, NULL, 0, zero, 1, one, 1, 0, &values, &indices));
  CHECK_TENSOR(values, CT_FLOAT32, S(1, 1, 1, 1, 1), 7);
  CHECK_TENSOR(indices, CT_INT64, S(1, 1, 1, 1, 1), 7);
  /* im2col of a 3 x 3 image in 2 x 2 blocks; col2im of ones counts the blocks over each pixel. */
  ct_tensor* img = T(CT_FLOAT32, S(1, 1, 3, 3), 0, 1, 2, 3, 4, 5, 6, 7, 8);
  const int64_t k2[] = {2, 2}, d1[] = {1, 1}, p0[] = {0, 0}, s1[] = {1, 1}, out3[] = {3, 3};
  CHECK_OK(ct_tensor_im2col(img, k2, 2, d1, 2, p0, 2, s1, 2, &cols));
  CHECK_TENSOR(cols, CT_FLOAT32, S(1, 4, 4), 0, 1, 3, 4, 1, 2, 4, 5, 3, 4, 6, 7, 4, 5, 7, 8);
  ct_tensor_release(cols);
  CHECK_OK(ct_tensor_ones(S(1, 4, 4), CT_FLOAT32, NULL, &cols));
  CHECK_OK(ct_tensor_col2im(cols, out3, 2, k2, 2, d1, 2, p0, 2, s1, 2, &counts));
  CHECK_TENSOR(counts, CT_FLOAT32, S(1, 1, 3, 3), 1, 2, 1, 2, 4, 2, 1, 2, 1);
  ct_tensor* bad = SENTINEL;
  CHECK_STATUS(ct_tensor_conv3d(img, ones, NULL, one, 1, zero, 1, one, 1, 1, &bad), CT_ERROR_SHAPE);
  CHECK(bad == NULL);
  CHECK_ERROR_CONTAINS("conv3d");
  RELEASE(v, ones, y, values, indices, img, cols, counts);
}

static void test_upsample_with_a_scale_past_the_input_clamps_to_its_edge(void) {
  /* Found by the sequence fuzzer: a given scale near 0 put the source position at infinity, which was
   * converted to int64 (undefined), and a scale below the true ratio read past the input. Positions
   * are clamped to the last row and column, as PyTorch guards them. */
  ct_tensor *img = T(CT_FLOAT32, S(1, 1, 2, 2), 0, 1, 2, 3), *out = NULL;
  const int64_t three[] = {3, 3};
  const double tiny = 1e-300, small = 0.1;
  CHECK_OK(ct_tensor_upsample_nearest2d(img, three, 2, &tiny, &tiny, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(1, 1, 3, 3), 3, 3, 3, 3, 3, 3, 3, 3, 3);
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_upsample_bilinear2d(img, three, 2, 0, &small, &small, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(1, 1, 3, 3), 3, 3, 3, 3, 3, 3, 3, 3, 3);
  RELEASE(img, out);
}

static void test_pixel_shuffle_of_a_factor_whose_square_overflows_fails(void) {
  /* Found by the sequence fuzzer: 2^32 squared wraps to 0 in int64, and the channel count was then
   * divided by it. Now the square, and every size the factor multiplies, is checked. */
  ct_tensor *img = NULL, *out = SENTINEL;
  CHECK_OK(ct_tensor_zeros(S(1, 0, 2, 2), CT_FLOAT32, NULL, &img));
  const int64_t factor = (int64_t)1 << 32;
  CHECK_STATUS(ct_tensor_pixel_shuffle(img, factor, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("pixel_shuffle: upscale_factor^2");
  ct_tensor_release(img);
  CHECK_OK(ct_tensor_zeros(S(1, 1, 0, 0), CT_FLOAT32, NULL, &img));
  CHECK_STATUS(ct_tensor_pixel_unshuffle(img, factor, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("pixel_unshuffle: downscale_factor^2");
  CHECK_OK(ct_tensor_pixel_unshuffle(img, 2, &out)); /* a small factor of an empty image is fine */
  int64_t sizes[4] = {-1, -1, -1, -1};
  CHECK_OK(ct_tensor_sizes(out, sizes, 4));
  CHECK(sizes[0] == 1 && sizes[1] == 4 && sizes[2] == 0 && sizes[3] == 0);
  RELEASE(img, out);
}

static void test_combinations_of_more_than_there_are_is_empty_whatever_r(void) {
  /* r > n has no rows; a 2^32-element tuple must not be built for them (it was a std::vector). */
  ct_tensor *v = T(CT_INT64, S(3), 1, 2, 3), *out = NULL;
  CHECK_OK(ct_tensor_combinations(v, (int64_t)1 << 32, 0, &out));
  int64_t sizes[2] = {-1, -1};
  CHECK_OK(ct_tensor_sizes(out, sizes, 2));
  CHECK(sizes[0] == 0 && sizes[1] == ((int64_t)1 << 32));
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_combinations(v, 2, 1, &out));
  CHECK_TENSOR(out, CT_INT64, S(6, 2), 1, 1, 1, 2, 1, 3, 2, 2, 2, 3, 3, 3);
  RELEASE(v, out);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_nn_functions_stacks_and_factories),
    CAPI_TEST(test_pixel_shuffle_of_a_factor_whose_square_overflows_fails),
    CAPI_TEST(test_upsample_with_a_scale_past_the_input_clamps_to_its_edge),
    CAPI_TEST(test_volumes_and_fold),
    CAPI_TEST(test_pools_of_huge_sizes_fail_or_skip_their_windows),
    CAPI_TEST(test_incomplete_gamma),
    CAPI_TEST(test_as_strided_views_the_storage),
    CAPI_TEST(test_lcm_of_the_most_negative_int_does_not_divide_by_minus_one),
    CAPI_TEST(test_combinations_of_more_than_there_are_is_empty_whatever_r),
    CAPI_TEST(test_upsample_of_an_empty_batch_to_a_huge_size_runs_out_of_memory),
    CAPI_TEST(test_extrema_nansum_isclose_fill),
    CAPI_TEST(test_binary_and_scalar_overloads),
    CAPI_TEST(test_same_bits_as_op_call),
    CAPI_TEST(test_two_results_named_by_the_schema),
    CAPI_TEST(test_unnamed_results_and_optional_arguments),
    CAPI_TEST(test_lists_scalar_defaults_and_dtypes),
    CAPI_TEST(test_strings_bools_and_in_place),
    CAPI_TEST(test_generator_argument),
    CAPI_TEST(test_bad_handles_shapes_and_outs),
};
CAPI_MAIN(TESTS)
