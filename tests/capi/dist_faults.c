/*
 * dist_faults.c - ranks that never arrive or die, over the gloo engine: the others must get
 * CT_ERROR_TIMEOUT or CT_ERROR_DISTRIBUTED naming the missing rank, within the group's timeout,
 * never a hang or an abort. Run by tests/dist/launch.py (RANK, WORLD_SIZE, MASTER_ADDR,
 * MASTER_PORT), one mode per launch:
 *
 *   launch.py --nproc 3 --expect-fail 2 -- capi_dist_faults absent   rank 2 exits before joining
 *   launch.py --nproc 3 --expect-fail 1 -- capi_dist_faults killed   rank 1 is killed after joining
 *   launch.py --nproc 2 -- capi_dist_faults mismatch                  the ranks' sizes differ
 *
 * The launcher's --expect-fail makes the vanished rank's own non-zero exit part of the verdict, and
 * the surviving ranks print "N passed, 0 failed".
 */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "capi_test.h"

static const double kTimeout = 4.0;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int env_int(const char* name) {
  const char* v = getenv(name);
  return v ? atoi(v) : -1;
}

/* Rank 2 never calls init: the others' rendezvous times out naming it. */
static void test_absent_rank_is_named(void) {
  if (env_int("RANK") == 2) exit(3);
  ct_process_group* pg = (ct_process_group*)capi_sentinel();
  const double start = now_seconds();
  CHECK_STATUS(ct_dist_init_process_group("gloo", NULL, -1, -1, kTimeout, &pg), CT_ERROR_TIMEOUT);
  const double took = now_seconds() - start;
  printf("rank %d: init gave up after %.2f s: %s\n", env_int("RANK"), took, ct_last_error());
  CHECK(pg == NULL);
  CHECK(took < 3 * kTimeout);
  CHECK_ERROR_CONTAINS("init_process_group");
  CHECK_ERROR_CONTAINS("Missing ranks: 2");
}

/* Rank 1 is killed after every rank joined; the others' next all_reduce fails naming it. */
static void test_killed_rank_is_named(void) {
  ct_process_group* pg = NULL;
  CHECK_OK(ct_dist_init_process_group("gloo", NULL, -1, -1, kTimeout, &pg));
  int rank = -1;
  CHECK_OK(ct_dist_get_rank(pg, &rank));
  int64_t n = 1024;
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_ones(&n, 1, CT_FLOAT32, NULL, &t));
  CHECK_OK(ct_dist_all_reduce(pg, t, CT_REDUCE_SUM, NULL)); /* everyone is here */
  if (rank == 1) {
    fflush(stdout);
    raise(SIGKILL);
  }
  const double start = now_seconds();
  ct_status st = ct_dist_all_reduce(pg, t, CT_REDUCE_SUM, NULL);
  const double took = now_seconds() - start;
  printf("rank %d: all_reduce failed after %.2f s with %s: %s\n", rank, took, ct_status_name(st), ct_last_error());
  CHECK(st == CT_ERROR_TIMEOUT || st == CT_ERROR_DISTRIBUTED);
  CHECK(took < 3 * kTimeout);
  CHECK_ERROR_CONTAINS("all_reduce");
  CHECK_ERROR_CONTAINS("Missing ranks: 1");
  ct_tensor_release(t);
  ct_process_group_destroy(pg);
}

/* The ranks all_reduce different sizes, then send a message into a receive of another size: every
   rank fails naming what each passed (Note [Sizes agreed before sending]), where Gloo alone would
   end the process from its I/O thread. */
static void test_mismatched_sizes_are_reported(void) {
  ct_process_group* pg = NULL;
  CHECK_OK(ct_dist_init_process_group("gloo", NULL, -1, -1, kTimeout, &pg));
  int rank = -1;
  CHECK_OK(ct_dist_get_rank(pg, &rank));
  int64_t n = 1000 + rank;
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_ones(&n, 1, CT_FLOAT32, NULL, &t));
  const double start = now_seconds();
  ct_status st = ct_dist_all_reduce(pg, t, CT_REDUCE_SUM, NULL);
  const double took = now_seconds() - start;
  printf("rank %d: all_reduce of %lld elements gave %s after %.2f s: %s\n", rank, (long long)n, ct_status_name(st),
         took, ct_last_error());
  CHECK(st == CT_ERROR_DISTRIBUTED);
  CHECK(took < kTimeout);
  CHECK_ERROR_CONTAINS("all_reduce: the ranks disagree");
  CHECK_ERROR_CONTAINS("rank 0: all_reduce of 1000 float32; rank 1: all_reduce of 1001 float32");
  /* The group stays usable: the next collective with agreeing sizes goes through. */
  ct_tensor* one = NULL;
  int64_t k = 1;
  CHECK_OK(ct_tensor_ones(&k, 1, CT_FLOAT32, NULL, &one));
  CHECK_OK(ct_dist_all_reduce(pg, one, CT_REDUCE_SUM, NULL));
  CHECK_TENSOR(one, CT_FLOAT32, S(1), 2);
  if (rank == 0) {
    ct_status sent = ct_dist_send(pg, t, 1, 5, NULL); /* 1000 floats: the receive refuses them */
    printf("rank 0: send gave %s: %s\n", ct_status_name(sent), ct_last_error());
    CHECK(sent == CT_ERROR_TIMEOUT || sent == CT_ERROR_DISTRIBUTED);
  } else {
    CHECK_STATUS(ct_dist_recv(pg, t, 0, 5, NULL), CT_ERROR_SHAPE);
    CHECK_ERROR_CONTAINS("recv: rank 0 sent 4000 bytes with tag 5, but this tensor (sizes [1001], float32) holds 4004");
  }
  ct_tensor_release(one);
  ct_tensor_release(t);
  ct_process_group_destroy(pg);
}

static const capi_test ABSENT[] = {CAPI_TEST(test_absent_rank_is_named)};
static const capi_test KILLED[] = {CAPI_TEST(test_killed_rank_is_named)};
static const capi_test MISMATCH[] = {CAPI_TEST(test_mismatched_sizes_are_reported)};

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "absent") == 0) return capi_run(ABSENT, 1, 1, argv);
  if (argc > 1 && strcmp(argv[1], "killed") == 0) return capi_run(KILLED, 1, 1, argv);
  if (argc > 1 && strcmp(argv[1], "mismatch") == 0) return capi_run(MISMATCH, 1, 1, argv);
  fprintf(stderr, "usage: %s absent|killed|mismatch (under tests/dist/launch.py)\n", argv[0]);
  return 2;
}
