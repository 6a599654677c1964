/* test_random.c - generators and random operators: seeding, offsets, checkpoints, independence from
 * the thread count, each distribution's range and moments, and every documented failure. */
#include <pthread.h>

#include "capi_test.h"

enum { kN = 100003 }; /* odd, so the last Philox block is partly used */

/* The values of a float32 or float64 tensor, as doubles (malloc'ed). */
static double* values(const ct_tensor* t, int64_t* n) {
  ct_dtype d;
  ct_tensor* f64 = NULL;
  if (ct_tensor_numel(t, n) != CT_OK || ct_tensor_dtype(t, &d) != CT_OK || ct_tensor_to(t, CT_FLOAT64, &f64) != CT_OK)
    return NULL;
  double* v = malloc(sizeof(double) * (size_t)(*n ? *n : 1));
  if (ct_tensor_copy_to(f64, v, sizeof(double) * (size_t)*n) != CT_OK) {
    free(v);
    v = NULL;
  }
  ct_tensor_release(f64);
  return v;
}

static int same_bits(const ct_tensor* a, const ct_tensor* b) {
  int64_t na = 0, nb = 0;
  size_t bytes = 0;
  ct_dtype d;
  if (ct_tensor_numel(a, &na) != CT_OK || ct_tensor_numel(b, &nb) != CT_OK || na != nb) return 0;
  if (ct_tensor_dtype(a, &d) != CT_OK) return 0;
  bytes = (size_t)na * ct_dtype_itemsize(d);
  void* x = malloc(bytes + 1);
  void* y = malloc(bytes + 1);
  int same = ct_tensor_copy_to(a, x, bytes) == CT_OK && ct_tensor_copy_to(b, y, bytes) == CT_OK && memcmp(x, y, bytes) == 0;
  free(x);
  free(y);
  return same;
}

static void test_manual_seed_repeats_the_stream(void) {
  ct_tensor *a = NULL, *b = NULL, *c = NULL;
  CHECK_OK(ct_manual_seed(123));
  CHECK_OK(ct_tensor_randn(S(kN), CT_FLOAT32, NULL, NULL, &a));
  CHECK_OK(ct_tensor_randn(S(kN), CT_FLOAT32, NULL, NULL, &c)); /* continues the stream */
  CHECK_OK(ct_manual_seed(123));
  CHECK_OK(ct_tensor_randn(S(kN), CT_FLOAT32, NULL, NULL, &b));
  CHECK(same_bits(a, b));
  CHECK(!same_bits(a, c));
  uint64_t seed = 0;
  CHECK_OK(ct_initial_seed(&seed));
  CHECK(seed == 123);
  RELEASE(a, b, c);
}

static void test_same_numbers_for_every_thread_count(void) {
  int32_t before = 0;
  CHECK_OK(ct_get_num_threads(&before));
  ct_tensor* r[2][4] = {{NULL}};
  for (int k = 0; k < 2; ++k) {
    CHECK_OK(ct_set_num_threads(k ? 4 : 1));
    CHECK_OK(ct_manual_seed(7));
    CHECK_OK(ct_tensor_randn(S(3, kN), CT_FLOAT32, NULL, NULL, &r[k][0]));
    CHECK_OK(ct_tensor_rand(S(kN, 3), CT_FLOAT64, NULL, NULL, &r[k][1]));
    CHECK_OK(ct_tensor_randint(-5, 1000, S(kN), CT_INT32, NULL, NULL, &r[k][2]));
    CHECK_OK(ct_tensor_randperm(kN, CT_INT64, NULL, NULL, &r[k][3]));
  }
  CHECK_OK(ct_set_num_threads(before));
  for (int i = 0; i < 4; ++i) CHECK(same_bits(r[0][i], r[1][i]));
  for (int i = 0; i < 4; ++i) RELEASE(r[0][i], r[1][i]);
}

