/*
 * dist_collectives.c - the ct_dist_* collectives across real ranks: one copy of this program per
 * rank, each checking what it received. The engine is CTORCH_TEST_BACKEND ("mpi" when unset); the
 * ranks come from the launcher: mpirun for mpi (rank and size from MPI), or RANK, WORLD_SIZE,
 * MASTER_ADDR and MASTER_PORT in the environment (torchrun's variables) for gloo.
 *
 *   mpirun -np 3 --oversubscribe build/tests/capi/capi_dist_collectives
 *   mpirun -np 2 --oversubscribe build/tests/capi/capi_dist_collectives test_timeout   (alone: see there)
 *
 * Every rank runs every test in the same order, so the collectives pair up; a rank whose check
 * fails returns early from that test, and the others then fail within the group's timeout (20 s)
 * instead of hanging. Not part of the glob of test_*.c programs, which run without a launcher.
 */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <math.h>
#include <time.h>

#include "capi_test.h"

static ct_process_group* g_pg = NULL;
static int g_rank = -1, g_size = 0;
static const char* g_backend = "mpi";
static const double kTimeout = 20.0;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A 1-d float tensor of n values v0, v0 + step, ... */
static ct_tensor* ramp(ct_dtype dt, int64_t n, double v0, double step) {
  double* v = malloc(sizeof(double) * (size_t)(n ? n : 1));
  for (int64_t i = 0; i < n; ++i) v[i] = v0 + step * (double)i;
  ct_tensor* t = capi_make(__FILE__, __LINE__, dt, &n, 1, v, (size_t)n);
  free(v);
  return t;
}

#define NEED_GROUP() CHECK(g_pg != NULL)
/* A non-NULL value that is not a group: a failed call must overwrite it with NULL. */
#define SENTINEL_PG ((ct_process_group*)capi_sentinel())

static void test_init(void) {
  const char* env = getenv("CTORCH_TEST_BACKEND");
  if (env && *env) g_backend = env;
  int available = 0;
  CHECK_OK(ct_dist_is_backend_available(g_backend, &available));
  CHECK(available == 1);
  CHECK_OK(ct_dist_init_process_group(g_backend, NULL, -1, -1, kTimeout, &g_pg));
  CHECK_OK(ct_dist_get_rank(g_pg, &g_rank));
  CHECK_OK(ct_dist_get_world_size(g_pg, &g_size));
  CHECK(g_size >= 2);
  CHECK(g_rank >= 0 && g_rank < g_size);
  const char* name = NULL;
  CHECK_OK(ct_dist_get_backend(g_pg, &name));
  CHECK_STR_EQ(name, g_backend);
  const char* launcher_rank = getenv(strcmp(g_backend, "mpi") == 0 ? "OMPI_COMM_WORLD_RANK" : "RANK");
  if (launcher_rank) CHECK(atoi(launcher_rank) == g_rank);
}

/* Rank r holds [r + 1, 2 (r + 1), 3 (r + 1)]: sums, products, minima and maxima are formulas of n. */
static void test_all_reduce_ops(void) {
  NEED_GROUP();
  const double n = g_size, r1 = g_rank + 1;
  double fact = 1;
  for (int i = 1; i <= g_size; ++i) fact *= i;
  const double tri = n * (n + 1) / 2;
  static const ct_reduce_op ops[] = {CT_REDUCE_SUM, CT_REDUCE_PRODUCT, CT_REDUCE_MIN, CT_REDUCE_MAX, CT_REDUCE_AVG};
  for (size_t k = 0; k < sizeof ops / sizeof *ops; ++k) {
    ct_tensor* t = T(CT_FLOAT32, S(3), r1, 2 * r1, 3 * r1);
    CHECK_OK(ct_dist_all_reduce(g_pg, t, ops[k], NULL));
    switch (ops[k]) {
      case CT_REDUCE_SUM: CHECK_TENSOR(t, CT_FLOAT32, S(3), tri, 2 * tri, 3 * tri); break;
      case CT_REDUCE_PRODUCT:
        CHECK_TENSOR(t, CT_FLOAT32, S(3), fact, fact * pow(2, n), fact * pow(3, n));
        break;
      case CT_REDUCE_MIN: CHECK_TENSOR(t, CT_FLOAT32, S(3), 1, 2, 3); break;
      case CT_REDUCE_MAX: CHECK_TENSOR(t, CT_FLOAT32, S(3), n, 2 * n, 3 * n); break;
      case CT_REDUCE_AVG:
        CHECK_TENSOR_NEAR(t, CT_FLOAT32, 1e-6, S(3), tri / n, 2 * tri / n, 3 * tri / n);
        break;
    }
    ct_tensor_release(t);
  }
}

