/* test_stress.c - 8 threads run a mixed workload at once (random draws from their own generators,
 * matrix products, autograd on separate graphs, one compiled function whose first calls race to
 * compile it) while a ninth flips global switches whose results the library promises not to
 * change (the thread count, the float32 matmul precision on the cpu). Every result must equal,
 * bit for bit, what the same workload gave on one thread before the threads started. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "capi_test.h"

enum { kThreads = 8, kIters = 500 };

/* CHECK_MSG(cond, what, detail): cond must hold; the report says what and detail. */
#define CHECK_MSG(cond, what, detail)                                   \
  do {                                                                  \
    if (!(cond)) {                                                      \
      capi_report(__FILE__, __LINE__, "%s: %s", (what), (detail));      \
      return;                                                           \
    }                                                                   \
  } while (0)

typedef struct {
  uint64_t loss_bits, grad_bits, compiled_bits;
} results;

static ct_compiled* shared_fn; /* compiled once, first called by the racing threads */

static uint64_t bits_of(const ct_tensor* t) {
  ct_scalar v;
  double d = 0;
  if (ct_tensor_item(t, &v) == CT_OK) d = v.kind == CT_SCALAR_FLOAT ? v.f : (double)v.i;
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

/* x * sigmoid(x) + 1, traced by ct_compile. */
static ct_status silu_plus_one(void* user_data, const ct_tensor* const* in, size_t n_in, ct_tensor** out,
                               size_t n_out) {
  (void)user_data, (void)n_in, (void)n_out;
  ct_tensor* s = NULL;
  ct_tensor* m = NULL;
  ct_scalar one = {CT_SCALAR_INT, 1, 0};
  ct_status st = ct_tensor_sigmoid(in[0], &s);
  if (st == CT_OK) st = ct_tensor_mul(in[0], s, &m);
  if (st == CT_OK) st = ct_tensor_add_scalar(m, &one, &out[0]);
  RELEASE(m, s);
  return st;
}

/* The workload of thread `id`: its own generator, a product, a backward pass, a compiled call. */
static ct_status workload(int id, results* r) {
  ct_generator* g = NULL;
  ct_tensor *x = NULL, *w = NULL, *y = NULL, *h = NULL, *loss = NULL, *grad = NULL, *gsum = NULL;
  ct_tensor *c = NULL, *csum = NULL;
  ct_status st = ct_generator_create("cpu", &g);
  if (st == CT_OK) st = ct_generator_manual_seed(g, 1000 + (uint64_t)id);
  if (st == CT_OK) st = ct_tensor_rand(S(48, 32), CT_FLOAT32, NULL, g, &x);
  if (st == CT_OK) st = ct_tensor_randn(S(32, 24), CT_FLOAT32, NULL, g, &w);
  if (st == CT_OK) st = ct_tensor_set_requires_grad(w, 1);
  if (st == CT_OK) st = ct_tensor_matmul(x, w, &y);
  if (st == CT_OK) st = ct_tensor_relu(y, &h);
  if (st == CT_OK) st = ct_tensor_sum(h, NULL, 0, 0, &loss);
  if (st == CT_OK) st = ct_tensor_backward(loss, NULL, 0);
  if (st == CT_OK) st = ct_tensor_grad(w, &grad);
  if (st == CT_OK) st = ct_tensor_sum(grad, NULL, 0, 0, &gsum);
  if (st == CT_OK) st = ct_compiled_call(shared_fn, (const ct_tensor* const*)&x, 1, &c, 1);
  if (st == CT_OK) st = ct_tensor_sum(c, NULL, 0, 0, &csum);
  if (st == CT_OK) *r = (results){bits_of(loss), bits_of(gsum), bits_of(csum)};
  RELEASE(csum, c, gsum, grad, loss, h, y, w, x);
  ct_generator_release(g);
  return st;
}

static results expected[kThreads];
static atomic_int stop_flipping;

typedef struct {
  int id, failures;
  char first_error[256];
} worker;

static void* run_worker(void* arg) {
  worker* wk = (worker*)arg;
  for (int i = 0; i < kIters; ++i) {
    results r;
    ct_status st = workload(wk->id, &r);
    if (st != CT_OK || memcmp(&r, &expected[wk->id], sizeof r) != 0) {
      if (wk->failures++ == 0)
        snprintf(wk->first_error, sizeof wk->first_error, "iteration %d: %s %s", i,
                 st == CT_OK ? "results differ from the single-threaded run" : ct_status_name(st), ct_last_error());
    }
  }
  return NULL;
}

static void* flip_switches(void* arg) {
  (void)arg;
  for (int i = 0; !atomic_load(&stop_flipping); ++i) {
    if (ct_set_num_threads(1 + i % 2) != CT_OK) return (void*)"ct_set_num_threads";
    if (ct_set_float32_matmul_precision(i % 2 ? "high" : "highest") != CT_OK) return (void*)"ct_set_float32_matmul_precision";
  }
  return NULL;
}

static void test_mixed_workload_matches_single_threaded_runs(void) {
  int32_t threads0 = 0;
  CHECK_OK(ct_get_num_threads(&threads0));
  CHECK_OK(ct_compile(silu_plus_one, NULL, NULL, NULL, &shared_fn));
  /* The reference: each workload once, alone, on a fresh compile of its own. */
  ct_compiled* shared = shared_fn;
  CHECK_OK(ct_compile(silu_plus_one, NULL, NULL, NULL, &shared_fn));
  for (int id = 0; id < kThreads; ++id) CHECK_OK(workload(id, &expected[id]));
  ct_compiled_release(shared_fn);
  shared_fn = shared; /* never called yet: the threads' first calls race to trace it */

  pthread_t tids[kThreads], flipper;
  worker workers[kThreads];
  atomic_store(&stop_flipping, 0);
  CHECK(pthread_create(&flipper, NULL, flip_switches, NULL) == 0);
  for (int id = 0; id < kThreads; ++id) {
    workers[id] = (worker){id, 0, ""};
    CHECK(pthread_create(&tids[id], NULL, run_worker, &workers[id]) == 0);
  }
  for (int id = 0; id < kThreads; ++id) pthread_join(tids[id], NULL);
  atomic_store(&stop_flipping, 1);
  void* flip_error = NULL;
  pthread_join(flipper, &flip_error);
  CHECK_OK(ct_set_num_threads(threads0));
  CHECK_OK(ct_set_float32_matmul_precision("highest"));
  ct_compiled_release(shared_fn);
  CHECK_MSG(flip_error == NULL, "a switch flip failed", (const char*)flip_error);
  for (int id = 0; id < kThreads; ++id) CHECK_MSG(workers[id].failures == 0, "a thread failed", workers[id].first_error);
}

static const capi_test TESTS[] = {CAPI_TEST(test_mixed_workload_matches_single_threaded_runs)};
CAPI_MAIN(TESTS)