static void test_generators_are_independent_and_checkpointable(void) {
  ct_generator *g = NULL, *h = NULL;
  CHECK_OK(ct_generator_create("cpu", &g));
  CHECK_OK(ct_generator_create(NULL, &h));
  uint64_t seed = 0, offset = 99;
  CHECK_OK(ct_generator_initial_seed(g, &seed));
  CHECK(seed == 67280421310721ull);
  CHECK_OK(ct_generator_manual_seed(g, 5));
  CHECK_OK(ct_generator_manual_seed(h, 5));
  ct_tensor *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  CHECK_OK(ct_tensor_rand(S(10), CT_FLOAT32, NULL, g, &a));
  CHECK_OK(ct_generator_get_offset(g, &offset));
  CHECK(offset == 3); /* 10 float32 values, 4 per block */
  uint8_t state[CT_GENERATOR_STATE_SIZE];
  CHECK_OK(ct_generator_get_state(g, state, sizeof state));
  CHECK_OK(ct_tensor_rand(S(10), CT_FLOAT32, NULL, g, &b));
  CHECK_OK(ct_generator_set_state(g, state, sizeof state));
  CHECK_OK(ct_tensor_rand(S(10), CT_FLOAT32, NULL, g, &c));
  CHECK(same_bits(b, c)); /* restored: the same continuation */
  CHECK_OK(ct_tensor_rand(S(10), CT_FLOAT32, NULL, h, &d));
  CHECK(same_bits(a, d)); /* same seed, separate generator */
  CHECK_OK(ct_generator_set_offset(h, 0));
  RELEASE(d);
  d = NULL;
  CHECK_OK(ct_tensor_rand(S(10), CT_FLOAT32, NULL, h, &d));
  CHECK(same_bits(a, d)); /* offset 0 replays */
  uint8_t bad[CT_GENERATOR_STATE_SIZE] = {0};
  CHECK_STATUS(ct_generator_set_state(g, bad, sizeof bad), CT_ERROR_FORMAT);
  CHECK_ERROR_CONTAINS("not a generator state");
  CHECK_STATUS(ct_generator_set_state(g, state, 8), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_generator_get_state(g, state, 30), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_generator_get_state(g, NULL, sizeof state), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_generator_set_state(NULL, state, sizeof state), CT_ERROR_INVALID_ARGUMENT);
  ct_generator_release(g);
  ct_generator_release(h);
  ct_generator_release(NULL);
  RELEASE(a, b, c, d);
}

static void test_default_generator_handle(void) {
  ct_generator* g = NULL;
  CHECK_OK(ct_default_generator("cpu", &g));
  CHECK_OK(ct_generator_manual_seed(g, 77));
  uint64_t seed = 0;
  CHECK_OK(ct_initial_seed(&seed));
  CHECK(seed == 77);
  ct_generator_release(g); /* the default generator itself lives on */
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_rand(S(3), CT_FLOAT32, NULL, NULL, &t));
  RELEASE(t);
  CHECK_STATUS(ct_default_generator("meta", &g), CT_ERROR_DEVICE);
  CHECK(g == NULL);
  CHECK_STATUS(ct_generator_create("meta", &g), CT_ERROR_DEVICE);
  CHECK_ERROR_CONTAINS("meta");
  CHECK_STATUS(ct_generator_create("gpu", &g), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_generator_create("cpu", NULL), CT_ERROR_INVALID_ARGUMENT);
}

