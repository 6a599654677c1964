/* bench_ops_index.c - the indexing family beside libtorch, in one run (issue 6: "index_add of 1M
 * rows"). Shapes, float32 values and int64 indices uniform at random, fixed seeds:
 *   I1  index_add     self [100000, 64], 1M indices into dim 0, source [1M, 64]  (accumulates)
 *   I2  index_put     the same with accumulate=True (x.index_put_((idx,), src, accumulate=True))
 *   I3  index_select  self [100000, 64], 1M indices into dim 0  -> [1M, 64]
 *   I4  gather        self [1M, 64], index [1M, 16] into dim 1  -> [1M, 16]
 * I1s..I4s: the same on one thread (both libraries).
 * libtorch's tensors wrap ctorch's memory, so both read the same bytes. Target: at least
 * libtorch's speed. ctorch's accumulation gives the same bits for any thread count. */
#include <stdio.h>
#include <string.h>

#include "bench_timing.h"
#ifdef CTORCH_BENCH_LIBTORCH
#include "libtorch_ops_index.h"
#endif

#define REPS 7
#define ROWS 100000
#define N (1000 * 1000)
#define D 64
#define K 16

typedef struct {
  ct_tensor *self, *index, *source, *big, *gidx;
#ifdef CTORCH_BENCH_LIBTORCH
  void *lself, *lindex, *lsource, *lbig, *lgidx;
#endif
} job;

static job J;

static void ct_index_add(void* p) {
  (void)p;
  ct_tensor* r = NULL;
  CHECK(ct_tensor_index_add(J.self, 0, J.index, J.source, NULL, &r));
  ct_tensor_release(r);
}
static void ct_index_put(void* p) {
  (void)p;
  ct_tensor* r = NULL;
  const ct_tensor* idx[1] = {J.index};
  CHECK(ct_tensor_index_put(J.self, idx, 1, J.source, 1, &r));
  ct_tensor_release(r);
}
static void ct_index_select(void* p) {
  (void)p;
  ct_tensor* r = NULL;
  CHECK(ct_tensor_index_select(J.self, 0, J.index, &r));
  ct_tensor_release(r);
}
static void ct_gather(void* p) {
  (void)p;
  ct_tensor* r = NULL;
  CHECK(ct_tensor_gather(J.big, 1, J.gidx, &r));
  ct_tensor_release(r);
}

#ifdef CTORCH_BENCH_LIBTORCH
static void lt_add(void* p) { (void)p; lt_index_add(J.lself, 0, J.lindex, J.lsource); }
static void lt_put(void* p) { (void)p; lt_index_put_accumulate(J.lself, J.lindex, J.lsource); }
static void lt_select(void* p) { (void)p; lt_index_select(J.lself, 0, J.lindex); }
static void lt_gath(void* p) { (void)p; lt_gather(J.lbig, 1, J.lgidx); }

static void* wrap(const ct_tensor* t, const int64_t* sizes, int ndim, int is_float) {
  void* data = NULL;
  CHECK(ct_tensor_data_ptr(t, &data));
  return lt_index_wrap(data, sizes, ndim, is_float);
}
#endif

static void set_threads(int n) {
  CHECK(ct_set_num_threads(n));
#ifdef CTORCH_BENCH_LIBTORCH
  lt_set_threads(n);
#endif
}

static void row(const char* id, const char* what, void (*ct)(void*), void (*lt)(void*)) {
  double c = 0, l = 0;
  median_pair(ct, lt, NULL, 1, REPS, &c, &l);
  if (lt)
    printf("%-4s %-44s %10.2f ms %10.2f ms %8.2fx\n", id, what, 1e3 * c, 1e3 * l, l / c);
  else
    printf("%-4s %-44s %10.2f ms %13s %9s\n", id, what, 1e3 * c, "-", "-");
}

int main(void) {
  CHECK(ct_init(CT_ABI_VERSION));
  ct_generator* g = NULL;
  CHECK(ct_generator_create("cpu", &g));
  CHECK(ct_generator_manual_seed(g, 6));
  const int64_t self_sizes[2] = {ROWS, D}, n[1] = {N}, src_sizes[2] = {N, D}, gsizes[2] = {N, K};
  CHECK(ct_tensor_randn(self_sizes, 2, CT_FLOAT32, NULL, g, &J.self));
  CHECK(ct_tensor_randn(src_sizes, 2, CT_FLOAT32, NULL, g, &J.source));
  CHECK(ct_tensor_randint(0, ROWS, n, 1, CT_INT64, NULL, g, &J.index));
  J.big = J.source; /* [1M, 64] */
  CHECK(ct_tensor_randint(0, D, gsizes, 2, CT_INT64, NULL, g, &J.gidx));
  void (*la)(void*) = NULL, (*lp)(void*) = NULL, (*ls)(void*) = NULL, (*lg)(void*) = NULL;
#ifdef CTORCH_BENCH_LIBTORCH
  J.lself = wrap(J.self, self_sizes, 2, 1);
  J.lsource = wrap(J.source, src_sizes, 2, 1);
  J.lindex = wrap(J.index, n, 1, 0);
  J.lbig = J.lsource;
  J.lgidx = wrap(J.gidx, gsizes, 2, 0);
  la = lt_add, lp = lt_put, ls = lt_select, lg = lt_gath;
#endif
  int32_t threads = 0;
  CHECK(ct_get_num_threads(&threads));
  printf("bench_ops_index: ctorch %s, %d threads, median of %d\n", ct_version(), threads, REPS);
  printf("%-4s %-44s %13s %13s %9s\n", "id", "operation", "ctorch", "libtorch", "ratio");
  row("I1", "index_add [1e5,64] <- 1M rows of [1M,64]", ct_index_add, la);
  row("I2", "index_put accumulate, same sizes", ct_index_put, lp);
  row("I3", "index_select [1e5,64], 1M indices", ct_index_select, ls);
  row("I4", "gather [1M,64] dim 1, index [1M,16]", ct_gather, lg);
  set_threads(1);
  row("I1s", "index_add, 1 thread", ct_index_add, la);
  row("I2s", "index_put accumulate, 1 thread", ct_index_put, lp);
  row("I3s", "index_select, 1 thread", ct_index_select, ls);
  row("I4s", "gather, 1 thread", ct_gather, lg);
  set_threads(threads);
  printf("ratio = libtorch time / ctorch time (above 1: ctorch is faster)\n");
#ifdef CTORCH_BENCH_LIBTORCH
  lt_index_release(J.lself);
  lt_index_release(J.lsource);
  lt_index_release(J.lindex);
  lt_index_release(J.lgidx);
#endif
  ct_tensor_release(J.self);
  ct_tensor_release(J.source);
  ct_tensor_release(J.index);
  ct_tensor_release(J.gidx);
  ct_generator_release(g);
  return 0;
}