/* Integer, double, bool and half dtypes (float16 is carried as float32 where the engine cannot
   reduce it). */
static void test_all_reduce_dtypes(void) {
  NEED_GROUP();
  const double n = g_size, r = g_rank;
  ct_tensor* i64 = T(CT_INT64, S(2), r, 4000000000.0 * r);
  CHECK_OK(ct_dist_all_reduce(g_pg, i64, CT_REDUCE_SUM, NULL));
  CHECK_TENSOR(i64, CT_INT64, S(2), n * (n - 1) / 2, 4000000000.0 * n * (n - 1) / 2);
  ct_tensor* i32 = T(CT_INT32, S(2), r - 1, -r);
  CHECK_OK(ct_dist_all_reduce(g_pg, i32, CT_REDUCE_MIN, NULL));
  CHECK_TENSOR(i32, CT_INT32, S(2), -1, -(n - 1));
  ct_tensor* f64 = T(CT_FLOAT64, S(1), 0.25 + r);
  CHECK_OK(ct_dist_all_reduce(g_pg, f64, CT_REDUCE_MAX, NULL));
  CHECK_TENSOR(f64, CT_FLOAT64, S(1), 0.25 + n - 1);
  /* bool: sum is "any", product is "all". Only rank 0 holds true in the first element. */
  ct_tensor* any = T(CT_BOOL, S(2), g_rank == 0, 1);
  CHECK_OK(ct_dist_all_reduce(g_pg, any, CT_REDUCE_SUM, NULL));
  CHECK_TENSOR(any, CT_BOOL, S(2), 1, 1);
  ct_tensor* all = T(CT_BOOL, S(2), g_rank == 0, 1);
  CHECK_OK(ct_dist_all_reduce(g_pg, all, CT_REDUCE_PRODUCT, NULL));
  CHECK_TENSOR(all, CT_BOOL, S(2), 0, 1);
  ct_tensor* half = T(CT_FLOAT16, S(2), 0.5, r);
  CHECK_OK(ct_dist_all_reduce(g_pg, half, CT_REDUCE_SUM, NULL));
  CHECK_TENSOR(half, CT_FLOAT16, S(2), 0.5 * n, n * (n - 1) / 2);
  ct_tensor* bf = T(CT_BFLOAT16, S(1), 1 + r);
  CHECK_OK(ct_dist_all_reduce(g_pg, bf, CT_REDUCE_MAX, NULL));
  CHECK_TENSOR(bf, CT_BFLOAT16, S(1), n);
  RELEASE(i64, i32, f64, any, all, half, bf);
}

/* A buffer larger than the engine's small-message path, with values that check every element. */
static void test_all_reduce_large(void) {
  NEED_GROUP();
  const int64_t count = 1 << 20;
  ct_tensor* t = ramp(CT_FLOAT32, count, g_rank, 1.0 / 1024);
  CHECK_OK(ct_dist_all_reduce(g_pg, t, CT_REDUCE_SUM, NULL));
  float* got = malloc(sizeof(float) * (size_t)count);
  CHECK_OK(ct_tensor_copy_to(t, got, sizeof(float) * (size_t)count));
  const double n = g_size;
  int64_t bad = -1;
  for (int64_t i = 0; i < count && bad < 0; ++i)
    if (got[i] != (float)(n * (n - 1) / 2 + n * ((double)i / 1024))) bad = i;
  free(got);
  ct_tensor_release(t);
  CHECK(bad < 0);
}

/* An addend whose float sum with the others depends on the order: magnitudes differ by rank and
   element, so ((v0 + v1) + v2) and the other orders round differently somewhere. */
static float order_sensitive(int rank, int64_t i) {
  const float scale[] = {1e-4f, 1.0f, 1e4f, 3e-2f, 7e2f};
  return sinf(0.37f * (float)i + (float)rank) * scale[(rank * 3 + i) % 5];
}