static void test_distributions(void) {
  ct_tensor *u = NULL, *n = NULL, *ri = NULL, *un = NULL, *no = NULL;
  CHECK_OK(ct_manual_seed(2024));
  CHECK_OK(ct_tensor_rand(S(kN), CT_FLOAT32, NULL, NULL, &u));
  CHECK_OK(ct_tensor_randn(S(kN), CT_FLOAT64, NULL, NULL, &n));
  CHECK_OK(ct_tensor_randint(3, 9, S(kN), CT_INT16, NULL, NULL, &ri));
  CHECK_OK(ct_tensor_full(S(kN), &(ct_scalar){CT_SCALAR_FLOAT, 0, 0.0}, CT_FLOAT32, NULL, &un));
  CHECK_OK(ct_tensor_uniform_(un, -2, 6, NULL));
  CHECK_OK(ct_tensor_full(S(kN), &(ct_scalar){CT_SCALAR_FLOAT, 0, 0.0}, CT_FLOAT64, NULL, &no));
  CHECK_OK(ct_tensor_normal_(no, 10, 3, NULL));
  struct {
    ct_tensor* t;
    double lo, hi, mean, sd;
  } want[] = {{u, 0, 1, 0.5, 0.288675}, {n, -10, 10, 0, 1}, {ri, 3, 8, 5.5, 1.707825},
              {un, -2, 6, 2, 2.309401}, {no, -20, 40, 10, 3}};
  for (size_t k = 0; k < sizeof want / sizeof want[0]; ++k) {
    int64_t count = 0;
    double* v = values(want[k].t, &count);
    CHECK(v && count == kN);
    double s = 0, s2 = 0, lo = 1e300, hi = -1e300;
    for (int64_t i = 0; i < count; ++i) {
      s += v[i];
      lo = v[i] < lo ? v[i] : lo;
      hi = v[i] > hi ? v[i] : hi;
    }
    const double mean = s / (double)count;
    for (int64_t i = 0; i < count; ++i) s2 += (v[i] - mean) * (v[i] - mean);
    const double sd = sqrt(s2 / (double)count);
    free(v);
    CHECK(lo >= want[k].lo && hi <= want[k].hi && (k != 0 || hi < 1));
    CHECK(fabs(mean - want[k].mean) < 5 * want[k].sd / sqrt((double)count)); /* 5 standard errors */
    CHECK(fabs(sd - want[k].sd) < 0.02 * want[k].sd);
  }
  RELEASE(u, n, ri, un, no);
}

