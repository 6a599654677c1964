/*
 * dist_nccl.c - the nccl engine on one GPU: a group of one rank (a one-GPU machine cannot hold two
 * NCCL ranks), every collective on CUDA tensors, and the refusal of a CPU tensor. Run by
 * tests/dist/launch.py --nproc 1 (torchrun's variables); exits 77 (skipped) where CUDA has no
 * device, which is every machine of CI. scripts/gpu_suite.sh runs it where a GPU is lent.
 */
#include "capi_test.h"

static ct_process_group* g_pg = NULL;

/* A CUDA tensor holding values (a copy of a CPU one). */
static ct_tensor* on_cuda(ct_tensor* cpu) {
  ct_tensor* out = NULL;
  ct_status st = ct_tensor_to_device(cpu, "cuda", &out);
  ct_tensor_release(cpu);
  return st == CT_OK ? out : NULL;
}

static ct_tensor* on_cpu(ct_tensor* t) {
  ct_tensor* out = NULL;
  if (ct_tensor_to_device(t, "cpu", &out) != CT_OK) out = NULL;
  return out;
}

static void test_init(void) {
  int available = 0;
  CHECK_OK(ct_dist_is_backend_available("nccl", &available));
  CHECK(available == 1);
  CHECK_OK(ct_dist_init_process_group("nccl", NULL, -1, -1, 30.0, &g_pg));
  const char* name = NULL;
  CHECK_OK(ct_dist_get_backend(g_pg, &name));
  CHECK_STR_EQ(name, "nccl");
}

static void test_collectives_of_one_rank(void) {
  CHECK(g_pg != NULL);
  ct_tensor* t = on_cuda(T(CT_FLOAT32, S(3), 1, 2, 3));
  CHECK(t != NULL);
  CHECK_OK(ct_dist_all_reduce(g_pg, t, CT_REDUCE_SUM, NULL));
  CHECK_OK(ct_dist_all_reduce(g_pg, t, CT_REDUCE_AVG, NULL));
  CHECK_OK(ct_dist_broadcast(g_pg, t, 0, NULL));
  ct_work* w = NULL;
  CHECK_OK(ct_dist_all_reduce(g_pg, t, CT_REDUCE_MAX, &w));
  CHECK_OK(ct_work_wait(w, 0));
  ct_work_release(w);
  ct_tensor* out = on_cuda(TE(CT_FLOAT32, S(3)));
  CHECK_OK(ct_dist_all_gather_into_tensor(g_pg, out, t, NULL));
  CHECK_OK(ct_dist_reduce_scatter_tensor(g_pg, out, t, CT_REDUCE_SUM, NULL));
  CHECK_OK(ct_dist_all_to_all_single(g_pg, out, t, NULL));
  CHECK_OK(ct_dist_barrier(g_pg, NULL));
  ct_tensor* back = on_cpu(out);
  CHECK_TENSOR(back, CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* h = on_cuda(T(CT_BFLOAT16, S(2), 0.5, 4));
  CHECK_OK(ct_dist_all_reduce(g_pg, h, CT_REDUCE_SUM, NULL));
  ct_tensor* hb = on_cpu(h);
  CHECK_TENSOR(hb, CT_BFLOAT16, S(2), 0.5, 4);
  RELEASE(t, out, back, h, hb);
}

static void test_cpu_tensor_is_refused(void) {
  CHECK(g_pg != NULL);
  ct_tensor* t = T(CT_FLOAT32, S(2), 1, 2);
  CHECK_STATUS(ct_dist_all_reduce(g_pg, t, CT_REDUCE_SUM, NULL), CT_ERROR_DEVICE);
  CHECK_ERROR_CONTAINS("CUDA");
  ct_tensor_release(t);
}

static void test_destroy(void) {
  ct_process_group_destroy(g_pg);
  g_pg = NULL;
}

static const capi_test TESTS[] = {CAPI_TEST(test_init), CAPI_TEST(test_collectives_of_one_rank),
                                  CAPI_TEST(test_cpu_tensor_is_refused), CAPI_TEST(test_destroy)};

int main(int argc, char** argv) {
  if (ct_cuda_device_count() < 1) {
    printf("dist_nccl: no CUDA device here; skipped\n");
    return 77;
  }
  return capi_run(TESTS, sizeof TESTS / sizeof *TESTS, argc, argv);
}