/* With the determinism switch on, every rank's all_reduce result is bitwise the rank-order sum
   (((v0 + v1) + v2) ...) each rank computes here by itself, and so the same run to run. */
static void test_all_reduce_deterministic_order(void) {
  NEED_GROUP();
  const int64_t count = 4099; /* not a multiple of the group's size: the last block is padded */
  float* mine = malloc(sizeof(float) * (size_t)count);
  float* want = malloc(sizeof(float) * (size_t)count);
  float* got = malloc(sizeof(float) * (size_t)count);
  for (int64_t i = 0; i < count; ++i) {
    mine[i] = order_sensitive(g_rank, i);
    float acc = order_sensitive(0, i);
    for (int r = 1; r < g_size; ++r) acc = acc + order_sensitive(r, i);
    want[i] = acc;
  }
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_data(mine, &count, 1, CT_FLOAT32, &t));
  CHECK_OK(ct_use_deterministic_algorithms(1, 0));
  ct_status st = ct_dist_all_reduce(g_pg, t, CT_REDUCE_SUM, NULL);
  CHECK_OK(ct_use_deterministic_algorithms(0, 0));
  CHECK_OK(st);
  CHECK_OK(ct_tensor_copy_to(t, got, sizeof(float) * (size_t)count));
  int64_t bad = -1;
  for (int64_t i = 0; i < count && bad < 0; ++i)
    if (memcmp(&got[i], &want[i], sizeof(float)) != 0) bad = i;
  if (bad >= 0) printf("element %lld: got %.9g, rank-order sum %.9g\n", (long long)bad, got[bad], want[bad]);
  free(mine);
  free(want);
  free(got);
  ct_tensor_release(t);
  CHECK(bad < 0);
}