static void test_randperm_is_a_permutation(void) {
  ct_tensor* p = NULL;
  CHECK_OK(ct_tensor_randperm(1000, CT_INT32, NULL, NULL, &p));
  int32_t v[1000];
  CHECK_OK(ct_tensor_copy_to(p, v, sizeof v));
  int seen[1000] = {0}, moved = 0;
  for (int i = 0; i < 1000; ++i) {
    CHECK(v[i] >= 0 && v[i] < 1000 && !seen[v[i]]);
    seen[v[i]] = 1;
    moved += v[i] != i;
  }
  CHECK(moved > 900);
  RELEASE(p);
  CHECK_OK(ct_tensor_randperm(0, CT_INT64, NULL, NULL, &p));
  CHECK_META(p, CT_INT64, S(0));
  RELEASE(p);
  CHECK_STATUS(ct_tensor_randperm(-1, CT_INT64, NULL, NULL, &p), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_randperm(300, CT_INT8, NULL, NULL, &p), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("int8");
}

static void test_bernoulli_and_multinomial(void) {
  ct_tensor* p = T(CT_FLOAT32, S(4), 0, 1, 0.25, 1);
  ct_tensor *b = NULL, *m = NULL, *w = NULL, *r = NULL;
  CHECK_OK(ct_tensor_bernoulli(p, NULL, &b));
  float bv[4];
  CHECK_OK(ct_tensor_copy_to(b, bv, sizeof bv));
  CHECK(bv[0] == 0 && bv[1] == 1 && bv[3] == 1 && (bv[2] == 0 || bv[2] == 1));
  w = T(CT_FLOAT64, S(2, 4), 0, 0, 1, 0, 1, 2, 0, 1);
  CHECK_OK(ct_tensor_multinomial(w, 1, 0, NULL, &m));
  int64_t mv[2];
  CHECK_OK(ct_tensor_copy_to(m, mv, sizeof mv));
  CHECK(mv[0] == 2 && mv[1] != 2); /* row 0 has one category of positive weight... */
  RELEASE(m);
  m = NULL;
  CHECK_STATUS(ct_tensor_multinomial(w, 2, 0, NULL, &m), CT_ERROR_INVALID_ARGUMENT); /* ...so 2 cannot be drawn */
  CHECK_ERROR_CONTAINS("row 0");
  CHECK_OK(ct_tensor_multinomial(w, 1000, 1, NULL, &r));
  CHECK_META(r, CT_INT64, S(2, 1000));
  int64_t rv[2000];
  CHECK_OK(ct_tensor_copy_to(r, rv, sizeof rv));
  int counts[4] = {0};
  for (int i = 0; i < 1000; ++i) CHECK(rv[i] == 2);
  for (int i = 1000; i < 2000; ++i) counts[rv[i]]++;
  CHECK(counts[2] == 0 && counts[0] > 150 && counts[1] > 400 && counts[3] > 150); /* weights 1:2:0:1 */
  ct_tensor* neg = T(CT_FLOAT32, S(2), -1, 1);
  CHECK_STATUS(ct_tensor_multinomial(neg, 1, 1, NULL, &m), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_bernoulli(neg, NULL, &m), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("outside [0, 1]");
  ct_tensor* cube = TE(CT_FLOAT32, S(2, 2, 2));
  CHECK_STATUS(ct_tensor_multinomial(cube, 1, 1, NULL, &m), CT_ERROR_SHAPE);
  ct_tensor* ints = T(CT_INT64, S(2), 1, 1);
  CHECK_STATUS(ct_tensor_multinomial(ints, 1, 1, NULL, &m), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_multinomial(w, 0, 1, NULL, &m), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_bernoulli_(p, 1.5, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_tensor_bernoulli_(p, 0.0, NULL));
  CHECK_TENSOR(p, CT_FLOAT32, S(4), 0, 0, 0, 0);
  RELEASE(p, b, w, r, neg, cube, ints);
}

static void test_dropout(void) {
  ct_tensor* x = NULL;
  CHECK_OK(ct_tensor_full(S(1000), &(ct_scalar){CT_SCALAR_FLOAT, 0, 2.0}, CT_FLOAT32, NULL, &x));
  CHECK_OK(ct_tensor_set_requires_grad(x, 1));
  ct_tensor *y = NULL, *same = NULL, *s = NULL, *g = NULL;
  CHECK_OK(ct_tensor_dropout(x, 0.25, 1, NULL, &y));
  float yv[1000], gv[1000];
  CHECK_OK(ct_tensor_copy_to(y, yv, sizeof yv));
  int zeros = 0;
  for (int i = 0; i < 1000; ++i) {
    CHECK(yv[i] == 0 || fabsf(yv[i] - 2.0f / 0.75f) < 1e-6f);
    zeros += yv[i] == 0;
  }
  CHECK(zeros > 180 && zeros < 320);
  CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &s));
  CHECK_OK(ct_tensor_backward(s, NULL, 0));
  CHECK_OK(ct_tensor_grad(x, &g));
  CHECK_OK(ct_tensor_copy_to(g, gv, sizeof gv));
  for (int i = 0; i < 1000; ++i) CHECK(gv[i] == (yv[i] == 0 ? 0.0f : 1.0f / 0.75f)); /* the same mask */
  CHECK_OK(ct_tensor_dropout(x, 0.25, 0, NULL, &same));
  CHECK(same == x); /* eval: the input itself */
  CHECK_STATUS(ct_tensor_dropout(x, -0.1, 1, NULL, &same), CT_ERROR_INVALID_ARGUMENT);
  CHECK(same == NULL);
  RELEASE(x, y, x, s, g);
}

static void test_errors_name_the_operator(void) {
  ct_tensor* t = SENTINEL;
  CHECK_STATUS(ct_tensor_rand(S(2), CT_INT32, NULL, NULL, &t), CT_ERROR_DTYPE);
  CHECK(t == NULL);
  CHECK_ERROR_CONTAINS("rand");
  CHECK_STATUS(ct_tensor_randint(5, 5, S(2), CT_INT64, NULL, NULL, &t), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("is empty");
  CHECK_STATUS(ct_tensor_randint(0, 300, S(2), CT_UINT8, NULL, NULL, &t), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("does not fit uint8");
  CHECK_STATUS(ct_tensor_randn(S(-1), CT_FLOAT32, NULL, NULL, &t), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_randn(S(2), CT_FLOAT32, NULL, NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* i = T(CT_INT32, S(2), 1, 2);
  CHECK_STATUS(ct_tensor_normal_(i, 0, 1, NULL), CT_ERROR_DTYPE);
  CHECK_ERROR_CONTAINS("normal_");
  ct_tensor* f = TE(CT_FLOAT32, S(2));
  CHECK_STATUS(ct_tensor_normal_(f, 0, -1, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_uniform_(f, 1, 0, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_uniform_(NULL, 0, 1, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_generator* g = NULL;
  CHECK_OK(ct_generator_create("cpu", &g));
  ct_generator_release(g); /* released: using it is refused, not a crash */
  CHECK_STATUS(ct_tensor_uniform_(f, 0, 1, g), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_tensor_set_requires_grad(f, 1));
  CHECK_STATUS(ct_tensor_uniform_(f, 0, 1, NULL), CT_ERROR_INVALID_ARGUMENT); /* a leaf that requires grad */
  CHECK_ERROR_CONTAINS("leaf");
  RELEASE(i, f);
}

static void test_meta_and_non_contiguous(void) {
  ct_tensor *m = NULL, *a = NULL, *t = NULL, *c = NULL;
  uint64_t before = 0, after = 0;
  ct_generator* g = NULL;
  CHECK_OK(ct_default_generator(NULL, &g));
  CHECK_OK(ct_generator_get_offset(g, &before));
  CHECK_OK(ct_tensor_randn(S(5, 7), CT_FLOAT16, "meta", NULL, &m));
  CHECK_META(m, CT_FLOAT16, S(5, 7));
  CHECK_OK(ct_generator_get_offset(g, &after));
  CHECK(before == after); /* the meta device draws nothing */
  /* A transposed self gets what a contiguous tensor of its sizes would. */
  CHECK_OK(ct_tensor_zeros(S(3, 5), CT_FLOAT32, NULL, &a));
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t));
  CHECK_OK(ct_generator_set_offset(g, 40));
  CHECK_OK(ct_tensor_uniform_(t, 0, 1, NULL));
  CHECK_OK(ct_generator_set_offset(g, 40));
  CHECK_OK(ct_tensor_rand(S(5, 3), CT_FLOAT32, NULL, NULL, &c));
  CHECK(!same_bits(a, c));
  ct_tensor* tc = NULL;
  CHECK_OK(ct_tensor_contiguous(t, &tc));
  CHECK(same_bits(tc, c));
  ct_generator_release(g);
  RELEASE(m, a, t, c, tc);
}

/* Probabilities in caller memory of exactly their size: the Philox blocks draw 4 values at a
 * time, and the lanes past the last element must not read a probability (the sequence fuzzer,
 * under ASan, read past an 8-byte blob). */
static void test_bernoulli_reads_no_probability_past_the_last_element(void) {
  for (int64_t n = 1; n <= 5; ++n) {
    double* p = malloc((size_t)n * sizeof(double));
    for (int64_t i = 0; i < n; ++i) p[i] = (double)(i % 2);
    ct_tensor *probs = NULL, *b = NULL, *s = NULL;
    CHECK_OK(ct_tensor_from_blob(p, &n, NULL, 1, CT_FLOAT64, NULL, NULL, &probs));
    CHECK_OK(ct_tensor_bernoulli(probs, NULL, &b));
    CHECK_OK(ct_tensor_sum(b, NULL, 0, 0, &s));
    CHECK_TENSOR(s, CT_FLOAT64, S(), (double)(n / 2)); /* probabilities 0 and 1 only */
    RELEASE(s, b, probs);
    free(p);
  }
}

/* poisson and binomial: whole counts in range, means near n p and the rate, a generator's stream
 * repeats, bad rates, counts and probabilities refused. */
static void test_poisson_and_binomial(void) {
  ct_tensor *rate = NULL, *count = NULL, *prob = NULL, *x = NULL, *y = NULL, *bad = NULL;
  CHECK_OK(ct_tensor_full(S(20000), &(ct_scalar){CT_SCALAR_FLOAT, 0, 30.0}, CT_FLOAT64, NULL, &rate));
  CHECK_OK(ct_tensor_full(S(20000), &(ct_scalar){CT_SCALAR_FLOAT, 0, 50.0}, CT_FLOAT64, NULL, &count));
  CHECK_OK(ct_tensor_full(S(1), &(ct_scalar){CT_SCALAR_FLOAT, 0, 0.2}, CT_FLOAT64, NULL, &prob));
  ct_generator* g = NULL;
  CHECK_OK(ct_generator_create("cpu", &g));
  CHECK_OK(ct_generator_manual_seed(g, 9));
  CHECK_OK(ct_tensor_poisson(rate, g, &x));
  CHECK_OK(ct_tensor_binomial(count, prob, NULL, &y)); /* prob broadcast */
  double* v = malloc(sizeof(double) * 20000);
  double* w = malloc(sizeof(double) * 20000);
  CHECK_OK(ct_tensor_copy_to(x, v, sizeof(double) * 20000));
  CHECK_OK(ct_tensor_copy_to(y, w, sizeof(double) * 20000));
  double mv = 0, mw = 0;
  for (int i = 0; i < 20000; ++i) {
    CHECK(v[i] >= 0 && v[i] == floor(v[i]));
    CHECK(w[i] >= 0 && w[i] <= 50 && w[i] == floor(w[i]));
    mv += v[i] / 20000, mw += w[i] / 20000;
  }
  CHECK(fabs(mv - 30) < 0.2 && fabs(mw - 10) < 0.15);
  ct_tensor* again = NULL;
  CHECK_OK(ct_generator_manual_seed(g, 9));
  CHECK_OK(ct_tensor_poisson(rate, g, &again));
  CHECK_OK(ct_tensor_copy_to(again, w, sizeof(double) * 20000));
  CHECK(memcmp(v, w, sizeof(double) * 20000) == 0);
  free(v);
  free(w);
  ct_tensor* neg = T(CT_FLOAT32, S(2), 1.0, -1.0);
  CHECK_STATUS(ct_tensor_poisson(neg, NULL, &bad), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("flat index 1");
  ct_tensor *half = T(CT_FLOAT32, S(1), 2.5), *p = T(CT_FLOAT32, S(1), 0.5), *p2 = T(CT_FLOAT32, S(1), 1.5);
  CHECK_STATUS(ct_tensor_binomial(half, p, NULL, &bad), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("whole number");
  CHECK_STATUS(ct_tensor_binomial(p, p2, NULL, &bad), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_binomial(half, prob, NULL, &bad), CT_ERROR_DTYPE);
  CHECK(bad == NULL);
  ct_generator_release(g);
  RELEASE(rate, count, prob, x, y, again, neg, half, p, p2);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_poisson_and_binomial),
    CAPI_TEST(test_manual_seed_repeats_the_stream),  CAPI_TEST(test_same_numbers_for_every_thread_count),
    CAPI_TEST(test_generators_are_independent_and_checkpointable), CAPI_TEST(test_default_generator_handle),
    CAPI_TEST(test_distributions),                   CAPI_TEST(test_randperm_is_a_permutation),
    CAPI_TEST(test_bernoulli_reads_no_probability_past_the_last_element),
    CAPI_TEST(test_bernoulli_and_multinomial),       CAPI_TEST(test_dropout),
    CAPI_TEST(test_errors_name_the_operator),        CAPI_TEST(test_meta_and_non_contiguous)};
CAPI_MAIN(TESTS)
