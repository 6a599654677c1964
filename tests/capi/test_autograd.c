/* test_autograd.c - the autograd promises of ctorch.h: requires_grad and leaves, backward and
 * grad accumulation, ct_autograd_grad (higher derivatives), grad modes, hooks, custom functions,
 * the in-place and saved-tensor rules, and that training loops leave no tensor behind.
 *
 * Expected values are worked out by hand in the comments; every input is small integers or
 * halves, so float32 results are exact. */
#include <pthread.h>

#include "capi_test.h"

static int64_t metric(const char* name) {
  int64_t v = -1;
  if (ct_metric_get(name, &v) != CT_OK) printf("ct_metric_get(%s): %s\n", name, ct_last_error());
  return v;
}

static int flag(ct_status (*query)(const ct_tensor*, int*), const ct_tensor* t) {
  int v = -1;
  if (query(t, &v) != CT_OK) return -1;
  return v;
}
#define REQUIRES_GRAD(t) flag(ct_tensor_requires_grad, (t))
#define IS_LEAF(t) flag(ct_tensor_is_leaf, (t))
#define IS_INFERENCE(t) flag(ct_tensor_is_inference, (t))

/* CHECK_GRAD(t, sizes, values...): t's grad is a float32 tensor with exactly these values. */
#define CHECK_GRAD(t, sz, ...)                                                                          \
  do {                                                                                                  \
    ct_tensor* capi_grad_ = NULL;                                                                       \
    CHECK_OK(ct_tensor_grad((t), &capi_grad_));                                                         \
    const int capi_ok_ = capi_check_tensor(__FILE__, __LINE__, "grad of " #t, capi_grad_, CT_FLOAT32, sz, \
                                           ((const double[]){__VA_ARGS__}),                             \
                                           sizeof((const double[]){__VA_ARGS__}) / sizeof(double), 0.0); \
    ct_tensor_release(capi_grad_);                                                                      \
    if (!capi_ok_) return;                                                                              \
  } while (0)

/* CHECK_NO_GRAD(t): t has no grad (ct_tensor_grad gives NULL). */
#define CHECK_NO_GRAD(t)                          \
  do {                                            \
    ct_tensor* capi_grad_ = SENTINEL;             \
    CHECK_OK(ct_tensor_grad((t), &capi_grad_));   \
    CHECK(capi_grad_ == NULL);                    \
  } while (0)

/* CHECK_GRAD_FN(t, name): t's grad_fn is called name. */
#define CHECK_GRAD_FN(t, name)                                                     \
  do {                                                                             \
    char* capi_fn_ = NULL;                                                         \
    char capi_copy_[64];                                                           \
    CHECK_OK(ct_tensor_grad_fn_name((t), &capi_fn_));                              \
    snprintf(capi_copy_, sizeof capi_copy_, "%s", capi_fn_ ? capi_fn_ : "(null)"); \
    ct_string_release(capi_fn_);                                                   \
    CHECK_STR_EQ(capi_copy_, (name));                                              \
  } while (0)

/* CHECK_NO_GRAD_FN(t): t has no grad_fn (ct_tensor_grad_fn_name gives NULL). */
#define CHECK_NO_GRAD_FN(t)                                  \
  do {                                                       \
    char* capi_fn_ = (char*)capi_sentinel();                 \
    CHECK_OK(ct_tensor_grad_fn_name((t), &capi_fn_));        \
    CHECK(capi_fn_ == NULL);                                 \
  } while (0)

/* LEAF(sizes, values...): a float32 tensor that requires grad, or NULL (and a reported failure). */
static ct_tensor* leaf_of(const char* file, int line, ct_tensor* t) {
  if (t && ct_tensor_set_requires_grad(t, 1) != CT_OK) {
    capi_report(file, line, "LEAF(...): ct_tensor_set_requires_grad failed%s%s", "", "");
    ct_tensor_release(t);
    return NULL;
  }
  return t;
}
#define LEAF(sz, ...)                                                                              \
  leaf_of(__FILE__, __LINE__,                                                                      \
          capi_make(__FILE__, __LINE__, CT_FLOAT32, sz, ((const double[]){__VA_ARGS__}),           \
                    sizeof((const double[]){__VA_ARGS__}) / sizeof(double)))

/* loss = (x * w + b).sum(), with the intermediate tensors released. */
static ct_status affine_sum(const ct_tensor* x, const ct_tensor* w, const ct_tensor* b, ct_tensor** loss) {
  ct_tensor *xw = NULL, *y = NULL;
  ct_status st = ct_tensor_mul(x, w, &xw);
  if (st == CT_OK) st = ct_tensor_add(xw, b, &y);
  if (st == CT_OK) st = ct_tensor_sum(y, NULL, 0, 0, loss);
  RELEASE(xw, y);
  return st;
}

/* ---- requires_grad, leaves, grad_fn, detach ---- */