static void test_broadcast(void) {
  NEED_GROUP();
  const int src = g_size - 1;
  ct_tensor* t = T(CT_FLOAT16, S(2, 2), g_rank, g_rank + 0.5, -g_rank, 7);
  CHECK_OK(ct_dist_broadcast(g_pg, t, src, NULL));
  CHECK_TENSOR(t, CT_FLOAT16, S(2, 2), src, src + 0.5, -src, 7);
  ct_tensor_release(t);
  ct_tensor* u = T(CT_INT64, S(1), g_rank);
  CHECK_STATUS(ct_dist_broadcast(g_pg, u, g_size, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor_release(u);
}

/* The sum lands on dst only; the other ranks keep their input. */
static void test_reduce(void) {
  NEED_GROUP();
  const int dst = g_size > 2 ? 1 : 0;
  const double n = g_size;
  ct_tensor* t = T(CT_INT32, S(3), g_rank, 1, 2 * g_rank);
  CHECK_OK(ct_dist_reduce(g_pg, t, dst, CT_REDUCE_SUM, NULL));
  if (g_rank == dst)
    CHECK_TENSOR(t, CT_INT32, S(3), n * (n - 1) / 2, n, n * (n - 1));
  else
    CHECK_TENSOR(t, CT_INT32, S(3), g_rank, 1, 2 * g_rank);
  ct_tensor_release(t);
  ct_tensor* f = T(CT_FLOAT32, S(1), g_rank + 2);
  CHECK_OK(ct_dist_reduce(g_pg, f, 0, CT_REDUCE_PRODUCT, NULL));
  double prod = 1;
  for (int i = 0; i < g_size; ++i) prod *= i + 2;
  if (g_rank == 0) CHECK_TENSOR(f, CT_FLOAT32, S(1), prod);
  ct_tensor_release(f);
}

static void test_all_gather(void) {
  NEED_GROUP();
  ct_tensor* in = T(CT_FLOAT32, S(2), 10 * g_rank, 10 * g_rank + 1);
  ct_tensor* outs[16] = {0};
  for (int r = 0; r < g_size; ++r) outs[r] = TE(CT_FLOAT32, S(2));
  CHECK_OK(ct_dist_all_gather(g_pg, outs, (size_t)g_size, in, NULL));
  for (int r = 0; r < g_size; ++r) CHECK_TENSOR(outs[r], CT_FLOAT32, S(2), 10 * r, 10 * r + 1);
  for (int r = 0; r < g_size; ++r) ct_tensor_release(outs[r]);
  /* into one tensor: [size * 2] */
  ct_tensor* flat = ramp(CT_FLOAT32, 2 * g_size, -1, 0);
  CHECK_OK(ct_dist_all_gather_into_tensor(g_pg, flat, in, NULL));
  double want[32];
  for (int r = 0; r < g_size; ++r) want[2 * r] = 10 * r, want[2 * r + 1] = 10 * r + 1;
  CHECK_TENSOR_ARRAY(flat, CT_FLOAT32, S(2 * g_size), want, (size_t)(2 * g_size), 0);
  ct_tensor_release(flat);
  ct_tensor_release(in);
}

/* Rank r's block b is (r + 1) * 100 + b; block b reduced is sum_r (r + 1) * 100 + n b. */
static void test_reduce_scatter(void) {
  NEED_GROUP();
  const double n = g_size;
  ct_tensor* ins[16] = {0};
  for (int b = 0; b < g_size; ++b) ins[b] = T(CT_FLOAT64, S(2), (g_rank + 1) * 100.0 + b, -b);
  ct_tensor* out = TE(CT_FLOAT64, S(2));
  CHECK_OK(ct_dist_reduce_scatter(g_pg, out, (const ct_tensor* const*)ins, (size_t)g_size, CT_REDUCE_SUM, NULL));
  CHECK_TENSOR(out, CT_FLOAT64, S(2), 100 * n * (n + 1) / 2 + n * g_rank, -n * g_rank);
  for (int b = 0; b < g_size; ++b) ct_tensor_release(ins[b]);
  /* the tensor form, with max: block b of rank r is r + b */
  ct_tensor* flat = ramp(CT_INT64, g_size, g_rank, 1);
  ct_tensor* mine = TE(CT_INT64, S(1));
  CHECK_OK(ct_dist_reduce_scatter_tensor(g_pg, mine, flat, CT_REDUCE_MAX, NULL));
  CHECK_TENSOR(mine, CT_INT64, S(1), n - 1 + g_rank);
  RELEASE(out, flat, mine);
}

static void test_gather(void) {
  NEED_GROUP();
  const int dst = g_size - 1;
  ct_tensor* in = T(CT_INT16, S(2), g_rank, -g_rank);
  ct_tensor* outs[16] = {0};
  if (g_rank == dst) {
    for (int r = 0; r < g_size; ++r) outs[r] = TE(CT_INT16, S(2));
    CHECK_OK(ct_dist_gather(g_pg, in, outs, (size_t)g_size, dst, NULL));
    for (int r = 0; r < g_size; ++r) CHECK_TENSOR(outs[r], CT_INT16, S(2), r, -r);
    for (int r = 0; r < g_size; ++r) ct_tensor_release(outs[r]);
  } else {
    CHECK_OK(ct_dist_gather(g_pg, in, NULL, 0, dst, NULL));
  }
  ct_tensor_release(in);
}

static void test_scatter(void) {
  NEED_GROUP();
  const int src = 0;
  ct_tensor* out = TE(CT_BFLOAT16, S(3));
  if (g_rank == src) {
    ct_tensor* ins[16] = {0};
    for (int r = 0; r < g_size; ++r) ins[r] = T(CT_BFLOAT16, S(3), r, r + 0.5, -1);
    CHECK_OK(ct_dist_scatter(g_pg, out, (const ct_tensor* const*)ins, (size_t)g_size, src, NULL));
    for (int r = 0; r < g_size; ++r) ct_tensor_release(ins[r]);
  } else {
    CHECK_OK(ct_dist_scatter(g_pg, out, NULL, 0, src, NULL));
  }
  CHECK_TENSOR(out, CT_BFLOAT16, S(3), g_rank, g_rank + 0.5, -1);
  ct_tensor_release(out);
}

/* Rank r sends 10 r + d to rank d; so rank d receives 10 r + d from each r. */
static void test_all_to_all(void) {
  NEED_GROUP();
  ct_tensor* ins[16] = {0};
  ct_tensor* outs[16] = {0};
  for (int d = 0; d < g_size; ++d) {
    ins[d] = T(CT_FLOAT32, S(1), 10 * g_rank + d);
    outs[d] = TE(CT_FLOAT32, S(1));
  }
  CHECK_OK(ct_dist_all_to_all(g_pg, outs, (const ct_tensor* const*)ins, (size_t)g_size, NULL));
  for (int r = 0; r < g_size; ++r) CHECK_TENSOR(outs[r], CT_FLOAT32, S(1), 10 * r + g_rank);
  for (int d = 0; d < g_size; ++d) RELEASE(ins[d], outs[d]);
  /* the single-tensor form: blocks of 2 */
  ct_tensor* in = ramp(CT_INT32, 2 * g_size, 100 * g_rank, 1);
  ct_tensor* out = TE(CT_INT32, S(2 * g_size));
  CHECK_OK(ct_dist_all_to_all_single(g_pg, out, in, NULL));
  double want[32];
  for (int r = 0; r < g_size; ++r) want[2 * r] = 100 * r + 2 * g_rank, want[2 * r + 1] = 100 * r + 2 * g_rank + 1;
  CHECK_TENSOR_ARRAY(out, CT_INT32, S(2 * g_size), want, (size_t)(2 * g_size), 0);
  RELEASE(in, out);
}

/* A ring: rank r sends to r + 1 and receives from r - 1; rank 0 sends first, the others receive
   first, so blocking calls cannot deadlock. Then two asynchronous sends with tags 7 and 3 from
   rank 0, which rank 1 receives in the other order (sends and receives do not queue behind each
   other: Note [Point-to-point outside the queue]). */
static void test_send_recv(void) {
  NEED_GROUP();
  const int next = (g_rank + 1) % g_size, prev = (g_rank + g_size - 1) % g_size;
  ct_tensor* mine = T(CT_INT64, S(2), g_rank, 1000 + g_rank);
  ct_tensor* got = TE(CT_INT64, S(2));
  if (g_rank == 0) {
    CHECK_OK(ct_dist_send(g_pg, mine, next, 0, NULL));
    CHECK_OK(ct_dist_recv(g_pg, got, prev, 0, NULL));
  } else {
    CHECK_OK(ct_dist_recv(g_pg, got, prev, 0, NULL));
    CHECK_OK(ct_dist_send(g_pg, mine, next, 0, NULL));
  }
  CHECK_TENSOR(got, CT_INT64, S(2), prev, 1000 + prev);
  RELEASE(mine, got);
  if (g_rank == 0) {
    ct_tensor* a = T(CT_FLOAT32, S(1), 7);
    ct_tensor* b = T(CT_FLOAT32, S(1), 3);
    ct_work* wa = NULL;
    ct_work* wb = NULL;
    CHECK_OK(ct_dist_send(g_pg, a, 1, 7, &wa));
    CHECK_OK(ct_dist_send(g_pg, b, 1, 3, &wb));
    CHECK_OK(ct_work_wait(wa, 0));
    CHECK_OK(ct_work_wait(wb, 0));
    ct_work_release(wa);
    ct_work_release(wb);
    RELEASE(a, b);
  } else if (g_rank == 1) {
    ct_tensor* a = TE(CT_FLOAT32, S(1));
    ct_tensor* b = TE(CT_FLOAT32, S(1));
    CHECK_OK(ct_dist_recv(g_pg, b, 0, 3, NULL));
    CHECK_OK(ct_dist_recv(g_pg, a, 0, 7, NULL));
    CHECK_TENSOR(a, CT_FLOAT32, S(1), 7);
    CHECK_TENSOR(b, CT_FLOAT32, S(1), 3);
    RELEASE(a, b);
  }
  ct_tensor* self = T(CT_INT64, S(1), 1);
  CHECK_STATUS(ct_dist_send(g_pg, self, g_size, 0, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor_release(self);
  /* mpi: a message longer than the receiving tensor is a shape error on the receiver (a small
     send completes without waiting for its receive there). */
  if (strcmp(g_backend, "mpi") == 0 && g_rank < 2) {
    ct_tensor* big = T(CT_FLOAT32, S(4), 1, 2, 3, 4);
    ct_tensor* small = TE(CT_FLOAT32, S(2));
    if (g_rank == 0) CHECK_OK(ct_dist_send(g_pg, big, 1, 5, NULL));
    else {
      CHECK_STATUS(ct_dist_recv(g_pg, small, 0, 5, NULL), CT_ERROR_SHAPE);
      CHECK_ERROR_CONTAINS("longer message");
    }
    RELEASE(big, small);
  }
}

static void test_barrier(void) {
  NEED_GROUP();
  /* The last rank arrives late; nobody leaves the barrier before it arrives. */
  const double start = now_seconds();
  if (g_rank == g_size - 1) {
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  CHECK_OK(ct_dist_barrier(g_pg, NULL));
  CHECK(now_seconds() - start >= 0.25);
}

/* Several operations in flight at once; results only after ct_work_wait. */
static void test_async(void) {
  NEED_GROUP();
  const double n = g_size;
  ct_tensor* t[3];
  ct_work* w[4] = {0};
  for (int k = 0; k < 3; ++k) {
    t[k] = T(CT_FLOAT32, S(2), g_rank + k, 1);
    CHECK_OK(ct_dist_all_reduce(g_pg, t[k], CT_REDUCE_SUM, &w[k]));
    CHECK(w[k] != NULL);
  }
  CHECK_OK(ct_dist_barrier(g_pg, &w[3]));
  for (int k = 3; k >= 0; --k) CHECK_OK(ct_work_wait(w[k], 0));
  for (int k = 0; k < 3; ++k) {
    int done = 0;
    CHECK_OK(ct_work_is_completed(w[k], &done));
    CHECK(done == 1);
    CHECK_OK(ct_work_wait(w[k], 0)); /* the same status on a later wait */
    CHECK_TENSOR(t[k], CT_FLOAT32, S(2), n * (n - 1) / 2 + n * k, n);
  }
  for (int k = 0; k < 4; ++k) ct_work_release(w[k]);
  RELEASE(t[0], t[1], t[2]);
  /* A handle released before it finishes: the operation still runs, in order. */
  ct_tensor* u = T(CT_FLOAT32, S(1), 1);
  ct_work* dropped = NULL;
  CHECK_OK(ct_dist_all_reduce(g_pg, u, CT_REDUCE_SUM, &dropped));
  ct_work_release(dropped);
  CHECK_OK(ct_dist_barrier(g_pg, NULL));
  CHECK_TENSOR(u, CT_FLOAT32, S(1), n);
  ct_tensor_release(u);
  CHECK_STATUS(ct_work_wait(NULL, 0), CT_ERROR_INVALID_ARGUMENT);
}

/* The group {size - 1, 0}: the last rank is the new rank 0. With 3 ranks, rank 1 is left out. */
static void test_new_group(void) {
  NEED_GROUP();
  const int ranks[2] = {g_size - 1, 0};
  ct_process_group* sub = NULL;
  CHECK_OK(ct_dist_new_group(g_pg, ranks, 2, 0, &sub));
  int sub_rank = -2, sub_size = 0;
  CHECK_OK(ct_dist_get_rank(sub, &sub_rank));
  CHECK_OK(ct_dist_get_world_size(sub, &sub_size));
  CHECK(sub_size == 2);
  const int member = g_rank == 0 || g_rank == g_size - 1;
  CHECK(sub_rank == (g_rank == g_size - 1 ? 0 : g_rank == 0 ? 1 : -1));
  ct_tensor* t = T(CT_FLOAT32, S(1), g_rank + 1);
  if (member) {
    CHECK_OK(ct_dist_all_reduce(sub, t, CT_REDUCE_SUM, NULL));
    CHECK_TENSOR(t, CT_FLOAT32, S(1), 1 + g_size);
    ct_tensor* b = T(CT_INT32, S(1), sub_rank);
    CHECK_OK(ct_dist_broadcast(sub, b, 1, NULL)); /* from the sub-group's rank 1: world rank 0 */
    CHECK_TENSOR(b, CT_INT32, S(1), 1);
    ct_tensor_release(b);
  } else {
    CHECK_STATUS(ct_dist_all_reduce(sub, t, CT_REDUCE_SUM, NULL), CT_ERROR_INVALID_ARGUMENT);
  }
  ct_tensor_release(t);
  ct_process_group_destroy(sub);
  /* The world group still works after the sub-group is gone. */
  ct_tensor* w = T(CT_INT64, S(1), 1);
  CHECK_OK(ct_dist_all_reduce(g_pg, w, CT_REDUCE_SUM, NULL));
  CHECK_TENSOR(w, CT_INT64, S(1), g_size);
  ct_tensor_release(w);
  /* bad rank lists are refused before any rank communicates */
  const int bad[2] = {0, 0};
  ct_process_group* none = SENTINEL_PG;
  CHECK_STATUS(ct_dist_new_group(g_pg, bad, 2, 0, &none), CT_ERROR_INVALID_ARGUMENT);
  CHECK(none == NULL);
}

/* Refusals the core makes on each rank alone (so the ranks stay paired). */
static void test_dtype_refusal(void) {
  NEED_GROUP();
  ct_tensor* i = T(CT_INT32, S(2), 1, 2);
  CHECK_STATUS(ct_dist_all_reduce(g_pg, i, CT_REDUCE_AVG, NULL), CT_ERROR_DTYPE);
  CHECK_ERROR_CONTAINS("int32");
  ct_tensor* f = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* outs[16] = {0};
  for (int r = 0; r < g_size; ++r) outs[r] = TE(r == 0 ? CT_FLOAT64 : CT_FLOAT32, S(2));
  CHECK_STATUS(ct_dist_all_gather(g_pg, outs, (size_t)g_size, f, NULL), CT_ERROR_DTYPE);
  for (int r = 0; r < g_size; ++r) ct_tensor_release(outs[r]);
  /* a list of the wrong length */
  ct_tensor* one[1] = {f};
  CHECK_STATUS(ct_dist_all_gather(g_pg, one, 1, f, NULL), CT_ERROR_INVALID_ARGUMENT);
  /* a view that is not contiguous: the message gives its sizes and strides */
  ct_tensor* m = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* mt = NULL;
  CHECK_OK(ct_tensor_transpose(m, 0, 1, &mt));
  CHECK_STATUS(ct_dist_all_reduce(g_pg, mt, CT_REDUCE_SUM, NULL), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("sizes [3, 2], strides [1, 3]) is not contiguous");
  /* a tensor on a device the engine does not serve */
  ct_tensor* meta = NULL;
  const int64_t two = 2;
  CHECK_OK(ct_tensor_empty(&two, 1, CT_FLOAT32, "meta", &meta));
  CHECK_STATUS(ct_dist_broadcast(g_pg, meta, 0, NULL), CT_ERROR_DEVICE);
  CHECK_ERROR_CONTAINS("is on meta");
  RELEASE(i, f, m, mt, meta);
  CHECK_OK(ct_dist_barrier(g_pg, NULL));
}

/* Refusals before any rank is contacted: names and methods that do not exist, and an engine that
   is not there says why (the sanitizer build has no mpi module). */
static void test_init_refusals(void) {
  int available = -1;
  CHECK_STATUS(ct_dist_is_backend_available("carrier-pigeon", &available), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("Known backends: gloo");
  CHECK_OK(ct_dist_is_backend_available("mpi", &available));
  if (!available) CHECK_ERROR_CONTAINS("distributed backend 'mpi'");
  ct_process_group* pg = SENTINEL_PG;
  CHECK_STATUS(ct_dist_init_process_group("carrier-pigeon", NULL, 0, 1, 1.0, &pg), CT_ERROR_INVALID_ARGUMENT);
  CHECK(pg == NULL);
  pg = SENTINEL_PG;
  CHECK_STATUS(ct_dist_init_process_group("gloo", "udp://127.0.0.1:1", 0, 1, 1.0, &pg), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("unknown init_method 'udp://127.0.0.1:1'");
  CHECK(pg == NULL);
  CHECK_STATUS(ct_dist_init_process_group("gloo", "tcp://127.0.0.1", 0, 1, 1.0, &pg), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("has no port");
  CHECK_STATUS(ct_dist_init_process_group("gloo", NULL, 3, 2, 1.0, &pg), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("rank 3 is not in [0, world_size 2)");
}

/* mpi: a rank and size that disagree with MPI's are refused (every rank asks, so MPI_Comm_dup
   stays collective). */
static void test_mpi_rank_mismatch(void) {
  NEED_GROUP();
  if (strcmp(g_backend, "mpi") != 0) return;
  ct_process_group* pg = SENTINEL_PG;
  CHECK_STATUS(ct_dist_init_process_group("mpi", NULL, (g_rank + 1) % g_size, g_size, kTimeout, &pg),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("MPI says");
  CHECK(pg == NULL);
  CHECK_OK(ct_dist_barrier(g_pg, NULL));
}

/* Destroying the world group finishes its queued operations first. */
static void test_destroy(void) {
  NEED_GROUP();
  ct_tensor* t = T(CT_FLOAT32, S(1), 1);
  ct_work* w = NULL;
  CHECK_OK(ct_dist_all_reduce(g_pg, t, CT_REDUCE_SUM, &w));
  ct_process_group_destroy(g_pg);
  g_pg = NULL;
  CHECK_OK(ct_work_wait(w, 0));
  CHECK_TENSOR(t, CT_FLOAT32, S(1), g_size);
  ct_work_release(w);
  ct_tensor_release(t);
}

/* Run alone (its own ctest): rank 0 all-reduces in a group with a 1 s timeout that the other ranks
   never join; it must get CT_ERROR_TIMEOUT within the timeout and a margin, and the group must
   refuse what follows. The other ranks wait past it and leave. For mpi, the timed-out process skips
   MPI_Finalize (the collective cannot be cancelled), so mpirun reports an abnormal exit: the ctest
   judges by the "passed" lines instead of mpirun's status. */
static void test_timeout(void) {
  NEED_GROUP();
  ct_process_group* sub = NULL;
  int all[16];
  for (int r = 0; r < g_size; ++r) all[r] = r;
  CHECK_OK(ct_dist_new_group(g_pg, all, (size_t)g_size, 1.0, &sub));
  if (g_rank == 0) {
    ct_tensor* t = T(CT_FLOAT32, S(4), 1, 2, 3, 4);
    const double start = now_seconds();
    CHECK_STATUS(ct_dist_all_reduce(sub, t, CT_REDUCE_SUM, NULL), CT_ERROR_TIMEOUT);
    const double took = now_seconds() - start;
    printf("rank 0: timed out after %.2f s: %s\n", took, ct_last_error());
    CHECK(took >= 0.9 && took < 6.0);
    CHECK_ERROR_CONTAINS("all_reduce");
    ct_status st = ct_dist_all_reduce(sub, t, CT_REDUCE_SUM, NULL);
    CHECK(st == CT_ERROR_DISTRIBUTED || st == CT_ERROR_TIMEOUT);
    /* mpi refuses at once, naming the operation that timed out */
    if (strcmp(g_backend, "mpi") == 0) CHECK_ERROR_CONTAINS("an earlier all_reduce (sum) of 4 float32 elements");
    ct_tensor_release(t);
  } else {
    struct timespec ts = {3, 0};
    nanosleep(&ts, NULL);
  }
  ct_process_group_destroy(sub);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_init),        CAPI_TEST(test_all_reduce_ops), CAPI_TEST(test_all_reduce_dtypes),
    CAPI_TEST(test_all_reduce_large), CAPI_TEST(test_all_reduce_deterministic_order), CAPI_TEST(test_broadcast), CAPI_TEST(test_reduce),
    CAPI_TEST(test_all_gather),  CAPI_TEST(test_reduce_scatter), CAPI_TEST(test_gather),
    CAPI_TEST(test_scatter),     CAPI_TEST(test_all_to_all),     CAPI_TEST(test_send_recv),
    CAPI_TEST(test_barrier),     CAPI_TEST(test_async),          CAPI_TEST(test_new_group),
    CAPI_TEST(test_dtype_refusal), CAPI_TEST(test_init_refusals), CAPI_TEST(test_mpi_rank_mismatch), CAPI_TEST(test_destroy),
};
static const capi_test TIMEOUT_TESTS[] = {CAPI_TEST(test_init), CAPI_TEST(test_timeout), CAPI_TEST(test_destroy)};

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "test_timeout") == 0)
    return capi_run(TIMEOUT_TESTS, sizeof TIMEOUT_TESTS / sizeof *TIMEOUT_TESTS, 1, argv);
  return capi_run(TESTS, sizeof TESTS / sizeof *TESTS, argc, argv);
}