static void test_requires_grad_spreads_from_leaves_to_results(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = T(CT_FLOAT32, S(3), 4, 5, 6);
  CHECK(REQUIRES_GRAD(w) == 0 && IS_LEAF(w) == 1);
  CHECK_NO_GRAD_FN(w);
  CHECK_OK(ct_tensor_set_requires_grad(w, 1));
  CHECK(REQUIRES_GRAD(w) == 1 && IS_LEAF(w) == 1);
  CHECK_NO_GRAD_FN(w);
  CHECK_NO_GRAD(w);

  ct_tensor *xx = NULL, *xw = NULL, *s = NULL;
  CHECK_OK(ct_tensor_mul(x, x, &xx)); /* nothing requires grad: a leaf with no history */
  CHECK(REQUIRES_GRAD(xx) == 0 && IS_LEAF(xx) == 1);
  CHECK_NO_GRAD_FN(xx);
  CHECK_OK(ct_tensor_mul(x, w, &xw));
  CHECK(REQUIRES_GRAD(xw) == 1 && IS_LEAF(xw) == 0);
  CHECK_GRAD_FN(xw, "MulBackward");
  CHECK_OK(ct_tensor_sum(xw, NULL, 0, 0, &s));
  CHECK_GRAD_FN(s, "SumBackward");
  CHECK_TENSOR(s, CT_FLOAT32, S0, 32); /* 4 + 10 + 18 */

  /* Setting requires_grad again on a non-leaf is harmless; clearing it is refused. */
  CHECK_OK(ct_tensor_set_requires_grad(xw, 1));
  CHECK_STATUS(ct_tensor_set_requires_grad(xw, 0), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("leaf");
  CHECK_ERROR_CONTAINS("detach");
  CHECK(REQUIRES_GRAD(xw) == 1);

  /* A leaf can stop requiring grad; later results then record nothing. */
  CHECK_OK(ct_tensor_set_requires_grad(w, 0));
  CHECK(REQUIRES_GRAD(w) == 0);
  ct_tensor* again = NULL;
  CHECK_OK(ct_tensor_mul(x, w, &again));
  CHECK(REQUIRES_GRAD(again) == 0 && IS_LEAF(again) == 1);
  RELEASE(x, w, xx, xw, s, again);
}

static void test_detach_shares_elements_without_history(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor *xw = NULL, *d = NULL;
  CHECK_OK(ct_tensor_mul(x, w, &xw));
  CHECK_OK(ct_tensor_detach(xw, &d));
  CHECK(d != xw);
  CHECK(REQUIRES_GRAD(d) == 0 && IS_LEAF(d) == 1);
  CHECK_NO_GRAD_FN(d);
  void *pd = NULL, *pxw = NULL;
  CHECK_OK(ct_tensor_data_ptr(d, &pd));
  CHECK_OK(ct_tensor_data_ptr(xw, &pxw));
  CHECK(pd == pxw);
  CHECK_TENSOR(d, CT_FLOAT32, S(3), 4, 10, 18);
  CHECK(REQUIRES_GRAD(xw) == 1); /* the original keeps its history */
  RELEASE(x, w, xw, d);
}

/* ---- backward ---- */

static void test_backward_broadcast_bias_gets_summed_gradient(void) {
  /* loss = sum(x * w + b) with b of sizes [1]: dloss/dx = w, dloss/dw = x, dloss/db = 3 (b was
   * broadcast over 3 elements, so its gradient sums 3 ones back to [1]). */
  ct_tensor* x = LEAF(S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* b = LEAF(S(1), 0.5);
  ct_tensor* loss = NULL;
  CHECK_OK(affine_sum(x, w, b, &loss));
  CHECK_TENSOR(loss, CT_FLOAT32, S0, 33.5); /* 4 + 10 + 18 + 3 * 0.5 */
  CHECK_GRAD_FN(loss, "SumBackward");
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_GRAD(x, S(3), 4, 5, 6);
  CHECK_GRAD(w, S(3), 1, 2, 3);
  CHECK_GRAD(b, S(1), 3);
  CHECK_NO_GRAD(loss); /* non-leaves keep no gradient unless asked (retain_grad) */
  RELEASE(x, w, b, loss);
}

static void test_backward_with_explicit_gradient_of_output_sizes(void) {
  /* y = x * w; dL/dy = [1, 0.5, 2] gives dL/dw = x * [1, 0.5, 2]. */
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* gy = T(CT_FLOAT32, S(3), 1, 0.5, 2);
  ct_tensor* y = NULL;
  CHECK_OK(ct_tensor_mul(x, w, &y));
  CHECK_OK(ct_tensor_backward(y, gy, 0));
  CHECK_GRAD(w, S(3), 1, 1, 6);
  CHECK_NO_GRAD(x); /* x does not require grad */
  RELEASE(x, w, gy, y);
}

static void test_gradients_accumulate_until_cleared(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* b = LEAF(S(1), 0);
  for (int i = 0; i < 2; ++i) { /* two graphs, two backward calls: the gradients add up */
    ct_tensor* loss = NULL;
    CHECK_OK(affine_sum(x, w, b, &loss));
    CHECK_OK(ct_tensor_backward(loss, NULL, 0));
    ct_tensor_release(loss);
  }
  CHECK_GRAD(w, S(3), 2, 4, 6);
  CHECK_GRAD(b, S(1), 6);

  /* ct_tensor_set_grad(t, NULL) is zero_grad: the next backward starts from nothing. */
  CHECK_OK(ct_tensor_set_grad(w, NULL));
  CHECK_OK(ct_tensor_set_grad(b, NULL));
  CHECK_NO_GRAD(w);
  CHECK_NO_GRAD(b);
  ct_tensor* loss = NULL;
  CHECK_OK(affine_sum(x, w, b, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_GRAD(w, S(3), 1, 2, 3);
  CHECK_GRAD(b, S(1), 3);

  /* One graph run twice, the first time with CT_GRAD_RETAIN_GRAPH, accumulates the same way. */
  ct_tensor* again = NULL;
  CHECK_OK(ct_tensor_set_grad(w, NULL));
  CHECK_OK(affine_sum(x, w, b, &again));
  CHECK_OK(ct_tensor_backward(again, NULL, CT_GRAD_RETAIN_GRAPH));
  CHECK_OK(ct_tensor_backward(again, NULL, 0));
  CHECK_GRAD(w, S(3), 2, 4, 6);
  RELEASE(x, w, b, loss, again);
}

static void test_set_grad_replaces_the_gradient_and_checks_its_sizes(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* b = LEAF(S(1), 0);
  ct_tensor* start = T(CT_FLOAT32, S(3), 10, 10, 10);
  ct_tensor* wrong_sizes = T(CT_FLOAT32, S(2), 1, 1);
  ct_tensor* wrong_dtype = T(CT_FLOAT64, S(3), 1, 1, 1);
  CHECK_OK(ct_tensor_set_grad(w, start));
  CHECK_GRAD(w, S(3), 10, 10, 10);
  ct_tensor* loss = NULL;
  CHECK_OK(affine_sum(x, w, b, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_GRAD(w, S(3), 11, 12, 13); /* backward adds to what was set */

  CHECK_STATUS(ct_tensor_set_grad(w, wrong_sizes), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("[2]");
  CHECK_STATUS(ct_tensor_set_grad(w, wrong_dtype), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("float64");
  CHECK_GRAD(w, S(3), 11, 12, 13); /* a refused gradient changes nothing */
  RELEASE(x, w, b, start, wrong_sizes, wrong_dtype, loss);
}

static void test_retain_grad_keeps_a_non_leaf_gradient(void) {
  /* h = x * w = [4, 10, 18], loss = sum(h * h): dloss/dh = 2h = [8, 20, 36], dloss/dw = 2h * x. */
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor *h = NULL, *hh = NULL, *loss = NULL;
  CHECK_OK(ct_tensor_mul(x, w, &h));
  CHECK_OK(ct_tensor_retain_grad(h));
  CHECK_OK(ct_tensor_retain_grad(h)); /* twice is the same as once */
  CHECK_OK(ct_tensor_retain_grad(w)); /* a no-op on a leaf */
  CHECK_OK(ct_tensor_mul(h, h, &hh));
  CHECK_OK(ct_tensor_sum(hh, NULL, 0, 0, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_GRAD(h, S(3), 8, 20, 36);
  CHECK_GRAD(w, S(3), 8, 40, 108);
  CHECK_NO_GRAD(hh); /* not retained */
  CHECK(IS_LEAF(h) == 0);
  int retains = -1;
  CHECK_OK(ct_tensor_retains_grad(h, &retains));
  CHECK(retains == 1);
  CHECK_OK(ct_tensor_retains_grad(hh, &retains));
  CHECK(retains == 0);
  CHECK_OK(ct_tensor_retains_grad(w, &retains)); /* a leaf keeps its gradient anyway: 0, as torch */
  CHECK(retains == 0);
  int64_t nr = -1;
  CHECK_OK(ct_tensor_output_nr(h, &nr));
  CHECK(nr == 0);
  CHECK_STATUS(ct_tensor_retains_grad(h, NULL), CT_ERROR_INVALID_ARGUMENT);

  CHECK_STATUS(ct_tensor_retain_grad(x), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("does not require grad");
  RELEASE(x, w, h, hh, loss);
}

static void test_retained_gradient_accumulates_like_a_leaf(void) {
  /* h = 2w, loss = sum(h), run twice through one graph: h.grad = 1 + 1. */
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor *h = NULL, *loss = NULL;
  const ct_scalar two = SI(2);
  CHECK_OK(ct_tensor_mul_scalar(w, &two, &h));
  CHECK_OK(ct_tensor_retain_grad(h));
  CHECK_OK(ct_tensor_sum(h, NULL, 0, 0, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, CT_GRAD_RETAIN_GRAPH));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_GRAD(h, S(3), 2, 2, 2);
  CHECK_GRAD(w, S(3), 4, 4, 4);
  CHECK_OK(ct_tensor_set_grad(h, NULL)); /* clears a retained gradient too */
  CHECK_NO_GRAD(h);
  RELEASE(w, h, loss);
}

static void test_in_place_on_a_non_leaf_is_recorded(void) {
  /* h = x * w, then h *= 2 in place: loss = sum(2 * x * w), dloss/dw = 2x. */
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor *h = NULL, *loss = NULL;
  const ct_scalar two = SI(2);
  CHECK_OK(ct_tensor_mul(x, w, &h));
  CHECK_OK(ct_tensor_mul_scalar_(h, &two));
  CHECK_GRAD_FN(h, "MulBackward");
  CHECK_OK(ct_tensor_sum(h, NULL, 0, 0, &loss));
  CHECK_TENSOR(loss, CT_FLOAT32, S0, 64);
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_GRAD(w, S(3), 2, 4, 6);
  RELEASE(x, w, h, loss);
}

static void test_autograd_backward_adds_the_roots_gradients(void) {
  /* y1 = sum(x * w), y2 = sum(w * w): dy1/dw = x = [1, 2, 3], dy2/dw = 2w = [8, 10, 12]. */
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor *xw = NULL, *ww = NULL, *y1 = NULL, *y2 = NULL;
  CHECK_OK(ct_tensor_mul(x, w, &xw));
  CHECK_OK(ct_tensor_mul(w, w, &ww));
  CHECK_OK(ct_tensor_sum(xw, NULL, 0, 0, &y1));
  CHECK_OK(ct_tensor_sum(ww, NULL, 0, 0, &y2));
  const ct_tensor* roots[2] = {y1, y2};
  CHECK_OK(ct_autograd_backward(roots, NULL, 2, CT_GRAD_RETAIN_GRAPH));
  CHECK_GRAD(w, S(3), 9, 12, 15);

  /* Per-root gradients, NULL meaning 1: 1 * x + 0.5 * 2w = [5, 7, 9]. */
  ct_tensor* half = T(CT_FLOAT32, S0, 0.5);
  const ct_tensor* grads[2] = {NULL, half};
  CHECK_OK(ct_tensor_set_grad(w, NULL));
  CHECK_OK(ct_autograd_backward(roots, grads, 2, 0));
  CHECK_GRAD(w, S(3), 5, 7, 9);
  RELEASE(x, w, xw, ww, y1, y2, half);
}

/* ---- ct_autograd_grad ---- */

static void test_autograd_grad_returns_gradients_of_several_inputs(void) {
  ct_tensor* x = LEAF(S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* b = LEAF(S(1), 0.5);
  ct_tensor* loss = NULL;
  CHECK_OK(affine_sum(x, w, b, &loss));
  const ct_tensor* outputs[1] = {loss};
  const ct_tensor* inputs[3] = {w, x, b};
  ct_tensor* grads[3] = {SENTINEL, SENTINEL, SENTINEL};
  CHECK_OK(ct_autograd_grad(outputs, NULL, 1, inputs, 3, 0, grads));
  CHECK_TENSOR(grads[0], CT_FLOAT32, S(3), 1, 2, 3);
  CHECK_TENSOR(grads[1], CT_FLOAT32, S(3), 4, 5, 6);
  CHECK_TENSOR(grads[2], CT_FLOAT32, S(1), 3);
  CHECK(REQUIRES_GRAD(grads[0]) == 0); /* no CT_GRAD_CREATE_GRAPH: plain tensors */
  CHECK_NO_GRAD(w);                    /* returned, not accumulated */
  CHECK_NO_GRAD(x);
  CHECK_NO_GRAD(b);
  RELEASE(x, w, b, loss, grads[0], grads[1], grads[2]);
}

static void test_autograd_grad_with_grad_outputs(void) {
  /* y = x * w of sizes [3], dL/dy = [1, 0.5, 2]: dL/dx = w * [1, 0.5, 2] = [4, 2.5, 12]. */
  ct_tensor* x = LEAF(S(3), 1, 2, 3);
  ct_tensor* w = T(CT_FLOAT32, S(3), 4, 5, 6);
  ct_tensor* gy = T(CT_FLOAT32, S(3), 1, 0.5, 2);
  ct_tensor* y = NULL;
  CHECK_OK(ct_tensor_mul(x, w, &y));
  const ct_tensor* outputs[1] = {y};
  const ct_tensor* grad_outputs[1] = {gy};
  const ct_tensor* inputs[1] = {x};
  ct_tensor* g = NULL;
  CHECK_OK(ct_autograd_grad(outputs, grad_outputs, 1, inputs, 1, 0, &g));
  CHECK_TENSOR(g, CT_FLOAT32, S(3), 4, 2.5, 12);
  ct_tensor_release(g);
  g = SENTINEL;
  CHECK_STATUS(ct_autograd_grad(outputs, NULL, 1, inputs, 1, 0, &g), CT_ERROR_SHAPE); /* [3] needs one */
  CHECK_ERROR_CONTAINS("one element");
  CHECK(g == NULL);
  RELEASE(x, w, gy, y);
}

static void test_autograd_grad_unused_input_needs_allow_unused(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* b = LEAF(S(1), 0);
  ct_tensor* unused = LEAF(S(2), 7, 8);
  ct_tensor* loss = NULL;
  CHECK_OK(affine_sum(x, w, b, &loss));
  const ct_tensor* outputs[1] = {loss};
  const ct_tensor* inputs[2] = {w, unused};
  ct_tensor* grads[2] = {SENTINEL, SENTINEL};
  CHECK_STATUS(ct_autograd_grad(outputs, NULL, 1, inputs, 2, CT_GRAD_RETAIN_GRAPH, grads), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("input 1");
  CHECK_ERROR_CONTAINS("not used");
  CHECK(grads[0] == NULL && grads[1] == NULL); /* all NULL on failure */
  CHECK_OK(ct_autograd_grad(outputs, NULL, 1, inputs, 2, CT_GRAD_ALLOW_UNUSED, grads));
  CHECK_TENSOR(grads[0], CT_FLOAT32, S(3), 1, 2, 3);
  CHECK(grads[1] == NULL);

  /* An input that does not require grad is refused whatever the flags. */
  const ct_tensor* plain[1] = {x};
  ct_tensor* g = SENTINEL;
  CHECK_STATUS(ct_autograd_grad(outputs, NULL, 1, plain, 1, CT_GRAD_ALLOW_UNUSED, &g), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("does not require grad");
  CHECK(g == NULL);
  RELEASE(x, w, b, unused, loss, grads[0]);
}

static void test_create_graph_gives_second_and_third_derivatives(void) {
  /* y = sum(x^3) at x = [1, 2, 3]: dy/dx = 3x^2 = [3, 12, 27]; d/dx sum(3x^2) = 6x = [6, 12, 18];
   * d/dx sum(6x) = [6, 6, 6]. */
  ct_tensor* x = LEAF(S(3), 1, 2, 3);
  const ct_scalar three = SI(3);
  ct_tensor *cube = NULL, *y = NULL, *g1 = NULL, *s1 = NULL, *g2 = NULL, *s2 = NULL, *g3 = NULL;
  CHECK_OK(ct_tensor_pow_scalar(x, &three, &cube));
  CHECK_GRAD_FN(cube, "PowBackward");
  CHECK_OK(ct_tensor_sum(cube, NULL, 0, 0, &y));
  const ct_tensor* inputs[1] = {x};

  const ct_tensor* out1[1] = {y};
  CHECK_OK(ct_autograd_grad(out1, NULL, 1, inputs, 1, CT_GRAD_CREATE_GRAPH, &g1));
  CHECK_TENSOR(g1, CT_FLOAT32, S(3), 3, 12, 27);
  CHECK(REQUIRES_GRAD(g1) == 1 && IS_LEAF(g1) == 0);

  CHECK_OK(ct_tensor_sum(g1, NULL, 0, 0, &s1));
  const ct_tensor* out2[1] = {s1};
  CHECK_OK(ct_autograd_grad(out2, NULL, 1, inputs, 1, CT_GRAD_CREATE_GRAPH, &g2));
  CHECK_TENSOR(g2, CT_FLOAT32, S(3), 6, 12, 18);

  CHECK_OK(ct_tensor_sum(g2, NULL, 0, 0, &s2));
  const ct_tensor* out3[1] = {s2};
  CHECK_OK(ct_autograd_grad(out3, NULL, 1, inputs, 1, 0, &g3));
  CHECK_TENSOR(g3, CT_FLOAT32, S(3), 6, 6, 6);
  CHECK(REQUIRES_GRAD(g3) == 0);
  CHECK_NO_GRAD(x);
  RELEASE(x, cube, y, g1, s1, g2, s2, g3);
}

static void test_create_graph_backward_makes_a_differentiable_grad(void) {
  /* backward(sum(x^3), CREATE_GRAPH) leaves x.grad = 3x^2 with history; its own gradient is 6x. */
  ct_tensor* x = LEAF(S(3), 1, 2, 3);
  const ct_scalar three = SI(3);
  ct_tensor *cube = NULL, *y = NULL, *g = NULL, *gs = NULL, *h = NULL;
  CHECK_OK(ct_tensor_pow_scalar(x, &three, &cube));
  CHECK_OK(ct_tensor_sum(cube, NULL, 0, 0, &y));
  CHECK_OK(ct_tensor_backward(y, NULL, CT_GRAD_CREATE_GRAPH));
  CHECK_OK(ct_tensor_grad(x, &g));
  CHECK_TENSOR(g, CT_FLOAT32, S(3), 3, 12, 27);
  CHECK(REQUIRES_GRAD(g) == 1);
  CHECK_OK(ct_tensor_sum(g, NULL, 0, 0, &gs));
  const ct_tensor* outputs[1] = {gs};
  const ct_tensor* inputs[1] = {x};
  CHECK_OK(ct_autograd_grad(outputs, NULL, 1, inputs, 1, 0, &h));
  CHECK_TENSOR(h, CT_FLOAT32, S(3), 6, 12, 18);
  CHECK_OK(ct_tensor_set_grad(x, NULL)); /* x.grad's graph refers back to x; clearing it frees both */
  RELEASE(x, cube, y, g, gs, h);
}

static void test_create_graph_gradients_are_not_shared(void) {
  /* y = x + w with dL/dy = gy: both leaves get a gradient equal to gy, but (as PyTorch's clone in
   * AccumulateGrad guarantees) not gy itself, nor one tensor for both. A later plain backward adds
   * in place into each leaf's own grad and leaves gy alone: x.grad = w.grad = 2, gy = 1. */
  ct_tensor* x = LEAF(S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* gy = T(CT_FLOAT32, S(3), 1, 1, 1);
  ct_tensor *y = NULL, *gx = NULL, *gw = NULL;
  CHECK_OK(ct_tensor_add(x, w, &y));
  CHECK_OK(ct_tensor_backward(y, gy, CT_GRAD_CREATE_GRAPH));
  void *px = NULL, *pw = NULL, *py = NULL;
  CHECK_OK(ct_tensor_grad(x, &gx));
  CHECK_OK(ct_tensor_grad(w, &gw));
  CHECK_OK(ct_tensor_data_ptr(gx, &px));
  CHECK_OK(ct_tensor_data_ptr(gw, &pw));
  CHECK_OK(ct_tensor_data_ptr(gy, &py));
  RELEASE(gx, gw);
  CHECK(px != pw);
  CHECK(px != py && pw != py);
  CHECK_OK(ct_tensor_backward(y, gy, 0));
  CHECK_GRAD(x, S(3), 2, 2, 2);
  CHECK_GRAD(w, S(3), 2, 2, 2);
  CHECK_TENSOR(gy, CT_FLOAT32, S(3), 1, 1, 1);
  RELEASE(x, w, gy, y);
}

static void test_plain_backward_after_create_graph_accumulates(void) {
  /* sum's gradient reaches w as ones expanded from one element; grad must still be a tensor of
   * its own that the next backward can add into: 1 + 1 = 2. */
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor *l1 = NULL, *l2 = NULL;
  CHECK_OK(ct_tensor_sum(w, NULL, 0, 0, &l1));
  CHECK_OK(ct_tensor_backward(l1, NULL, CT_GRAD_CREATE_GRAPH));
  CHECK_GRAD(w, S(3), 1, 1, 1);
  CHECK_OK(ct_tensor_sum(w, NULL, 0, 0, &l2));
  CHECK_OK(ct_tensor_backward(l2, NULL, 0));
  CHECK_GRAD(w, S(3), 2, 2, 2);
  RELEASE(w, l1, l2);
}

static void test_backward_from_a_leaf_copies_the_given_gradient(void) {
  /* w.backward(gw) twice: w.grad = 2 gw, and gw itself is never written. */
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* gw = T(CT_FLOAT32, S(3), 1, 2, 3);
  CHECK_OK(ct_tensor_backward(w, gw, 0));
  CHECK_OK(ct_tensor_backward(w, gw, 0));
  CHECK_GRAD(w, S(3), 2, 4, 6);
  CHECK_TENSOR(gw, CT_FLOAT32, S(3), 1, 2, 3);
  RELEASE(w, gw);
}

/* ---- Errors ---- */

static void test_autograd_functions_refuse_null_arguments(void) {
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  int v = 0;
  CHECK_STATUS(ct_tensor_set_requires_grad(NULL, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("ct_tensor_set_requires_grad");
  CHECK_ERROR_CONTAINS("NULL");
  CHECK_STATUS(ct_tensor_requires_grad(NULL, &v), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_requires_grad(w, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_is_leaf(NULL, &v), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_is_leaf(w, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_is_inference(NULL, &v), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_is_inference(w, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_grad(NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_grad(w, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_set_grad(NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_retain_grad(NULL), CT_ERROR_INVALID_ARGUMENT);
  char* name = (char*)capi_sentinel();
  CHECK_STATUS(ct_tensor_grad_fn_name(NULL, &name), CT_ERROR_INVALID_ARGUMENT);
  CHECK(name == NULL);
  CHECK_STATUS(ct_tensor_grad_fn_name(w, NULL), CT_ERROR_INVALID_ARGUMENT);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_detach(NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_detach(w, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_backward(NULL, NULL, 0), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("NULL");
  CHECK_STATUS(ct_autograd_backward(NULL, NULL, 1, 0), CT_ERROR_INVALID_ARGUMENT);
  const ct_tensor* outputs[1] = {w};
  CHECK_STATUS(ct_autograd_grad(outputs, NULL, 1, outputs, 1, 0, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* g = SENTINEL;
  CHECK_STATUS(ct_autograd_grad(outputs, NULL, 1, NULL, 1, 0, &g), CT_ERROR_INVALID_ARGUMENT);
  CHECK(g == NULL);
  CHECK_STATUS(ct_tensor_remove_hook(NULL, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_remove_hook(w, 123456789), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("123456789");
  CHECK_OK(ct_grad_mode_set(CT_GRAD_MODE_ENABLED, NULL)); /* previous may be NULL */
  size_t n = 0;
  CHECK_STATUS(ct_autograd_ctx_save(NULL, w), CT_ERROR_INVALID_ARGUMENT);
  out = SENTINEL;
  CHECK_STATUS(ct_autograd_ctx_saved(NULL, 0, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_autograd_ctx_saved_count(NULL, &n), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor_release(w);
}

static void test_autograd_functions_refuse_released_handles(void) {
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* loss = NULL;
  CHECK_OK(ct_tensor_sum(w, NULL, 0, 0, &loss));
  int v = 0;
  CHECK_STATUS(ct_tensor_set_requires_grad(capi_released(), 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("released");
  CHECK_STATUS(ct_tensor_requires_grad(capi_released(), &v), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_is_leaf(capi_released(), &v), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_set_grad(capi_released(), NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_set_grad(w, capi_released()), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("grad");
  CHECK_STATUS(ct_tensor_retain_grad(capi_released()), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_backward(capi_released(), NULL, 0), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("released");
  CHECK_STATUS(ct_tensor_backward(loss, capi_released(), 0), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("released");
  CHECK_NO_GRAD(w); /* nothing ran */
  CHECK_STATUS(ct_tensor_remove_hook(capi_released(), 1), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(w, loss);
}

static void test_backward_of_a_tensor_without_grad_is_refused(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* s = NULL;
  CHECK_OK(ct_tensor_sum(x, NULL, 0, 0, &s));
  CHECK_STATUS(ct_tensor_backward(s, NULL, 0), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("does not require grad");
  RELEASE(x, s);
}

static void test_backward_of_several_elements_needs_a_gradient(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* g2 = T(CT_FLOAT32, S(2), 1, 1);
  ct_tensor* y = NULL;
  CHECK_OK(ct_tensor_mul(x, w, &y));
  CHECK_STATUS(ct_tensor_backward(y, NULL, 0), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("one element");
  CHECK_ERROR_CONTAINS("[3]");
  CHECK_STATUS(ct_tensor_backward(y, g2, 0), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("[2]");
  CHECK_NO_GRAD(w);
  RELEASE(x, w, g2, y);
}

static void test_second_backward_without_retain_graph_is_refused(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor *xw = NULL, *loss = NULL;
  CHECK_OK(ct_tensor_mul(x, w, &xw));
  CHECK_OK(ct_tensor_sum(xw, NULL, 0, 0, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_STATUS(ct_tensor_backward(loss, NULL, 0), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("MulBackward");
  CHECK_ERROR_CONTAINS("second time");
  CHECK_GRAD(w, S(3), 1, 2, 3); /* the first backward's gradient, unchanged */
  RELEASE(x, w, xw, loss);
}

static void test_in_place_on_a_leaf_that_requires_grad_is_refused(void) {
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* one = T(CT_FLOAT32, S(3), 1, 1, 1);
  const ct_scalar two = SI(2);
  CHECK_STATUS(ct_tensor_add_(w, one), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("leaf tensor that requires grad");
  CHECK_ERROR_CONTAINS("in-place");
  CHECK_ERROR_CONTAINS("no_grad");
  CHECK_STATUS(ct_tensor_mul_scalar_(w, &two), CT_ERROR_INVALID_ARGUMENT);
  CHECK_TENSOR(w, CT_FLOAT32, S(3), 4, 5, 6); /* unchanged */
  RELEASE(w, one);
}

static void test_changing_a_saved_tensor_fails_backward_naming_versions(void) {
  /* y = x * w saves x for dy/dw; x += 1 afterwards makes that gradient wrong, so backward refuses. */
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor *y = NULL, *loss = NULL;
  const ct_scalar one = SI(1);
  CHECK_OK(ct_tensor_mul(x, w, &y));
  CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
  CHECK_OK(ct_tensor_add_scalar_(x, &one));
  CHECK_STATUS(ct_tensor_backward(loss, NULL, 0), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("MulBackward");
  CHECK_ERROR_CONTAINS("modified by an in-place operation");
  CHECK_ERROR_CONTAINS("version 1, expected version 0");
  CHECK_NO_GRAD(w);
  RELEASE(x, w, y, loss);
}

static void test_changing_a_saved_tensor_through_detach_is_caught(void) {
  /* detach shares the elements, so writing through it is writing the saved tensor. */
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor *y = NULL, *loss = NULL, *d = NULL;
  const ct_scalar one = SI(1);
  CHECK_OK(ct_tensor_mul(w, x, &y));
  CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
  CHECK_OK(ct_tensor_detach(x, &d));
  CHECK_OK(ct_tensor_add_scalar_(d, &one));
  CHECK_STATUS(ct_tensor_backward(loss, NULL, 0), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("version 1, expected version 0");
  RELEASE(x, w, y, loss, d);
}

static void test_requires_grad_on_an_integer_tensor_is_a_dtype_error(void) {
  ct_tensor* i = T(CT_INT32, S(2), 1, 2);
  CHECK_STATUS(ct_tensor_set_requires_grad(i, 1), CT_ERROR_DTYPE);
  CHECK_ERROR_CONTAINS("int32");
  CHECK_ERROR_CONTAINS("floating");
  CHECK(REQUIRES_GRAD(i) == 0);
  CHECK_OK(ct_tensor_set_requires_grad(i, 0)); /* clearing is always fine on a leaf */
  ct_tensor_release(i);
}

static void test_unknown_flags_are_refused(void) {
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* loss = NULL;
  CHECK_OK(ct_tensor_sum(w, NULL, 0, 0, &loss));
  CHECK_STATUS(ct_tensor_backward(loss, NULL, 8), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("unknown flags 8");
  CHECK_STATUS(ct_tensor_backward(loss, NULL, CT_GRAD_ALLOW_UNUSED), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("CT_GRAD_ALLOW_UNUSED");
  const ct_tensor* outputs[1] = {loss};
  const ct_tensor* inputs[1] = {w};
  ct_tensor* g = SENTINEL;
  CHECK_STATUS(ct_autograd_grad(outputs, NULL, 1, inputs, 1, 64, &g), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("unknown flags 64");
  CHECK(g == NULL);
  CHECK_NO_GRAD(w);
  CHECK_OK(ct_tensor_backward(loss, NULL, 0)); /* the refusals left the graph intact */
  CHECK_GRAD(w, S(3), 1, 1, 1);
  RELEASE(w, loss);
}

static void test_unknown_grad_mode_is_refused(void) {
  ct_grad_mode prev = CT_GRAD_MODE_INFERENCE;
  CHECK(ct_grad_mode_get() == CT_GRAD_MODE_ENABLED);
  CHECK_STATUS(ct_grad_mode_set((ct_grad_mode)7, &prev), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("unknown mode 7");
  CHECK_STATUS(ct_grad_mode_set((ct_grad_mode)-1, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK(ct_grad_mode_get() == CT_GRAD_MODE_ENABLED);
  CHECK(prev == CT_GRAD_MODE_INFERENCE); /* untouched on failure */
}

/* ---- Grad modes ---- */

static void test_no_grad_records_nothing_and_restores_the_mode(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor *y = NULL, *z = NULL;
  ct_grad_mode prev = CT_GRAD_MODE_INFERENCE, inner = CT_GRAD_MODE_ENABLED;
  CHECK_OK(ct_grad_mode_set(CT_GRAD_MODE_NO_GRAD, &prev));
  const ct_grad_mode during = ct_grad_mode_get();
  const ct_status st_y = ct_tensor_mul(x, w, &y);
  /* Nested scopes restore in turn: ENABLED inside NO_GRAD records again. */
  const ct_status st_in = ct_grad_mode_set(CT_GRAD_MODE_ENABLED, &inner);
  const ct_status st_z = ct_tensor_mul(x, w, &z);
  const ct_status st_back = ct_grad_mode_set(inner, NULL);
  const ct_grad_mode after_inner = ct_grad_mode_get();
  CHECK_OK(ct_grad_mode_set(prev, NULL));
  CHECK(prev == CT_GRAD_MODE_ENABLED);
  CHECK(during == CT_GRAD_MODE_NO_GRAD);
  CHECK(inner == CT_GRAD_MODE_NO_GRAD);
  CHECK(after_inner == CT_GRAD_MODE_NO_GRAD);
  CHECK(ct_grad_mode_get() == CT_GRAD_MODE_ENABLED);
  CHECK(st_y == CT_OK && st_in == CT_OK && st_z == CT_OK && st_back == CT_OK);
  CHECK_TENSOR(y, CT_FLOAT32, S(3), 4, 10, 18);
  CHECK(REQUIRES_GRAD(y) == 0 && IS_LEAF(y) == 1);
  CHECK_NO_GRAD_FN(y);
  CHECK(IS_INFERENCE(y) == 0);
  CHECK(REQUIRES_GRAD(z) == 1);
  RELEASE(x, w, y, z);
}

static void test_backward_runs_under_no_grad(void) {
  /* As in PyTorch, no_grad stops recording, not backward through a graph recorded before. */
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* loss = NULL;
  CHECK_OK(ct_tensor_sum(w, NULL, 0, 0, &loss));
  ct_grad_mode prev;
  CHECK_OK(ct_grad_mode_set(CT_GRAD_MODE_NO_GRAD, &prev));
  const ct_status st = ct_tensor_backward(loss, NULL, 0);
  CHECK_OK(ct_grad_mode_set(prev, NULL));
  CHECK_OK(st);
  CHECK_GRAD(w, S(3), 1, 1, 1);
  RELEASE(w, loss);
}

static void test_inference_mode_makes_inference_tensors(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor *y = NULL, *saved = NULL, *added = NULL;
  ct_grad_mode prev;
  CHECK_OK(ct_grad_mode_set(CT_GRAD_MODE_INFERENCE, &prev));
  const ct_grad_mode during = ct_grad_mode_get();
  const ct_status st_y = ct_tensor_mul(x, w, &y);
  CHECK_OK(ct_grad_mode_set(prev, NULL));
  CHECK(during == CT_GRAD_MODE_INFERENCE);
  CHECK(prev == CT_GRAD_MODE_ENABLED);
  CHECK_OK(st_y);
  CHECK_TENSOR(y, CT_FLOAT32, S(3), 4, 10, 18);
  CHECK(IS_INFERENCE(y) == 1);
  CHECK(REQUIRES_GRAD(y) == 0 && IS_LEAF(y) == 1);
  CHECK(IS_INFERENCE(x) == 0 && IS_INFERENCE(w) == 0);

  /* Later, mul would save y for dw: refused. add saves nothing, so it may use y. */
  CHECK_STATUS(ct_tensor_mul(y, w, &saved), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("inference tensor");
  CHECK_ERROR_CONTAINS("cannot be saved for backward");
  CHECK(saved == NULL);
  CHECK_OK(ct_tensor_add(y, w, &added));
  CHECK(REQUIRES_GRAD(added) == 1 && IS_INFERENCE(added) == 0);

  /* An inference tensor cannot start requiring grad outside inference mode. */
  CHECK_STATUS(ct_tensor_set_requires_grad(y, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("inference");
  RELEASE(x, w, y, added);
}

static void test_in_place_through_a_view_moves_its_base_history(void) {
  /* h = x * 1; h[1:3] *= w in place: loss = x0 + x1 w0 + x2 w1. */
  ct_tensor* x = LEAF(S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(2), 4, 5);
  ct_tensor *h = NULL, *v = NULL, *xv = NULL, *loss = NULL;
  const ct_scalar one = SI(1);
  CHECK_OK(ct_tensor_mul_scalar(x, &one, &h));
  CHECK_OK(ct_tensor_narrow(h, 0, 1, 2, &v));
  CHECK_OK(ct_tensor_mul_(v, w));
  CHECK_GRAD_FN(h, "CopySlices");
  CHECK_TENSOR(h, CT_FLOAT32, S(3), 1, 8, 15);
  CHECK_OK(ct_tensor_sum(h, NULL, 0, 0, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_GRAD(x, S(3), 1, 4, 5);
  CHECK_GRAD(w, S(2), 2, 3);
  /* A view of a leaf that requires grad is refused, as the leaf itself is. */
  CHECK_OK(ct_tensor_narrow(x, 0, 0, 2, &xv));
  CHECK_STATUS(ct_tensor_mul_(xv, w), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("of a leaf tensor that requires grad");
  CHECK_TENSOR(x, CT_FLOAT32, S(3), 1, 2, 3); /* unchanged */
  RELEASE(x, w, h, v, xv, loss);
}
static void test_in_place_on_an_inference_tensor_outside_inference_mode_is_refused(void) {
  /* ctorch.h: "changing an inference tensor in place outside inference mode is refused" (PyTorch:
   * "Inplace update to inference tensor outside InferenceMode is not allowed"), in no_grad too. */
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* y = NULL;
  const ct_scalar one = SI(1);
  ct_grad_mode prev;
  CHECK_OK(ct_grad_mode_set(CT_GRAD_MODE_INFERENCE, &prev));
  const ct_status st_y = ct_tensor_mul(x, x, &y);
  const ct_status st_inside = y ? ct_tensor_add_scalar_(y, &one) : CT_ERROR_INTERNAL; /* allowed inside */
  CHECK_OK(ct_grad_mode_set(prev, NULL));
  CHECK_OK(st_y);
  CHECK_OK(st_inside);
  CHECK_TENSOR(y, CT_FLOAT32, S(3), 2, 5, 10);
  CHECK(ct_tensor_add_scalar_(y, &one) != CT_OK);
  CHECK_ERROR_CONTAINS("inference");
  CHECK_OK(ct_grad_mode_set(CT_GRAD_MODE_NO_GRAD, &prev));
  const ct_status st_no_grad = ct_tensor_add_scalar_(y, &one);
  CHECK_OK(ct_grad_mode_set(prev, NULL));
  CHECK(st_no_grad != CT_OK);
  CHECK_TENSOR(y, CT_FLOAT32, S(3), 2, 5, 10);
  RELEASE(x, y);
}

static void* read_grad_mode(void* out) {
  *(ct_grad_mode*)out = ct_grad_mode_get();
  return NULL;
}

static void test_grad_mode_is_per_thread(void) {
  ct_grad_mode prev, other = CT_GRAD_MODE_INFERENCE;
  pthread_t th;
  CHECK_OK(ct_grad_mode_set(CT_GRAD_MODE_NO_GRAD, &prev));
  const int created = pthread_create(&th, NULL, read_grad_mode, &other) == 0;
  if (created) pthread_join(th, NULL);
  CHECK_OK(ct_grad_mode_set(prev, NULL));
  CHECK(created);
  CHECK(other == CT_GRAD_MODE_ENABLED);
}

/* ---- Hooks ---- */

typedef struct {
  int calls;
  int destroyed;
  float seen[4];       /* the last gradient the hook saw (first 4 elements) */
  ct_status fail_with; /* the failing hook's status */
} hook_state;

static void hook_destroy(void* user_data) { ((hook_state*)user_data)->destroyed++; }

static ct_status remember(hook_state* s, const ct_tensor* grad) {
  int64_t n = 0;
  s->calls++;
  ct_status st = ct_tensor_numel(grad, &n);
  if (st == CT_OK && n <= 4) st = ct_tensor_copy_to(grad, s->seen, (size_t)n * sizeof(float));
  return st;
}

static ct_status counting_hook(void* user_data, const ct_tensor* grad, ct_tensor** replacement) {
  (void)replacement;
  return remember((hook_state*)user_data, grad);
}

static ct_status doubling_hook(void* user_data, const ct_tensor* grad, ct_tensor** replacement) {
  const ct_scalar two = SI(2);
  ct_status st = remember((hook_state*)user_data, grad);
  if (st == CT_OK) st = ct_tensor_mul_scalar(grad, &two, replacement);
  if (st != CT_OK) ct_error_set(st, ct_last_error());
  return st;
}

static ct_status failing_hook(void* user_data, const ct_tensor* grad, ct_tensor** replacement) {
  hook_state* s = (hook_state*)user_data;
  (void)grad;
  (void)replacement;
  s->calls++;
  ct_error_set(s->fail_with, "gradient clipping: the budget for this step is spent");
  return s->fail_with;
}

static ct_status wrong_sizes_hook(void* user_data, const ct_tensor* grad, ct_tensor** replacement) {
  (void)user_data;
  (void)grad;
  const int64_t n = 2;
  return ct_tensor_zeros(&n, 1, CT_FLOAT32, NULL, replacement);
}

static void test_hook_on_a_leaf_sees_every_gradient(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* b = LEAF(S(1), 0);
  hook_state s = {0};
  int64_t id = -1;
  CHECK_OK(ct_tensor_register_hook(w, counting_hook, &s, hook_destroy, &id));
  for (int i = 0; i < 2; ++i) {
    ct_tensor* loss = NULL;
    CHECK_OK(affine_sum(x, w, b, &loss));
    CHECK_OK(ct_tensor_backward(loss, NULL, 0));
    ct_tensor_release(loss);
  }
  CHECK(s.calls == 2);
  CHECK(s.seen[0] == 1 && s.seen[1] == 2 && s.seen[2] == 3); /* this backward's gradient, not the sum */
  CHECK_GRAD(w, S(3), 2, 4, 6);                             /* inspecting changes nothing */
  CHECK(s.destroyed == 0);

  /* Removal: destroy runs at once, and later backward calls skip the hook. */
  CHECK_OK(ct_tensor_remove_hook(w, id));
  CHECK(s.destroyed == 1);
  CHECK_STATUS(ct_tensor_remove_hook(w, id), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* loss = NULL;
  CHECK_OK(affine_sum(x, w, b, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK(s.calls == 2);
  CHECK(s.destroyed == 1);
  RELEASE(x, w, b, loss);
  CHECK(s.destroyed == 1);
}

static void test_hook_can_replace_the_gradient(void) {
  /* The doubling hook on w: w.grad = 2x. On b, registered twice: 3 * 2 * 2 = 12. */
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* b = LEAF(S(1), 0);
  hook_state sw = {0}, sb1 = {0}, sb2 = {0};
  int64_t id_w = 0, id_b1 = 0, id_b2 = 0;
  CHECK_OK(ct_tensor_register_hook(w, doubling_hook, &sw, hook_destroy, &id_w));
  CHECK_OK(ct_tensor_register_hook(b, doubling_hook, &sb1, hook_destroy, &id_b1));
  CHECK_OK(ct_tensor_register_hook(b, doubling_hook, &sb2, hook_destroy, &id_b2));
  CHECK(id_w != id_b1 && id_b1 != id_b2);
  ct_tensor* loss = NULL;
  CHECK_OK(affine_sum(x, w, b, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_GRAD(w, S(3), 2, 4, 6);
  CHECK_GRAD(b, S(1), 12);
  CHECK(sb1.seen[0] == 3 && sb2.seen[0] == 6); /* in registration order, each sees the last one's */
  RELEASE(x, loss);
  CHECK(sw.destroyed == 0 && sb1.destroyed == 0);
  RELEASE(w, b); /* a leaf's hooks go with the leaf */
  CHECK(sw.destroyed == 1 && sb1.destroyed == 1 && sb2.destroyed == 1);
}

static void test_hook_on_a_non_leaf_changes_what_flows_back(void) {
  /* h = x * w with a doubling hook, loss = sum(h): dloss/dh = [1, 1, 1] becomes 2, so w.grad = 2x. */
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  hook_state s = {0};
  int64_t id = 0;
  ct_tensor *h = NULL, *loss = NULL;
  CHECK_OK(ct_tensor_mul(x, w, &h));
  CHECK_OK(ct_tensor_register_hook(h, doubling_hook, &s, hook_destroy, &id));
  CHECK_OK(ct_tensor_sum(h, NULL, 0, 0, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, CT_GRAD_RETAIN_GRAPH));
  CHECK(s.calls == 1);
  CHECK(s.seen[0] == 1 && s.seen[1] == 1 && s.seen[2] == 1);
  CHECK_GRAD(w, S(3), 2, 4, 6);

  CHECK_OK(ct_tensor_remove_hook(h, id));
  CHECK(s.destroyed == 1);
  CHECK_OK(ct_tensor_set_grad(w, NULL));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK(s.calls == 1);
  CHECK_GRAD(w, S(3), 1, 2, 3);
  RELEASE(x, w, h, loss);
  CHECK(s.destroyed == 1);
}

static void test_hook_user_data_lives_as_long_as_the_graph(void) {
  /* A non-leaf's hook belongs to the node that made it: it lives while the tensor or any graph
   * through it does, and destroy runs once when the last of them goes. */
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  hook_state s = {0};
  int64_t id = 0;
  ct_tensor *h = NULL, *loss = NULL;
  CHECK_OK(ct_tensor_mul(x, w, &h));
  CHECK_OK(ct_tensor_register_hook(h, counting_hook, &s, hook_destroy, &id));
  CHECK_OK(ct_tensor_sum(h, NULL, 0, 0, &loss));
  ct_tensor_release(h);
  CHECK(s.destroyed == 0); /* loss's graph still reaches h's node */
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK(s.calls == 1);
  ct_tensor_release(loss);
  CHECK(s.destroyed == 1);
  RELEASE(x, w);
  CHECK(s.destroyed == 1);
}

static void test_hook_runs_once_on_the_summed_gradient_and_in_autograd_grad(void) {
  /* loss = sum(w * w) uses w twice: its hook runs once, on 2w = [8, 10, 12]. ct_autograd_grad
   * runs hooks too, and returns what they made of the gradient. */
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  hook_state s = {0};
  int64_t id = 0;
  ct_tensor *ww = NULL, *loss = NULL, *g = NULL;
  CHECK_OK(ct_tensor_register_hook(w, doubling_hook, &s, hook_destroy, &id));
  CHECK_OK(ct_tensor_mul(w, w, &ww));
  CHECK_OK(ct_tensor_sum(ww, NULL, 0, 0, &loss));
  const ct_tensor* outputs[1] = {loss};
  const ct_tensor* inputs[1] = {w};
  CHECK_OK(ct_autograd_grad(outputs, NULL, 1, inputs, 1, 0, &g));
  CHECK(s.calls == 1);
  CHECK(s.seen[0] == 8 && s.seen[1] == 10 && s.seen[2] == 12);
  CHECK_TENSOR(g, CT_FLOAT32, S(3), 16, 20, 24);
  CHECK_NO_GRAD(w);
  RELEASE(w, ww, loss, g);
  CHECK(s.destroyed == 1);
}

static void test_failed_hook_registration_destroys_user_data(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  hook_state s = {0};
  int64_t id = 0;
  CHECK_STATUS(ct_tensor_register_hook(x, counting_hook, &s, hook_destroy, &id), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("does not require grad");
  CHECK(s.destroyed == 1);
  CHECK_STATUS(ct_tensor_register_hook(NULL, counting_hook, &s, hook_destroy, &id), CT_ERROR_INVALID_ARGUMENT);
  CHECK(s.destroyed == 2);
  CHECK_STATUS(ct_tensor_register_hook(w, NULL, &s, hook_destroy, &id), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("fn is NULL");
  CHECK(s.destroyed == 3);
  CHECK_STATUS(ct_tensor_register_hook(w, counting_hook, &s, hook_destroy, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK(s.destroyed == 4);
  CHECK_OK(ct_tensor_register_hook(w, counting_hook, &s, NULL, &id)); /* destroy may be NULL */
  RELEASE(x, w);
  CHECK(s.destroyed == 4 && s.calls == 0);
}

static void test_failing_hook_stops_backward_with_its_status_and_message(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* b = LEAF(S(1), 0);
  hook_state s = {0};
  s.fail_with = CT_ERROR_BACKEND;
  int64_t id = 0;
  CHECK_OK(ct_tensor_register_hook(w, failing_hook, &s, hook_destroy, &id));
  ct_tensor* loss = NULL;
  CHECK_OK(affine_sum(x, w, b, &loss));
  CHECK_STATUS(ct_tensor_backward(loss, NULL, 0), CT_ERROR_BACKEND);
  CHECK_ERROR_CONTAINS("gradient clipping: the budget for this step is spent");
  CHECK(s.calls == 1);
  CHECK_NO_GRAD(w);
  RELEASE(x, w, b, loss);
  CHECK(s.destroyed == 1);
}

static void test_hook_replacement_of_other_sizes_is_a_shape_error(void) {
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  int64_t id = 0;
  ct_tensor* loss = NULL;
  CHECK_OK(ct_tensor_register_hook(w, wrong_sizes_hook, NULL, NULL, &id));
  CHECK_OK(ct_tensor_sum(w, NULL, 0, 0, &loss));
  CHECK_STATUS(ct_tensor_backward(loss, NULL, 0), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("[2]");
  CHECK_ERROR_CONTAINS("[3]");
  CHECK_NO_GRAD(w);
  RELEASE(w, loss);
}

/* ---- Post-accumulate hooks ---- */

typedef struct {
  int calls;
  int destroyed;
  float seen[4];          /* the leaf's grad when the hook last ran (first 4 elements) */
  const ct_tensor* leaf;  /* the handle the hook was given */
  ct_status fail_with;    /* nonzero: fail with this status */
  int halve;              /* nonzero: replace the grad by half of it, as data-parallel averaging does */
  ct_tensor* owned;       /* nonNULL: the hook releases it (the leaf's last reference) */
} post_state;

static void post_destroy(void* user_data) { ((post_state*)user_data)->destroyed++; }

static ct_status post_hook(void* user_data, ct_tensor* t) {
  post_state* s = (post_state*)user_data;
  s->calls++;
  s->leaf = t;
  if (s->owned) {
    ct_tensor* last = s->owned;
    s->owned = NULL;
    ct_tensor_release(last);
    return CT_OK;
  }
  if (s->fail_with) {
    ct_error_set(s->fail_with, "all_reduce of bucket 0: rank 1 is gone");
    return s->fail_with;
  }
  ct_tensor *g = NULL, *half = NULL;
  int64_t n = 0;
  ct_status st = ct_tensor_grad(t, &g);
  if (st == CT_OK) st = ct_tensor_numel(g, &n);
  if (st == CT_OK && n <= 4) st = ct_tensor_copy_to(g, s->seen, (size_t)n * sizeof(float));
  if (st == CT_OK && s->halve) {
    const ct_scalar h = SF(0.5);
    st = ct_tensor_mul_scalar(g, &h, &half);
    if (st == CT_OK) st = ct_tensor_set_grad(t, half);
  }
  RELEASE(g, half);
  if (st != CT_OK) ct_error_set(st, ct_last_error());
  return st;
}

static void test_post_accumulate_hook_sees_the_accumulated_grad(void) {
  /* loss = sum(x * w + b): each backward adds x = [1, 2, 3] into w.grad. The hook runs after the
   * addition, so it sees the running sum ([1, 2, 3], then [2, 4, 6]), not this backward's part. */
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* b = LEAF(S(1), 0);
  post_state s = {0};
  int64_t id = -1, pre_id = -1;
  hook_state pre = {0};
  CHECK_OK(ct_tensor_register_post_accumulate_grad_hook(w, post_hook, &s, post_destroy, &id));
  CHECK_OK(ct_tensor_register_hook(w, counting_hook, &pre, NULL, &pre_id));
  CHECK(id != pre_id);
  for (int i = 1; i <= 2; ++i) {
    ct_tensor* loss = NULL;
    CHECK_OK(affine_sum(x, w, b, &loss));
    CHECK_OK(ct_tensor_backward(loss, NULL, 0));
    ct_tensor_release(loss);
    CHECK(s.calls == i);
    CHECK(s.leaf == w); /* the leaf itself */
    CHECK(s.seen[0] == i && s.seen[1] == 2 * i && s.seen[2] == 3 * i);
    CHECK(pre.seen[0] == 1 && pre.seen[2] == 3); /* a gradient hook still sees this backward's part */
  }
  CHECK(s.destroyed == 0);

  /* ct_tensor_remove_hook removes it: destroy runs at once, later backward calls skip it. */
  CHECK_OK(ct_tensor_remove_hook(w, id));
  CHECK(s.destroyed == 1);
  CHECK_STATUS(ct_tensor_remove_hook(w, id), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* loss = NULL;
  CHECK_OK(affine_sum(x, w, b, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK(s.calls == 2);
  CHECK_GRAD(w, S(3), 3, 6, 9);
  CHECK_OK(ct_tensor_remove_hook(w, pre_id));
  RELEASE(x, w, b, loss);
  CHECK(s.destroyed == 1);
}

static void test_post_accumulate_hook_can_replace_the_grad(void) {
  /* Halving in the hook, as averaging over two ranks does: w.grad = x / 2 after one backward. */
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* b = LEAF(S(1), 0);
  post_state sw = {0}, sb = {0};
  sw.halve = sb.halve = 1;
  int64_t id_w = 0, id_b = 0;
  CHECK_OK(ct_tensor_register_post_accumulate_grad_hook(w, post_hook, &sw, post_destroy, &id_w));
  CHECK_OK(ct_tensor_register_post_accumulate_grad_hook(b, post_hook, &sb, post_destroy, &id_b));
  ct_tensor* loss = NULL;
  CHECK_OK(affine_sum(x, w, b, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK(sw.calls == 1 && sb.calls == 1);
  CHECK(sb.leaf == b);
  CHECK_GRAD(w, S(3), 0.5, 1, 1.5);
  CHECK_GRAD(b, S(1), 1.5); /* 3 halved */
  RELEASE(x, loss);
  CHECK(sw.destroyed == 0);
  RELEASE(w, b); /* a leaf's hooks go with the leaf */
  CHECK(sw.destroyed == 1 && sb.destroyed == 1);
}

static void test_post_accumulate_hook_of_a_released_leaf_never_runs(void) {
  /* The graph of loss still reaches w's accumulator, but w is gone: its hook went with it. */
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* b = LEAF(S(1), 0);
  post_state s = {0};
  int64_t id = 0;
  ct_tensor* loss = NULL;
  CHECK_OK(ct_tensor_register_post_accumulate_grad_hook(w, post_hook, &s, post_destroy, &id));
  CHECK_OK(affine_sum(x, w, b, &loss));
  ct_tensor_release(w);
  CHECK(s.destroyed == 1);
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK(s.calls == 0);
  CHECK_GRAD(b, S(1), 3);
  RELEASE(x, b, loss);
}

static void test_post_accumulate_hook_may_drop_its_leafs_last_reference(void) {
  /* The first hook releases w's last reference while backward runs: w goes when it returns, and
   * w's second hook, registered after it, does not run. */
  ct_tensor* w = LEAF(S(2), 1, 2);
  post_state first = {0}, second = {0};
  int64_t id1 = 0, id2 = 0;
  ct_tensor* loss = NULL;
  CHECK_OK(ct_tensor_register_post_accumulate_grad_hook(w, post_hook, &first, post_destroy, &id1));
  CHECK_OK(ct_tensor_register_post_accumulate_grad_hook(w, post_hook, &second, post_destroy, &id2));
  CHECK_OK(ct_tensor_sum(w, NULL, 0, 0, &loss));
  first.owned = w; /* hands the test's reference to the hook */
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK(first.calls == 1 && first.owned == NULL);
  CHECK(second.calls == 0);
  CHECK(first.destroyed == 1 && second.destroyed == 1);
  ct_tensor_release(loss);
}

static void test_failing_post_accumulate_hook_stops_backward_with_its_status_and_message(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* b = LEAF(S(1), 0);
  post_state s = {0};
  s.fail_with = CT_ERROR_DISTRIBUTED;
  int64_t id = 0;
  ct_tensor* loss = NULL;
  CHECK_OK(ct_tensor_register_post_accumulate_grad_hook(w, post_hook, &s, post_destroy, &id));
  CHECK_OK(affine_sum(x, w, b, &loss));
  CHECK_STATUS(ct_tensor_backward(loss, NULL, 0), CT_ERROR_DISTRIBUTED);
  CHECK_ERROR_CONTAINS("all_reduce of bucket 0: rank 1 is gone");
  CHECK(s.calls == 1);
  CHECK_GRAD(w, S(3), 1, 2, 3); /* it ran after the gradient was added */
  RELEASE(x, w, b, loss);
  CHECK(s.destroyed == 1);
}

static void test_post_accumulate_hook_registration_is_refused_off_leaves(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  ct_tensor* h = NULL;
  post_state s = {0};
  int64_t id = 0;
  CHECK_OK(ct_tensor_mul(x, w, &h));
  CHECK_STATUS(ct_tensor_register_post_accumulate_grad_hook(h, post_hook, &s, post_destroy, &id),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("leaf");
  CHECK(s.destroyed == 1); /* destroy runs on every failure */
  CHECK_STATUS(ct_tensor_register_post_accumulate_grad_hook(x, post_hook, &s, post_destroy, &id),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("does not require grad");
  CHECK(s.destroyed == 2);
  CHECK_STATUS(ct_tensor_register_post_accumulate_grad_hook(NULL, post_hook, &s, post_destroy, &id),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK(s.destroyed == 3);
  CHECK_STATUS(ct_tensor_register_post_accumulate_grad_hook(w, NULL, &s, post_destroy, &id),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("fn is NULL");
  CHECK(s.destroyed == 4);
  CHECK_STATUS(ct_tensor_register_post_accumulate_grad_hook(w, post_hook, &s, post_destroy, NULL),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK(s.destroyed == 5);
  CHECK_STATUS(ct_tensor_register_post_accumulate_grad_hook(capi_released(), post_hook, &s, post_destroy, &id),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK(s.destroyed == 6);
  RELEASE(x, w, h);
  CHECK(s.calls == 0);
}

/* ---- Custom functions ---- */

typedef struct {
  int forward_calls;
  int backward_calls;
  int destroyed;
  ct_grad_mode forward_mode; /* the grad mode forward ran under */
  size_t saved_count;
  ct_status saved_out_of_range; /* ct_autograd_ctx_saved(ctx, saved_count) in backward */
  ct_status count_in_forward;   /* ct_autograd_ctx_saved_count in forward, after saving */
  ct_status save_in_backward;   /* ct_autograd_ctx_save in backward */
} fn_state;

static void fn_destroy(void* user_data) { ((fn_state*)user_data)->destroyed++; }

/* Cube: y = x^3 with ctorch operators, saving x; refuses inputs that are not 1-D. */
static ct_status cube_forward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* inputs, size_t n_inputs,
                              ct_tensor** outputs, size_t n_outputs) {
  fn_state* s = (fn_state*)user_data;
  size_t ndim = 0;
  ct_tensor* sq = NULL;
  (void)n_inputs;
  (void)n_outputs;
  s->forward_calls++;
  s->forward_mode = ct_grad_mode_get();
  ct_status st = ct_tensor_ndim(inputs[0], &ndim);
  if (st == CT_OK && ndim != 1) {
    char msg[96];
    snprintf(msg, sizeof msg, "x must be 1-D, got %zu dims. Flatten it first", ndim);
    ct_error_set(CT_ERROR_SHAPE, msg);
    return CT_ERROR_SHAPE;
  }
  if (st == CT_OK) st = ct_tensor_mul(inputs[0], inputs[0], &sq);
  if (st == CT_OK) st = ct_tensor_mul(sq, inputs[0], &outputs[0]);
  if (st == CT_OK) st = ct_autograd_ctx_save(ctx, inputs[0]);
  if (st == CT_OK) {
    size_t n = 0;
    s->count_in_forward = ct_autograd_ctx_saved_count(ctx, &n);
  }
  ct_tensor_release(sq);
  if (st != CT_OK) ct_error_set(st, ct_last_error());
  return st;
}

/* dy/dx = 3 x^2 g. */
static ct_status cube_backward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* grad_outputs,
                               size_t n_outputs, ct_tensor** grad_inputs, size_t n_inputs) {
  fn_state* s = (fn_state*)user_data;
  const ct_scalar three = SI(3);
  ct_tensor *x = NULL, *sq = NULL, *sq3 = NULL, *extra = NULL;
  (void)n_outputs;
  (void)n_inputs;
  s->backward_calls++;
  ct_status st = ct_autograd_ctx_saved_count(ctx, &s->saved_count);
  if (st == CT_OK) {
    s->saved_out_of_range = ct_autograd_ctx_saved(ctx, s->saved_count, &extra);
    s->save_in_backward = ct_autograd_ctx_save(ctx, grad_outputs[0]);
    st = ct_autograd_ctx_saved(ctx, 0, &x);
  }
  if (st == CT_OK) st = ct_tensor_mul(x, x, &sq);
  if (st == CT_OK) st = ct_tensor_mul_scalar(sq, &three, &sq3);
  if (st == CT_OK) st = ct_tensor_mul(sq3, grad_outputs[0], &grad_inputs[0]);
  RELEASE(x, sq, sq3, extra);
  if (st != CT_OK) ct_error_set(st, ct_last_error());
  return st;
}

static ct_status apply1(const char* name, ct_function_forward_fn fwd, ct_function_backward_fn bwd, fn_state* s,
                        const ct_tensor* x, ct_tensor** y) {
  const ct_tensor* inputs[1] = {x};
  return ct_autograd_function_apply(name, fwd, bwd, s, fn_destroy, inputs, 1, y, 1);
}

static void test_custom_function_cube_gradient(void) {
  ct_tensor* x = LEAF(S(3), 1, 2, 3);
  fn_state s = {0};
  s.forward_mode = CT_GRAD_MODE_INFERENCE;
  ct_tensor *y = NULL, *loss = NULL;
  CHECK_OK(apply1("Cube", cube_forward, cube_backward, &s, x, &y));
  CHECK(s.forward_calls == 1 && s.backward_calls == 0);
  CHECK(s.forward_mode == CT_GRAD_MODE_NO_GRAD);
  CHECK(ct_grad_mode_get() == CT_GRAD_MODE_ENABLED);
  CHECK_TENSOR(y, CT_FLOAT32, S(3), 1, 8, 27);
  CHECK(REQUIRES_GRAD(y) == 1 && IS_LEAF(y) == 0);
  CHECK_GRAD_FN(y, "CubeBackward");
  CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK(s.backward_calls == 1);
  CHECK_GRAD(x, S(3), 3, 12, 27);
  CHECK(s.saved_count == 1);
  CHECK(s.count_in_forward == CT_ERROR_INVALID_ARGUMENT);
  CHECK(s.saved_out_of_range == CT_ERROR_INDEX);
  CHECK(s.save_in_backward == CT_ERROR_INVALID_ARGUMENT);
  CHECK(s.destroyed == 0);
  RELEASE(loss, y);
  CHECK(s.destroyed == 1); /* the node went with the last tensor that reached it */
  ct_tensor_release(x);
  CHECK(s.destroyed == 1);
}

static void test_custom_function_second_derivative_through_its_backward(void) {
  /* Cube's backward uses ctorch operators, so with CT_GRAD_CREATE_GRAPH it is recorded: 6x. */
  ct_tensor* x = LEAF(S(3), 1, 2, 3);
  fn_state s = {0};
  ct_tensor *y = NULL, *loss = NULL, *g = NULL, *gs = NULL, *h = NULL;
  CHECK_OK(apply1("Cube", cube_forward, cube_backward, &s, x, &y));
  CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
  const ct_tensor* inputs[1] = {x};
  const ct_tensor* out1[1] = {loss};
  CHECK_OK(ct_autograd_grad(out1, NULL, 1, inputs, 1, CT_GRAD_CREATE_GRAPH, &g));
  CHECK_TENSOR(g, CT_FLOAT32, S(3), 3, 12, 27);
  CHECK(REQUIRES_GRAD(g) == 1);
  CHECK_OK(ct_tensor_sum(g, NULL, 0, 0, &gs));
  const ct_tensor* out2[1] = {gs};
  CHECK_OK(ct_autograd_grad(out2, NULL, 1, inputs, 1, 0, &h));
  CHECK_TENSOR(h, CT_FLOAT32, S(3), 6, 12, 18);
  RELEASE(x, y, loss, g, gs, h);
  CHECK(s.destroyed == 1);
}

static void test_custom_function_forward_error_reaches_the_caller(void) {
  ct_tensor* x = LEAF(S(2, 2), 1, 2, 3, 4);
  fn_state s = {0};
  ct_tensor* y = SENTINEL;
  CHECK_STATUS(apply1("Cube", cube_forward, cube_backward, &s, x, &y), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("Cube");
  CHECK_ERROR_CONTAINS("x must be 1-D, got 2 dims. Flatten it first");
  CHECK(y == NULL);
  CHECK(s.forward_calls == 1);
  CHECK(s.destroyed == 1);
  ct_tensor_release(x);
}

static void test_custom_function_records_nothing_without_grad(void) {
  /* No input requires grad, or grad mode is off: a plain result, and destroy before returning. */
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 1, 2, 3);
  fn_state s1 = {0}, s2 = {0};
  ct_tensor *y1 = NULL, *y2 = NULL;
  CHECK_OK(apply1("Cube", cube_forward, cube_backward, &s1, x, &y1));
  CHECK(s1.destroyed == 1);
  CHECK_TENSOR(y1, CT_FLOAT32, S(3), 1, 8, 27);
  CHECK(REQUIRES_GRAD(y1) == 0 && IS_LEAF(y1) == 1);
  ct_grad_mode prev;
  CHECK_OK(ct_grad_mode_set(CT_GRAD_MODE_NO_GRAD, &prev));
  const ct_status st = apply1("Cube", cube_forward, cube_backward, &s2, w, &y2);
  CHECK_OK(ct_grad_mode_set(prev, NULL));
  CHECK_OK(st);
  CHECK(s2.destroyed == 1);
  CHECK(REQUIRES_GRAD(y2) == 0);
  RELEASE(x, w, y1, y2);
  CHECK(s1.destroyed == 1 && s2.destroyed == 1);
}

static ct_status failing_backward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* grad_outputs,
                                  size_t n_outputs, ct_tensor** grad_inputs, size_t n_inputs) {
  (void)ctx;
  (void)grad_outputs;
  (void)n_outputs;
  (void)grad_inputs;
  (void)n_inputs;
  ((fn_state*)user_data)->backward_calls++;
  ct_error_set(CT_ERROR_NOT_IMPLEMENTED, "Opaque has no gradient for x yet");
  return CT_ERROR_NOT_IMPLEMENTED;
}

static void test_custom_function_backward_error_reaches_backward_caller(void) {
  ct_tensor* x = LEAF(S(3), 1, 2, 3);
  fn_state s = {0};
  ct_tensor *y = NULL, *loss = NULL;
  CHECK_OK(apply1("Opaque", cube_forward, failing_backward, &s, x, &y));
  CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
  CHECK_STATUS(ct_tensor_backward(loss, NULL, 0), CT_ERROR_NOT_IMPLEMENTED);
  CHECK_ERROR_CONTAINS("OpaqueBackward");
  CHECK_ERROR_CONTAINS("Opaque has no gradient for x yet");
  CHECK(s.backward_calls == 1);
  CHECK_NO_GRAD(x);
  RELEASE(x, y, loss);
  CHECK(s.destroyed == 1);
}

/* Exp: y = exp(x), saving its own output y, as torch.exp's derivative does; dy/dx = y g. */
static ct_status exp_forward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* inputs, size_t n_inputs,
                             ct_tensor** outputs, size_t n_outputs) {
  (void)n_inputs;
  (void)n_outputs;
  ((fn_state*)user_data)->forward_calls++;
  ct_status st = ct_tensor_exp(inputs[0], &outputs[0]);
  if (st == CT_OK) st = ct_autograd_ctx_save(ctx, outputs[0]);
  if (st != CT_OK) ct_error_set(st, ct_last_error());
  return st;
}

static ct_status exp_backward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* grad_outputs,
                              size_t n_outputs, ct_tensor** grad_inputs, size_t n_inputs) {
  ct_tensor* y = NULL;
  (void)n_outputs;
  (void)n_inputs;
  ((fn_state*)user_data)->backward_calls++;
  ct_status st = ct_autograd_ctx_saved(ctx, 0, &y);
  if (st == CT_OK) st = ct_tensor_mul(y, grad_outputs[0], &grad_inputs[0]);
  ct_tensor_release(y);
  if (st != CT_OK) ct_error_set(st, ct_last_error());
  return st;
}

static void test_custom_function_saving_its_output_does_not_leak(void) {
  const int64_t t0 = metric("tensors.live"), s0 = metric("storages.live");
  fn_state s = {0};
  {
    ct_tensor* x = LEAF(S(3), 0, 1, 2);
    ct_tensor *y = NULL, *loss = NULL;
    CHECK_OK(apply1("Exp", exp_forward, exp_backward, &s, x, &y));
    CHECK_GRAD_FN(y, "ExpBackward");
    CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
    CHECK_OK(ct_tensor_backward(loss, NULL, 0));
    ct_tensor* g = NULL;
    CHECK_OK(ct_tensor_grad(x, &g));
    CHECK_TENSOR_NEAR(g, CT_FLOAT32, 1e-6, S(3), 1.0, 2.718281828459045, 7.38905609893065);
    RELEASE(x, y, loss, g);
  }
  CHECK(s.backward_calls == 1);
  CHECK(s.destroyed == 1); /* no cycle kept the node alive */
  CHECK(metric("tensors.live") == t0);
  CHECK(metric("storages.live") == s0);

  /* The same without running backward: the graph still goes with its last tensor. */
  fn_state s2 = {0};
  ct_tensor* x = LEAF(S(3), 0, 1, 2);
  ct_tensor* y = NULL;
  CHECK_OK(apply1("Exp", exp_forward, exp_backward, &s2, x, &y));
  RELEASE(x, y);
  CHECK(s2.destroyed == 1);
  CHECK(metric("tensors.live") == t0);
  CHECK(metric("storages.live") == s0);
}

/* b = a * a saves a; a.mul_(b) then gives a a node that saves b. Owning a itself, b's node would
   own a's new node, which owns b: both nodes and tensors would never go (Note [Saved
   inputs]). Backward through b's node is refused afterwards, as a was changed in place. */
static void test_in_place_change_of_a_saved_non_leaf_does_not_leak(void) {
  const int64_t t0 = metric("tensors.live"), s0 = metric("storages.live");
  {
    ct_tensor* x = LEAF(S(3), 1, -2, 3);
    ct_tensor *a = NULL, *b = NULL, *loss = NULL;
    CHECK_OK(ct_tensor_mul(x, x, &a));
    CHECK_OK(ct_tensor_mul(a, a, &b));
    CHECK_OK(ct_tensor_mul_(a, b));
    CHECK_OK(ct_tensor_sum(a, NULL, 0, 0, &loss));
    CHECK_STATUS(ct_tensor_backward(loss, NULL, 0), CT_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("modified by an in-place operation");
    RELEASE(x, a, b, loss);
  }
  CHECK(metric("tensors.live") == t0);
  CHECK(metric("storages.live") == s0);
}

/* s = x.sum() reaches x's AccumulateGrad; with requires_grad switched off, x.add_(s) gives x a
   history through that node. Owning x, the node would keep x alive and x the node (Note
   [AccumulateGrad does not own its leaf]). The gradient still reaches the leaf's grad. */
static void test_in_place_history_through_a_leafs_own_accumulator_does_not_leak(void) {
  const int64_t t0 = metric("tensors.live"), s0 = metric("storages.live");
  {
    ct_tensor* x = LEAF(S(3), 1, 2, 3);
    ct_tensor *s = NULL, *loss = NULL;
    CHECK_OK(ct_tensor_sum(x, NULL, 0, 0, &s));
    CHECK_OK(ct_tensor_set_requires_grad(x, 0));
    CHECK_OK(ct_tensor_add_(x, s));
    CHECK_GRAD_FN(x, "AddBackward");
    CHECK_OK(ct_tensor_sum(x, NULL, 0, 0, &loss));
    CHECK_OK(ct_tensor_backward(loss, NULL, 0));
    CHECK_GRAD(x, S(3), 3, 3, 3); /* d/dx of sum(x + sum(x)) through s alone: 3 per element */
    RELEASE(x, s, loss);
  }
  CHECK(metric("tensors.live") == t0);
  CHECK(metric("storages.live") == s0);
}

/* y = x * c saves the constant c; c.add_(y) then gives c a node that reaches y's node. Owning c
   itself, y's node would own c's new node (Note [Saved inputs]). */
static void test_in_place_history_on_a_saved_constant_does_not_leak(void) {
  const int64_t t0 = metric("tensors.live"), s0 = metric("storages.live");
  {
    ct_tensor* x = LEAF(S(3), 1, 2, 3);
    ct_tensor* c = T(CT_FLOAT32, S(3), 2, 2, 2);
    ct_tensor *y = NULL, *loss = NULL;
    CHECK_OK(ct_tensor_mul(x, c, &y));
    CHECK_OK(ct_tensor_add_(c, y));
    CHECK_GRAD_FN(c, "AddBackward");
    CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
    CHECK_STATUS(ct_tensor_backward(loss, NULL, 0), CT_ERROR_INVALID_ARGUMENT); /* c changed since saved */
    CHECK_ERROR_CONTAINS("modified by an in-place operation");
    RELEASE(x, c, y, loss);
  }
  CHECK(metric("tensors.live") == t0);
  CHECK(metric("storages.live") == s0);
}

/* backward(create_graph) leaves x.grad with a history that reaches x's AccumulateGrad, which keeps
   that grad: released with x, the whole graph goes, without clearing grad first. */
static void test_create_graph_grad_goes_with_its_leaf(void) {
  const int64_t t0 = metric("tensors.live"), s0 = metric("storages.live");
  {
    ct_tensor* x = LEAF(S(3), 1, 2, 3);
    const ct_scalar three = SI(3);
    ct_tensor *cube = NULL, *y = NULL;
    CHECK_OK(ct_tensor_pow_scalar(x, &three, &cube));
    CHECK_OK(ct_tensor_sum(cube, NULL, 0, 0, &y));
    CHECK_OK(ct_tensor_backward(y, NULL, CT_GRAD_CREATE_GRAPH));
    CHECK_GRAD(x, S(3), 3, 12, 27);
    RELEASE(cube, y, x);
  }
  CHECK(metric("tensors.live") == t0);
  CHECK(metric("storages.live") == s0);
}

/* A leaf released before backward(create_graph): its gradient, which nothing could read, is not
   kept, so the recorded graph that would reach the leaf's AccumulateGrad goes too. */
static void test_create_graph_into_a_released_leaf_does_not_leak(void) {
  const int64_t t0 = metric("tensors.live"), s0 = metric("storages.live");
  {
    ct_tensor* x = LEAF(S(3), 1, 2, 3);
    ct_tensor* y = NULL;
    CHECK_OK(ct_tensor_matmul(x, x, &y));
    RELEASE(x);
    CHECK_OK(ct_tensor_backward(y, NULL, CT_GRAD_CREATE_GRAPH));
    RELEASE(y);
  }
  CHECK(metric("tensors.live") == t0);
  CHECK(metric("storages.live") == s0);
}

/* A retained non-leaf gradient recorded by create_graph reaches the non-leaf's own node (through
   the saved input of the operator after it); the node sees the slot weakly, so all of it goes. */
static void test_create_graph_retained_grad_does_not_leak(void) {
  const int64_t t0 = metric("tensors.live"), s0 = metric("storages.live");
  {
    ct_tensor* x = LEAF(S(2), 1.5, -2);
    ct_tensor *a = NULL, *b = NULL, *loss = NULL;
    CHECK_OK(ct_tensor_mul(x, x, &a));
    CHECK_OK(ct_tensor_retain_grad(a));
    CHECK_OK(ct_tensor_mul(a, a, &b));
    CHECK_OK(ct_tensor_sum(b, NULL, 0, 0, &loss));
    CHECK_OK(ct_tensor_backward(loss, NULL, CT_GRAD_CREATE_GRAPH));
    CHECK_GRAD(a, S(2), 4.5, 8); /* 2a */
    RELEASE(x, a, b, loss);
  }
  CHECK(metric("tensors.live") == t0);
  CHECK(metric("storages.live") == s0);
}

/* With create_graph, a saved non-leaf input comes back linked to the node that made it. */
static void test_second_derivative_through_a_saved_non_leaf_input(void) {
  ct_tensor* x = LEAF(S(2), 1.5, -2);
  ct_tensor *a = NULL, *b = NULL, *loss = NULL, *g = NULL, *gsum = NULL, *gg = NULL;
  CHECK_OK(ct_tensor_mul(x, x, &a));     /* a = x^2, not a leaf */
  CHECK_OK(ct_tensor_mul(a, a, &b));     /* b = x^4 saves a */
  CHECK_OK(ct_tensor_sum(b, NULL, 0, 0, &loss));
  const ct_tensor* outs[] = {loss};
  const ct_tensor* ins[] = {x};
  CHECK_OK(ct_autograd_grad(outs, NULL, 1, ins, 1, CT_GRAD_CREATE_GRAPH, &g)); /* 4 x^3 */
  CHECK_OK(ct_tensor_sum(g, NULL, 0, 0, &gsum));
  CHECK_OK(ct_tensor_backward(gsum, NULL, 0));
  CHECK_OK(ct_tensor_grad(x, &gg)); /* 12 x^2 */
  CHECK_TENSOR_NEAR(gg, CT_FLOAT32, 1e-6, S(2), 27.0, 48.0);
  RELEASE(x, a, b, loss, g, gsum, gg);
}

/* Identity: hands its input back; the caller gets a new tensor over the same elements. */
static ct_status identity_forward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* inputs,
                                  size_t n_inputs, ct_tensor** outputs, size_t n_outputs) {
  (void)user_data;
  (void)ctx;
  (void)n_inputs;
  (void)n_outputs;
  ct_tensor* x = (ct_tensor*)inputs[0];
  ct_status st = ct_tensor_retain(x);
  if (st != CT_OK) return st;
  outputs[0] = x;
  return CT_OK;
}

static ct_status identity_backward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* grad_outputs,
                                   size_t n_outputs, ct_tensor** grad_inputs, size_t n_inputs) {
  (void)user_data;
  (void)ctx;
  (void)n_outputs;
  (void)n_inputs;
  ct_tensor* g = (ct_tensor*)grad_outputs[0];
  ct_status st = ct_tensor_retain(g);
  if (st != CT_OK) return st;
  grad_inputs[0] = g;
  return CT_OK;
}

static void test_custom_function_returning_its_input_gives_a_new_tensor(void) {
  ct_tensor* x = LEAF(S(3), 1, 2, 3);
  fn_state s = {0};
  ct_tensor *y = NULL, *loss = NULL;
  CHECK_OK(apply1("Identity", identity_forward, identity_backward, &s, x, &y));
  CHECK(y != x);
  CHECK(IS_LEAF(x) == 1); /* x keeps being a leaf */
  CHECK_GRAD_FN(y, "IdentityBackward");
  void *px = NULL, *py = NULL;
  CHECK_OK(ct_tensor_data_ptr(x, &px));
  CHECK_OK(ct_tensor_data_ptr(y, &py));
  CHECK(px == py);
  CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_GRAD(x, S(3), 1, 1, 1);
  RELEASE(x, y, loss);
  CHECK(s.destroyed == 1);
}

/* Scale: y = a * s with s of sizes [1]; backward returns s's gradient with a's sizes [3]. */
static ct_status scale_forward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* inputs, size_t n_inputs,
                               ct_tensor** outputs, size_t n_outputs) {
  (void)user_data;
  (void)n_inputs;
  (void)n_outputs;
  ct_status st = ct_tensor_mul(inputs[0], inputs[1], &outputs[0]);
  if (st == CT_OK) st = ct_autograd_ctx_save(ctx, inputs[0]);
  if (st == CT_OK) st = ct_autograd_ctx_save(ctx, inputs[1]);
  if (st != CT_OK) ct_error_set(st, ct_last_error());
  return st;
}

static ct_status scale_backward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* grad_outputs,
                                size_t n_outputs, ct_tensor** grad_inputs, size_t n_inputs) {
  ct_tensor *a = NULL, *s = NULL;
  (void)user_data;
  (void)n_outputs;
  (void)n_inputs;
  ct_status st = ct_autograd_ctx_saved(ctx, 0, &a);
  if (st == CT_OK) st = ct_autograd_ctx_saved(ctx, 1, &s);
  if (st == CT_OK) st = ct_tensor_mul(grad_outputs[0], s, &grad_inputs[0]);
  if (st == CT_OK) st = ct_tensor_mul(grad_outputs[0], a, &grad_inputs[1]); /* [3]: summed back to [1] */
  RELEASE(a, s);
  if (st != CT_OK) ct_error_set(st, ct_last_error());
  return st;
}

static void test_custom_function_broadcast_gradient_is_summed_back(void) {
  /* y = a * s, loss = sum(y): dloss/da = s = [2, 2, 2], dloss/ds = sum(a) = 6. */
  ct_tensor* a = LEAF(S(3), 1, 2, 3);
  ct_tensor* sc = LEAF(S(1), 2);
  const ct_tensor* inputs[2] = {a, sc};
  ct_tensor *y = NULL, *loss = NULL;
  CHECK_OK(ct_autograd_function_apply("Scale", scale_forward, scale_backward, NULL, NULL, inputs, 2, &y, 1));
  CHECK_TENSOR(y, CT_FLOAT32, S(3), 2, 4, 6);
  CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_GRAD(a, S(3), 2, 2, 2);
  CHECK_GRAD(sc, S(1), 6);
  RELEASE(a, sc, y, loss);
}

static ct_status null_output_forward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* inputs,
                                     size_t n_inputs, ct_tensor** outputs, size_t n_outputs) {
  (void)user_data;
  (void)ctx;
  (void)inputs;
  (void)n_inputs;
  (void)outputs;
  (void)n_outputs;
  return CT_OK;
}

static void test_custom_function_bad_arguments(void) {
  ct_tensor* x = LEAF(S(3), 1, 2, 3);
  const ct_tensor* inputs[1] = {x};
  ct_tensor* y = SENTINEL;
  fn_state s = {0};
  CHECK_STATUS(ct_autograd_function_apply(NULL, cube_forward, cube_backward, &s, fn_destroy, inputs, 1, &y, 1),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK(s.destroyed == 1 && s.forward_calls == 0);
  CHECK(y == NULL);
  CHECK_STATUS(ct_autograd_function_apply("Cube", NULL, cube_backward, &s, fn_destroy, inputs, 1, &y, 1),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK(s.destroyed == 2);
  CHECK_STATUS(ct_autograd_function_apply("Cube", cube_forward, NULL, &s, fn_destroy, inputs, 1, &y, 1),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK(s.destroyed == 3);
  CHECK_STATUS(ct_autograd_function_apply("Cube", cube_forward, cube_backward, &s, fn_destroy, inputs, 1, NULL, 1),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK(s.destroyed == 4);
  CHECK_STATUS(ct_autograd_function_apply("Cube", cube_forward, cube_backward, &s, fn_destroy, NULL, 1, &y, 1),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK(s.destroyed == 5);
  const ct_tensor* released[1] = {capi_released()};
  CHECK_STATUS(ct_autograd_function_apply("Cube", cube_forward, cube_backward, &s, fn_destroy, released, 1, &y, 1),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("released");
  CHECK(s.destroyed == 6 && s.forward_calls == 0);

  y = SENTINEL;
  CHECK_STATUS(ct_autograd_function_apply("Lazy", null_output_forward, cube_backward, &s, fn_destroy, inputs, 1, &y, 1),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("Lazy");
  CHECK(s.destroyed == 7);
  CHECK(y == NULL);
  ct_tensor_release(x);
}

/* Split: (2x, 3x) from one input; dx = 2 g0 + 3 g1. Keeps the second gradient it was given. */
typedef struct {
  float g1[3];
} split_state;

static ct_status split_forward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* inputs, size_t n_inputs,
                               ct_tensor** outputs, size_t n_outputs) {
  const ct_scalar two = SI(2), three = SI(3);
  (void)user_data;
  (void)ctx;
  (void)n_inputs;
  (void)n_outputs;
  ct_status st = ct_tensor_mul_scalar(inputs[0], &two, &outputs[0]);
  if (st == CT_OK) st = ct_tensor_mul_scalar(inputs[0], &three, &outputs[1]);
  if (st != CT_OK) ct_error_set(st, ct_last_error());
  return st;
}

static ct_status split_backward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* grad_outputs,
                                size_t n_outputs, ct_tensor** grad_inputs, size_t n_inputs) {
  split_state* s = (split_state*)user_data;
  const ct_scalar two = SI(2), three = SI(3);
  ct_tensor *a = NULL, *b = NULL;
  (void)ctx;
  (void)n_outputs;
  (void)n_inputs;
  ct_status st = ct_tensor_copy_to(grad_outputs[1], s->g1, sizeof s->g1);
  if (st == CT_OK) st = ct_tensor_mul_scalar(grad_outputs[0], &two, &a);
  if (st == CT_OK) st = ct_tensor_mul_scalar(grad_outputs[1], &three, &b);
  if (st == CT_OK) st = ct_tensor_add(a, b, &grad_inputs[0]);
  RELEASE(a, b);
  if (st != CT_OK) ct_error_set(st, ct_last_error());
  return st;
}

static void test_custom_function_output_without_gradient_gets_zeros(void) {
  /* Only the first output reaches the loss: backward sees zeros for the second, dx = 2. */
  ct_tensor* x = LEAF(S(3), 1, 2, 3);
  const ct_tensor* inputs[1] = {x};
  split_state s = {{-1, -1, -1}};
  ct_tensor *outs[2] = {NULL, NULL}, *loss = NULL;
  CHECK_OK(ct_autograd_function_apply("Split", split_forward, split_backward, &s, NULL, inputs, 1, outs, 2));
  CHECK_TENSOR(outs[0], CT_FLOAT32, S(3), 2, 4, 6);
  CHECK_TENSOR(outs[1], CT_FLOAT32, S(3), 3, 6, 9);
  CHECK_GRAD_FN(outs[1], "SplitBackward");
  CHECK_OK(ct_tensor_sum(outs[0], NULL, 0, 0, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK(s.g1[0] == 0 && s.g1[1] == 0 && s.g1[2] == 0);
  CHECK_GRAD(x, S(3), 2, 2, 2);

  /* Both outputs in the loss: 2 + 3. */
  ct_tensor *total = NULL, *loss2 = NULL;
  CHECK_OK(ct_tensor_set_grad(x, NULL));
  CHECK_OK(ct_tensor_add(outs[0], outs[1], &total));
  CHECK_OK(ct_tensor_sum(total, NULL, 0, 0, &loss2));
  CHECK_OK(ct_tensor_backward(loss2, NULL, 0));
  CHECK(s.g1[0] == 1 && s.g1[1] == 1 && s.g1[2] == 1);
  CHECK_GRAD(x, S(3), 5, 5, 5);
  RELEASE(x, outs[0], outs[1], loss, total, loss2);
}

/* autograd_test::twice(a) = 2a: an operator defined from C, which has no derivative. */
static ct_status twice_kernel(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  const ct_scalar two = SI(2);
  (void)user_data;
  (void)nargs;
  (void)nouts;
  ct_status st = ct_tensor_mul_scalar(args[0].tensor, &two, &outs[0]);
  if (st != CT_OK) ct_error_set(st, ct_last_error());
  return st;
}

static ct_status twice_forward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* inputs, size_t n_inputs,
                               ct_tensor** outputs, size_t n_outputs) {
  ct_value args[1] = {{CT_VALUE_TENSOR, 0, 0, inputs[0], NULL, NULL, 0, NULL}};
  (void)user_data;
  (void)ctx;
  (void)n_inputs;
  ct_status st = ct_op_call("autograd_test::twice", args, 1, outputs, n_outputs);
  if (st != CT_OK) ct_error_set(st, ct_last_error());
  return st;
}

static ct_status twice_backward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* grad_outputs,
                                size_t n_outputs, ct_tensor** grad_inputs, size_t n_inputs) {
  const ct_scalar two = SI(2);
  (void)user_data;
  (void)ctx;
  (void)n_outputs;
  (void)n_inputs;
  ct_status st = ct_tensor_mul_scalar(grad_outputs[0], &two, &grad_inputs[0]);
  if (st != CT_OK) ct_error_set(st, ct_last_error());
  return st;
}

static void test_operator_without_derivative_is_not_implemented_until_wrapped(void) {
  char* json = NULL;
  CHECK_OK(ct_library_define("autograd_test::twice(Tensor a) -> Tensor"));
  CHECK_OK(ct_library_impl("autograd_test::twice", "cpu", twice_kernel, NULL, NULL));
  CHECK_OK(ct_op_registry_json(&json));
  /* Arguments have no "derivative" field, so the first one after the name is the operator's. */
  const char* entry = strstr(json, "\"autograd_test::twice\"");
  const char* field = entry ? strstr(entry, "\"derivative\": ") : NULL;
  const int listed_missing = field && strncmp(field + strlen("\"derivative\": "), "\"missing\"", 9) == 0;
  ct_string_release(json);
  CHECK(listed_missing);

  ct_tensor* x = LEAF(S(3), 1, 2, 3);
  ct_value args[1] = {{CT_VALUE_TENSOR, 0, 0, x, NULL, NULL, 0, NULL}};
  ct_tensor *y = SENTINEL, *loss = NULL;
  CHECK_STATUS(ct_op_call("autograd_test::twice", args, 1, &y, 1), CT_ERROR_NOT_IMPLEMENTED);
  CHECK_ERROR_CONTAINS("autograd_test::twice");
  CHECK_ERROR_CONTAINS("no derivative");
  CHECK(y == NULL);

  /* Under no_grad nothing is recorded, so nothing is missing. */
  ct_grad_mode prev;
  CHECK_OK(ct_grad_mode_set(CT_GRAD_MODE_NO_GRAD, &prev));
  const ct_status plain = ct_op_call("autograd_test::twice", args, 1, &y, 1);
  CHECK_OK(ct_grad_mode_set(prev, NULL));
  CHECK_OK(plain);
  CHECK_TENSOR(y, CT_FLOAT32, S(3), 2, 4, 6);
  ct_tensor_release(y);

  /* A custom function gives it a backward. */
  const ct_tensor* inputs[1] = {x};
  CHECK_OK(ct_autograd_function_apply("Twice", twice_forward, twice_backward, NULL, NULL, inputs, 1, &y, 1));
  CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_GRAD(x, S(3), 2, 2, 2);
  RELEASE(x, y, loss);
}

/* ---- No leaks ---- */

/* p -= lr * p.grad under no_grad, then p.grad = NULL: an optimizer's step and zero_grad. */
static ct_status sgd_step(ct_tensor* p, const ct_scalar* lr) {
  ct_tensor *g = NULL, *step = NULL;
  ct_grad_mode prev;
  ct_status st = ct_grad_mode_set(CT_GRAD_MODE_NO_GRAD, &prev);
  if (st != CT_OK) return st;
  st = ct_tensor_grad(p, &g);
  if (st == CT_OK) st = ct_tensor_mul_scalar(g, lr, &step);
  if (st == CT_OK) st = ct_tensor_sub_(p, step);
  if (st == CT_OK) st = ct_tensor_set_grad(p, NULL);
  RELEASE(g, step);
  const ct_status restored = ct_grad_mode_set(prev, NULL);
  return st != CT_OK ? st : restored;
}

static void test_training_steps_leave_no_tensor_behind(void) {
  /* 100,000 steps of loss = sum((x * w + b)^2), backward, w and b updated in place under no_grad. */
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* w = LEAF(S(3), 0.5, -0.5, 0.25);
  ct_tensor* b = LEAF(S(1), 1);
  const int64_t t0 = metric("tensors.live"), s0 = metric("storages.live");
  const ct_scalar two = SI(2), lr = SF(0.01);
  double last = -1;
  for (int step = 0; step < 100000; ++step) {
    ct_tensor *xw = NULL, *pred = NULL, *sq = NULL, *loss = NULL;
    CHECK_OK(ct_tensor_mul(x, w, &xw));
    CHECK_OK(ct_tensor_add(xw, b, &pred));
    CHECK_OK(ct_tensor_pow_scalar(pred, &two, &sq));
    CHECK_OK(ct_tensor_sum(sq, NULL, 0, 0, &loss));
    CHECK_OK(ct_tensor_backward(loss, NULL, 0));
    if (step == 99999) {
      ct_scalar v;
      CHECK_OK(ct_tensor_item(loss, &v));
      last = v.f;
    }
    RELEASE(xw, pred, sq, loss);
    CHECK_OK(sgd_step(w, &lr));
    CHECK_OK(sgd_step(b, &lr));
  }
  CHECK(last >= 0 && last < 1e-6); /* the steps did descend: x * w + b can reach 0 exactly */
  CHECK(metric("tensors.live") == t0);
  CHECK(metric("storages.live") == s0);
  CHECK_NO_GRAD(w);
  RELEASE(x, w, b);
}

static void test_hooks_and_custom_functions_leave_no_tensor_behind(void) {
  const int64_t t0 = metric("tensors.live"), s0 = metric("storages.live");
  hook_state hs = {0};
  fn_state fs = {0};
  for (int i = 0; i < 1000; ++i) {
    ct_tensor* x = LEAF(S(3), 1, 2, 3);
    ct_tensor *y = NULL, *loss = NULL;
    int64_t id = 0;
    CHECK_OK(apply1("Cube", cube_forward, cube_backward, &fs, x, &y));
    CHECK_OK(ct_tensor_register_hook(y, doubling_hook, &hs, hook_destroy, &id));
    CHECK_OK(ct_tensor_register_hook(x, counting_hook, &hs, hook_destroy, &id));
    CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
    CHECK_OK(ct_tensor_backward(loss, NULL, 0));
    RELEASE(x, y, loss);
  }
  CHECK(fs.forward_calls == 1000 && fs.backward_calls == 1000 && fs.destroyed == 1000);
  CHECK(hs.calls == 2000 && hs.destroyed == 2000);
  CHECK(metric("tensors.live") == t0);
  CHECK(metric("storages.live") == s0);
}

static void test_failures_leave_no_tensor_behind(void) {
  /* Every way backward and custom functions fail above, run again while counting tensors. */
  const int64_t t0 = metric("tensors.live"), s0 = metric("storages.live");
  hook_state hs = {0};
  hs.fail_with = CT_ERROR_BACKEND;
  fn_state fs = {0};
  for (int i = 0; i < 100; ++i) {
    ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
    ct_tensor* w = LEAF(S(3), 4, 5, 6);
    ct_tensor* m = LEAF(S(2, 2), 1, 2, 3, 4);
    ct_tensor *y = NULL, *loss = NULL, *c = NULL, *closs = NULL, *bad = NULL;
    const ct_scalar one = SI(1);
    int64_t id = 0;
    CHECK_OK(ct_tensor_mul(x, w, &y));
    CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
    CHECK_STATUS(ct_tensor_backward(y, NULL, 0), CT_ERROR_SHAPE);
    CHECK_OK(ct_tensor_register_hook(w, failing_hook, &hs, hook_destroy, &id));
    CHECK_STATUS(ct_tensor_backward(loss, NULL, CT_GRAD_RETAIN_GRAPH), CT_ERROR_BACKEND);
    CHECK_OK(ct_tensor_remove_hook(w, id));
    CHECK_OK(ct_tensor_backward(loss, NULL, 0));
    CHECK_STATUS(ct_tensor_backward(loss, NULL, 0), CT_ERROR_INVALID_ARGUMENT); /* second time */
    CHECK_OK(apply1("Opaque", cube_forward, failing_backward, &fs, w, &c));
    CHECK_OK(ct_tensor_sum(c, NULL, 0, 0, &closs));
    CHECK_STATUS(ct_tensor_backward(closs, NULL, 0), CT_ERROR_NOT_IMPLEMENTED);
    CHECK_STATUS(apply1("Cube", cube_forward, cube_backward, &fs, m, &bad), CT_ERROR_SHAPE);
    RELEASE(y, loss);
    CHECK_OK(ct_tensor_mul(x, w, &y));
    CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
    CHECK_OK(ct_tensor_add_scalar_(x, &one));
    CHECK_STATUS(ct_tensor_backward(loss, NULL, 0), CT_ERROR_INVALID_ARGUMENT); /* version */
    RELEASE(x, w, m, y, loss, c, closs);
  }
  CHECK(hs.calls == 100 && hs.destroyed == 100);
  CHECK(fs.destroyed == 200);
  CHECK(metric("tensors.live") == t0);
  CHECK(metric("storages.live") == s0);
}

/* ---- Threads ---- */

enum { kTrainThreads = 4, kTrainSteps = 2000 };

typedef struct {
  float w[3];
  float b;
  ct_status status;
  char error[256];
} train_result;

/* kTrainSteps of the training step above from fixed values, on the calling thread. */
static void* train(void* out) {
  train_result* r = (train_result*)out;
  const float x_data[3] = {1, 2, 3}, w_data[3] = {0.5f, -0.5f, 0.25f}, b_data[1] = {1};
  const int64_t n3 = 3, n1 = 1;
  const ct_scalar two = SI(2), lr = SF(0.01);
  ct_tensor *x = NULL, *w = NULL, *b = NULL;
  ct_status st = ct_tensor_from_data(x_data, &n3, 1, CT_FLOAT32, &x);
  if (st == CT_OK) st = ct_tensor_from_data(w_data, &n3, 1, CT_FLOAT32, &w);
  if (st == CT_OK) st = ct_tensor_from_data(b_data, &n1, 1, CT_FLOAT32, &b);
  if (st == CT_OK) st = ct_tensor_set_requires_grad(w, 1);
  if (st == CT_OK) st = ct_tensor_set_requires_grad(b, 1);
  for (int step = 0; st == CT_OK && step < kTrainSteps; ++step) {
    ct_tensor *xw = NULL, *pred = NULL, *sq = NULL, *loss = NULL;
    st = ct_tensor_mul(x, w, &xw);
    if (st == CT_OK) st = ct_tensor_add(xw, b, &pred);
    if (st == CT_OK) st = ct_tensor_pow_scalar(pred, &two, &sq);
    if (st == CT_OK) st = ct_tensor_sum(sq, NULL, 0, 0, &loss);
    if (st == CT_OK) st = ct_tensor_backward(loss, NULL, 0);
    RELEASE(xw, pred, sq, loss);
    if (st == CT_OK) st = sgd_step(w, &lr);
    if (st == CT_OK) st = sgd_step(b, &lr);
  }
  if (st == CT_OK) st = ct_tensor_copy_to(w, r->w, sizeof r->w);
  if (st == CT_OK) st = ct_tensor_copy_to(b, &r->b, sizeof r->b);
  r->status = st;
  if (st != CT_OK) snprintf(r->error, sizeof r->error, "%s", ct_last_error());
  RELEASE(x, w, b);
  return NULL;
}

static void test_graphs_on_different_threads_are_independent(void) {
  /* Every thread trains its own parameters at once and must end with the bits one thread gets. */
  train_result alone, each[kTrainThreads];
  pthread_t threads[kTrainThreads];
  int started = 0;
  train(&alone);
  CHECK_OK(alone.status);
  for (; started < kTrainThreads; ++started)
    if (pthread_create(&threads[started], NULL, train, &each[started]) != 0) break;
  for (int i = 0; i < started; ++i) pthread_join(threads[i], NULL);
  CHECK(started == kTrainThreads);
  for (int i = 0; i < kTrainThreads; ++i) {
    if (each[i].status != CT_OK) printf("thread %d: %s\n", i, each[i].error);
    CHECK(each[i].status == CT_OK);
    CHECK(memcmp(each[i].w, alone.w, sizeof alone.w) == 0 && each[i].b == alone.b);
  }
}

typedef struct {
  ct_tensor* w; /* shared by every thread */
  ct_status status;
  char error[256];
} shared_leaf_job;

/* kTrainSteps backward calls of sum(x * w) into the shared w: each adds x = [1, 2, 3]. */
static void* backward_into_shared_leaf(void* arg) {
  shared_leaf_job* job = (shared_leaf_job*)arg;
  const float x_data[3] = {1, 2, 3};
  const int64_t n3 = 3;
  ct_tensor* x = NULL;
  ct_status st = ct_tensor_from_data(x_data, &n3, 1, CT_FLOAT32, &x);
  for (int step = 0; st == CT_OK && step < kTrainSteps; ++step) {
    ct_tensor *xw = NULL, *loss = NULL;
    st = ct_tensor_mul(x, job->w, &xw);
    if (st == CT_OK) st = ct_tensor_sum(xw, NULL, 0, 0, &loss);
    if (st == CT_OK) st = ct_tensor_backward(loss, NULL, 0);
    RELEASE(xw, loss);
  }
  job->status = st;
  if (st != CT_OK) snprintf(job->error, sizeof job->error, "%s", ct_last_error());
  ct_tensor_release(x);
  return NULL;
}

static void test_threads_sharing_a_leaf_add_up_their_gradients(void) {
  /* ctorch.h: threads may run backward through graphs that share leaves; the gradients add up.
   * 4 threads x 2000 steps x [1, 2, 3], exact in float32. */
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  shared_leaf_job jobs[kTrainThreads];
  pthread_t threads[kTrainThreads];
  int started = 0;
  for (; started < kTrainThreads; ++started) {
    jobs[started].w = w;
    if (pthread_create(&threads[started], NULL, backward_into_shared_leaf, &jobs[started]) != 0) break;
  }
  for (int i = 0; i < started; ++i) pthread_join(threads[i], NULL);
  CHECK(started == kTrainThreads);
  for (int i = 0; i < kTrainThreads; ++i) {
    if (jobs[i].status != CT_OK) printf("thread %d: %s\n", i, jobs[i].error);
    CHECK(jobs[i].status == CT_OK);
  }
  CHECK_GRAD(w, S(3), 8000, 16000, 24000);
  ct_tensor_release(w);
}

static ct_status counting_post_hook(void* user_data, ct_tensor* t) {
  /* Post hooks of one leaf run one at a time (under its post_mu), so a plain counter is safe. */
  ct_tensor* g = NULL;
  const ct_status st = ct_tensor_grad(t, &g);
  if (st == CT_OK && g) ++*(int*)user_data;
  ct_tensor_release(g);
  return st;
}

static void test_post_accumulate_hook_on_a_leaf_shared_by_threads_runs_once_per_backward(void) {
  ct_tensor* w = LEAF(S(3), 4, 5, 6);
  int calls = 0;
  int64_t id = 0;
  CHECK_OK(ct_tensor_register_post_accumulate_grad_hook(w, counting_post_hook, &calls, NULL, &id));
  shared_leaf_job jobs[kTrainThreads];
  pthread_t threads[kTrainThreads];
  int started = 0;
  for (; started < kTrainThreads; ++started) {
    jobs[started].w = w;
    if (pthread_create(&threads[started], NULL, backward_into_shared_leaf, &jobs[started]) != 0) break;
  }
  for (int i = 0; i < started; ++i) pthread_join(threads[i], NULL);
  CHECK(started == kTrainThreads);
  for (int i = 0; i < kTrainThreads; ++i) {
    if (jobs[i].status != CT_OK) printf("thread %d: %s\n", i, jobs[i].error);
    CHECK(jobs[i].status == CT_OK);
  }
  CHECK(calls == kTrainThreads * kTrainSteps);
  CHECK_GRAD(w, S(3), 8000, 16000, 24000);
  ct_tensor_release(w);
}

/* ---- Callbacks that misbehave (Note [Calling back into the host]) ---- */

static ct_status hook_returning_a_non_status(void* user_data, const ct_tensor* grad, ct_tensor** replacement) {
  (void)grad;
  (void)replacement;
  ((hook_state*)user_data)->calls++;
  ct_error_set((ct_status)77, "a status no ctorch version defines");
  return (ct_status)999;
}

static void test_a_callback_status_outside_ct_status_becomes_invalid_argument(void) {
  ct_tensor* w = LEAF(S(2), 1, 2);
  hook_state s = {0};
  int64_t id = 0;
  CHECK_OK(ct_tensor_register_hook(w, hook_returning_a_non_status, &s, NULL, &id));
  ct_tensor *ww = NULL, *loss = NULL;
  CHECK_OK(ct_tensor_mul(w, w, &ww));
  CHECK_OK(ct_tensor_sum(ww, NULL, 0, 0, &loss));
  const ct_status st = ct_tensor_backward(loss, NULL, 0);
  CHECK_STATUS(st, CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("tensor hook: the callback returned 999, which is not a ct_status");
  CHECK_ERROR_CONTAINS("a status no ctorch version defines");
  CHECK(s.calls == 1);
  RELEASE(w, ww, loss);
}

typedef struct {
  const ct_tensor* loss; /* what the hook runs backward through again */
  int calls;
} recursing_hook_state;

static ct_status hook_running_backward_again(void* user_data, const ct_tensor* grad, ct_tensor** replacement) {
  recursing_hook_state* s = (recursing_hook_state*)user_data;
  (void)grad;
  (void)replacement;
  s->calls++;
  const ct_status st = ct_tensor_backward(s->loss, NULL, CT_GRAD_RETAIN_GRAPH);
  if (st != CT_OK) ct_error_set(st, ct_last_error());
  return st;
}

static void test_a_hook_that_runs_backward_through_itself_stops_with_a_status(void) {
  ct_tensor* w = LEAF(S(2), 1, 2);
  ct_tensor *ww = NULL, *loss = NULL;
  CHECK_OK(ct_tensor_mul(w, w, &ww));
  CHECK_OK(ct_tensor_sum(ww, NULL, 0, 0, &loss));
  recursing_hook_state s = {loss, 0};
  int64_t id = 0;
  CHECK_OK(ct_tensor_register_hook(w, hook_running_backward_again, &s, NULL, &id));
  CHECK_STATUS(ct_tensor_backward(loss, NULL, CT_GRAD_RETAIN_GRAPH), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("callbacks nest 32 deep");
  CHECK(s.calls == 32);
  /* The thread's depth is back to 0: an ordinary backward runs its hook again. */
  CHECK_OK(ct_tensor_remove_hook(w, id));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  RELEASE(w, ww, loss);
}

static ct_status forward_writing_a_released_handle(void* user_data, ct_autograd_ctx* ctx,
                                                   const ct_tensor* const* inputs, size_t n_inputs,
                                                   ct_tensor** outputs, size_t n_outputs) {
  (void)user_data;
  (void)ctx;
  (void)n_inputs;
  (void)n_outputs;
  ct_tensor* t = NULL;
  const ct_status st = ct_tensor_mul(inputs[0], inputs[0], &t);
  ct_tensor_release(t); /* and then hands it over anyway */
  outputs[0] = t;
  return st;
}

static void test_a_released_handle_written_by_a_callback_is_invalid_argument(void) {
  ct_tensor* x = LEAF(S(2), 1, 2);
  fn_state s = {0};
  ct_tensor* y = SENTINEL;
  CHECK_STATUS(apply1("Sloppy", forward_writing_a_released_handle, cube_backward, &s, x, &y),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK(y == NULL);
  CHECK_ERROR_CONTAINS("Sloppy (forward): output 0 of the callback is not a live tensor handle");
  ct_tensor_release(x);
}

static ct_status backward_on_the_meta_device(void* user_data, ct_autograd_ctx* ctx,
                                             const ct_tensor* const* grad_outputs, size_t n_outputs,
                                             ct_tensor** grad_inputs, size_t n_inputs) {
  (void)ctx;
  (void)grad_outputs;
  (void)n_outputs;
  (void)n_inputs;
  ((fn_state*)user_data)->backward_calls++;
  return ct_tensor_ones(SZ(3), 1, CT_FLOAT32, "meta", &grad_inputs[0]);
}

static void test_a_gradient_on_another_device_is_refused_before_it_reaches_the_leaf(void) {
  ct_tensor* x = LEAF(S(3), 1, 2, 3);
  fn_state s = {0};
  ct_tensor *y = NULL, *loss = NULL;
  CHECK_OK(apply1("Elsewhere", cube_forward, backward_on_the_meta_device, &s, x, &y));
  CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
  CHECK_STATUS(ct_tensor_backward(loss, NULL, 0), CT_ERROR_DEVICE);
  CHECK_ERROR_CONTAINS("ElsewhereBackward: a gradient on meta");
  CHECK_ERROR_CONTAINS("for a tensor on cpu");
  CHECK(s.backward_calls == 1);
  CHECK_NO_GRAD(x);
  RELEASE(x, y, loss);
}

static ct_status meta_hook(void* user_data, const ct_tensor* grad, ct_tensor** replacement) {
  (void)user_data;
  (void)grad;
  return ct_tensor_ones(SZ(2), 1, CT_FLOAT32, "meta", replacement);
}

static void test_a_hook_replacement_on_another_device_is_refused(void) {
  ct_tensor* w = LEAF(S(2), 1, 2);
  int64_t id = 0;
  CHECK_OK(ct_tensor_register_hook(w, meta_hook, NULL, NULL, &id));
  ct_tensor *ww = NULL, *loss = NULL;
  CHECK_OK(ct_tensor_mul(w, w, &ww));
  CHECK_OK(ct_tensor_sum(ww, NULL, 0, 0, &loss));
  CHECK_STATUS(ct_tensor_backward(loss, NULL, 0), CT_ERROR_DEVICE);
  CHECK_ERROR_CONTAINS("AccumulateGrad: a hook returned a gradient on meta for one on cpu");
  CHECK_NO_GRAD(w);
  RELEASE(w, ww, loss);
}

static void test_a_root_gradient_on_another_device_is_refused(void) {
  ct_tensor* x = LEAF(S(2), 1, 2);
  ct_tensor *y = NULL, *g = NULL;
  CHECK_OK(ct_tensor_mul(x, x, &y));
  CHECK_OK(ct_tensor_ones(SZ(2), 1, CT_FLOAT32, "meta", &g));
  CHECK_STATUS(ct_tensor_backward(y, g, 0), CT_ERROR_DEVICE);
  CHECK_ERROR_CONTAINS("is on meta but the output is on cpu");
  CHECK_NO_GRAD(x);
  RELEASE(x, y, g);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_requires_grad_spreads_from_leaves_to_results),
    CAPI_TEST(test_detach_shares_elements_without_history),
    CAPI_TEST(test_backward_broadcast_bias_gets_summed_gradient),
    CAPI_TEST(test_backward_with_explicit_gradient_of_output_sizes),
    CAPI_TEST(test_gradients_accumulate_until_cleared),
    CAPI_TEST(test_set_grad_replaces_the_gradient_and_checks_its_sizes),
    CAPI_TEST(test_retain_grad_keeps_a_non_leaf_gradient),
    CAPI_TEST(test_retained_gradient_accumulates_like_a_leaf),
    CAPI_TEST(test_in_place_on_a_non_leaf_is_recorded),
    CAPI_TEST(test_autograd_backward_adds_the_roots_gradients),
    CAPI_TEST(test_autograd_grad_returns_gradients_of_several_inputs),
    CAPI_TEST(test_autograd_grad_with_grad_outputs),
    CAPI_TEST(test_autograd_grad_unused_input_needs_allow_unused),
    CAPI_TEST(test_create_graph_gives_second_and_third_derivatives),
    CAPI_TEST(test_create_graph_backward_makes_a_differentiable_grad),
    CAPI_TEST(test_create_graph_gradients_are_not_shared),
    CAPI_TEST(test_plain_backward_after_create_graph_accumulates),
    CAPI_TEST(test_backward_from_a_leaf_copies_the_given_gradient),
    CAPI_TEST(test_autograd_functions_refuse_null_arguments),
    CAPI_TEST(test_autograd_functions_refuse_released_handles),
    CAPI_TEST(test_backward_of_a_tensor_without_grad_is_refused),
    CAPI_TEST(test_backward_of_several_elements_needs_a_gradient),
    CAPI_TEST(test_second_backward_without_retain_graph_is_refused),
    CAPI_TEST(test_in_place_on_a_leaf_that_requires_grad_is_refused),
    CAPI_TEST(test_in_place_through_a_view_moves_its_base_history),
    CAPI_TEST(test_changing_a_saved_tensor_fails_backward_naming_versions),
    CAPI_TEST(test_changing_a_saved_tensor_through_detach_is_caught),
    CAPI_TEST(test_requires_grad_on_an_integer_tensor_is_a_dtype_error),
    CAPI_TEST(test_unknown_flags_are_refused),
    CAPI_TEST(test_unknown_grad_mode_is_refused),
    CAPI_TEST(test_no_grad_records_nothing_and_restores_the_mode),
    CAPI_TEST(test_backward_runs_under_no_grad),
    CAPI_TEST(test_inference_mode_makes_inference_tensors),
    CAPI_TEST(test_in_place_on_an_inference_tensor_outside_inference_mode_is_refused),
    CAPI_TEST(test_grad_mode_is_per_thread),
    CAPI_TEST(test_hook_on_a_leaf_sees_every_gradient),
    CAPI_TEST(test_hook_can_replace_the_gradient),
    CAPI_TEST(test_hook_on_a_non_leaf_changes_what_flows_back),
    CAPI_TEST(test_hook_user_data_lives_as_long_as_the_graph),
    CAPI_TEST(test_hook_runs_once_on_the_summed_gradient_and_in_autograd_grad),
    CAPI_TEST(test_failed_hook_registration_destroys_user_data),
    CAPI_TEST(test_failing_hook_stops_backward_with_its_status_and_message),
    CAPI_TEST(test_hook_replacement_of_other_sizes_is_a_shape_error),
    CAPI_TEST(test_post_accumulate_hook_sees_the_accumulated_grad),
    CAPI_TEST(test_post_accumulate_hook_can_replace_the_grad),
    CAPI_TEST(test_post_accumulate_hook_of_a_released_leaf_never_runs),
    CAPI_TEST(test_post_accumulate_hook_may_drop_its_leafs_last_reference),
    CAPI_TEST(test_failing_post_accumulate_hook_stops_backward_with_its_status_and_message),
    CAPI_TEST(test_post_accumulate_hook_registration_is_refused_off_leaves),
    CAPI_TEST(test_custom_function_cube_gradient),
    CAPI_TEST(test_custom_function_second_derivative_through_its_backward),
    CAPI_TEST(test_custom_function_forward_error_reaches_the_caller),
    CAPI_TEST(test_custom_function_records_nothing_without_grad),
    CAPI_TEST(test_custom_function_backward_error_reaches_backward_caller),
    CAPI_TEST(test_a_callback_status_outside_ct_status_becomes_invalid_argument),
    CAPI_TEST(test_a_hook_that_runs_backward_through_itself_stops_with_a_status),
    CAPI_TEST(test_a_released_handle_written_by_a_callback_is_invalid_argument),
    CAPI_TEST(test_a_gradient_on_another_device_is_refused_before_it_reaches_the_leaf),
    CAPI_TEST(test_a_root_gradient_on_another_device_is_refused),
    CAPI_TEST(test_a_hook_replacement_on_another_device_is_refused),
    CAPI_TEST(test_custom_function_saving_its_output_does_not_leak),
    CAPI_TEST(test_custom_function_returning_its_input_gives_a_new_tensor),
    CAPI_TEST(test_custom_function_broadcast_gradient_is_summed_back),
    CAPI_TEST(test_custom_function_bad_arguments),
    CAPI_TEST(test_custom_function_output_without_gradient_gets_zeros),
    CAPI_TEST(test_operator_without_derivative_is_not_implemented_until_wrapped),
    CAPI_TEST(test_in_place_change_of_a_saved_non_leaf_does_not_leak),
    CAPI_TEST(test_in_place_history_through_a_leafs_own_accumulator_does_not_leak),
    CAPI_TEST(test_in_place_history_on_a_saved_constant_does_not_leak),
    CAPI_TEST(test_create_graph_grad_goes_with_its_leaf),
    CAPI_TEST(test_create_graph_into_a_released_leaf_does_not_leak),
    CAPI_TEST(test_create_graph_retained_grad_does_not_leak),
    CAPI_TEST(test_second_derivative_through_a_saved_non_leaf_input),
    CAPI_TEST(test_training_steps_leave_no_tensor_behind),
    CAPI_TEST(test_hooks_and_custom_functions_leave_no_tensor_behind),
    CAPI_TEST(test_failures_leave_no_tensor_behind),
    CAPI_TEST(test_graphs_on_different_threads_are_independent),
    CAPI_TEST(test_threads_sharing_a_leaf_add_up_their_gradients),
    CAPI_TEST(test_post_accumulate_hook_on_a_leaf_shared_by_threads_runs_once_per_backward),
};

CAPI_MAIN(TESTS)
