/*
 * ddp_digits.c - the digits MLP of examples/digits.md trained data-parallel through the C ABI:
 * every rank takes its share of each batch, and the gradients are summed over the ranks
 * (ct_dist_all_reduce, started for all four parameters at once and then waited for) before each
 * optimizer step. The loss is each rank's summed cross-entropy divided by the whole batch's size,
 * so the summed gradient is the one a single process computes on the whole batch, and N ranks
 * reach one process's weights (up to the order of float additions).
 *
 *   python3 -m ctorch.distributed.run --nproc-per-node 2 build/examples/ddp_digits   (gloo)
 *   mpirun -np 2 env CTORCH_BACKEND=mpi build/examples/ddp_digits                      (mpi)
 *   build/examples/ddp_digits                                       (one process, no group)
 *
 * The launcher sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT (torchrun's variables); without
 * WORLD_SIZE (and outside mpirun) the program trains alone. Rank 0 prints each epoch's mean loss
 * and, at the end, a checksum of every parameter, which tests/dist/same_training.py compares
 * between one process and several. Usage: ddp_digits [--epochs N] [DATA]
 */
#include <ctorch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    ct_status status_ = (call);                                                                \
    if (status_ != CT_OK) {                                                                    \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ct_status_name(status_), ct_last_error()); \
      goto done;                                                                               \
    }                                                                                          \
  } while (0)

enum { kSamples = 1797, kTrain = 1437, kBatch = 64, kParams = 4 };

/* linear(relu(linear(x, W1, b1)), W2, b2). */
static ct_status forward(ct_tensor* const* p, const ct_tensor* x, ct_tensor** out) {
  ct_tensor *h = NULL, *r = NULL;
  ct_status st = ct_tensor_linear(x, p[0], p[1], &h);
  if (st == CT_OK) st = ct_tensor_relu(h, &r);
  if (st == CT_OK) st = ct_tensor_linear(r, p[2], p[3], out);
  ct_tensor_release(r);
  ct_tensor_release(h);
  return st;
}

/* Sums every parameter's gradient over the ranks: four asynchronous all_reduces in flight at once,
   then waited for (the group's queue runs them in order on every rank). */
static ct_status sum_gradients(ct_process_group* pg, ct_tensor* const* p) {
  ct_tensor* grads[kParams] = {NULL};
  ct_work* works[kParams] = {NULL};
  ct_status st = CT_OK;
  for (int i = 0; i < kParams && st == CT_OK; ++i) {
    st = ct_tensor_grad(p[i], &grads[i]);
    if (st == CT_OK) st = ct_dist_all_reduce(pg, grads[i], CT_REDUCE_SUM, &works[i]);
  }
  for (int i = 0; i < kParams; ++i) {
    if (works[i]) {
      ct_status w = ct_work_wait(works[i], 0);
      if (st == CT_OK) st = w;
    }
    ct_work_release(works[i]);
    ct_tensor_release(grads[i]);
  }
  return st;
}

/* This rank's rows [lo, hi) of the batch [start, start + n) of order: the loss is their summed
   cross-entropy over n, so the ranks' gradients add up to the whole batch's. *loss_value gets it. */
static ct_status train_batch(ct_process_group* pg, ct_tensor* const* p, ct_optimizer* opt, const ct_tensor* x,
                             const ct_tensor* labels, const ct_tensor* train, const ct_tensor* order, int64_t lo,
                             int64_t hi, int64_t n, double* loss_value) {
  ct_tensor *slice = NULL, *idx = NULL, *xb = NULL, *yb = NULL, *logits = NULL, *sum = NULL, *loss = NULL;
  ct_scalar item;
  const ct_scalar batch = {CT_SCALAR_INT, n, 0.0};
  ct_status st = ct_tensor_narrow(order, 0, lo, hi - lo, &slice);
  if (st == CT_OK) st = ct_tensor_index_select(train, 0, slice, &idx);
  if (st == CT_OK) st = ct_tensor_index_select(x, 0, idx, &xb);
  if (st == CT_OK) st = ct_tensor_index_select(labels, 0, idx, &yb);
  if (st == CT_OK) st = forward(p, xb, &logits);
  if (st == CT_OK) st = ct_tensor_cross_entropy(logits, yb, NULL, CT_REDUCTION_SUM, -100, 0.0, &sum);
  if (st == CT_OK) st = ct_tensor_div_scalar(sum, &batch, &loss);
  if (st == CT_OK) st = ct_optimizer_zero_grad(opt, 1);
  if (st == CT_OK) st = ct_tensor_backward(loss, NULL, 0);
  if (st == CT_OK && pg) st = sum_gradients(pg, p);
  if (st == CT_OK) st = ct_optimizer_step(opt);
  if (st == CT_OK) st = ct_tensor_item(loss, &item);
  if (st == CT_OK) *loss_value = item.f;
  ct_tensor_release(loss), ct_tensor_release(sum), ct_tensor_release(logits), ct_tensor_release(yb);
  ct_tensor_release(xb), ct_tensor_release(idx), ct_tensor_release(slice);
  return st;
}

int main(int argc, char** argv) {
  const char* path = "examples/data/digits.safetensors";
  int epochs = 5;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--epochs") == 0 && i + 1 < argc) {
      epochs = atoi(argv[++i]);
    } else {
      path = argv[i];
    }
  }
  int rc = 1, rank = 0, world = 1;
  ct_process_group* pg = NULL;
  ct_checkpoint* ckpt = NULL;
  ct_tensor *pixels = NULL, *labels = NULL, *pixels_f = NULL, *x = NULL, *perm = NULL, *train = NULL;
  ct_tensor *order = NULL, *epoch_loss = NULL;
  ct_tensor* p[kParams] = {NULL};
  ct_optimizer* opt = NULL;

  /* The group: gloo from torchrun's variables, or MPI under mpirun; none when launched alone. */
  const char* backend = getenv("CTORCH_BACKEND");
  if (!backend) backend = "gloo";
  if (getenv("WORLD_SIZE") || getenv("OMPI_COMM_WORLD_SIZE")) {
    CHECK(ct_dist_init_process_group(backend, NULL, -1, -1, 60.0, &pg));
    CHECK(ct_dist_get_rank(pg, &rank));
    CHECK(ct_dist_get_world_size(pg, &world));
  }

  /* The data and the split, the same on every rank (one seed). */
  CHECK(ct_manual_seed(0));
  CHECK(ct_checkpoint_open(path, &ckpt));
  CHECK(ct_checkpoint_get(ckpt, "pixels", &pixels));
  CHECK(ct_checkpoint_get(ckpt, "labels", &labels));
  CHECK(ct_tensor_to(pixels, CT_FLOAT32, &pixels_f));
  const ct_scalar sixteen = {CT_SCALAR_INT, 16, 0.0};
  CHECK(ct_tensor_div_scalar(pixels_f, &sixteen, &x));
  CHECK(ct_tensor_randperm(kSamples, CT_INT64, "cpu", NULL, &perm));
  CHECK(ct_tensor_narrow(perm, 0, 0, kTrain, &train));

  /* The model; rank 0's initial weights go to every rank, as DistributedDataParallel does. */
  const int64_t sizes[kParams][2] = {{64, 64}, {64, 0}, {10, 64}, {10, 0}};
  for (int i = 0; i < kParams; ++i)
    CHECK(ct_tensor_empty(sizes[i], sizes[i][1] ? 2 : 1, CT_FLOAT32, "cpu", &p[i]));
  CHECK(ct_init_linear_(p[0], p[1], NULL));
  CHECK(ct_init_linear_(p[2], p[3], NULL));
  for (int i = 0; i < kParams; ++i) {
    if (pg) CHECK(ct_dist_broadcast(pg, p[i], 0, NULL));
    CHECK(ct_tensor_set_requires_grad(p[i], 1));
  }
  ct_optimizer_options options;
  CHECK(ct_optimizer_options_default(CT_OPTIMIZER_ADAM, &options));
  options.lr = 0.01;
  CHECK(ct_optimizer_create((const ct_tensor* const*)p, kParams, &options, &opt));

  for (int epoch = 1; epoch <= epochs; ++epoch) {
    CHECK(ct_tensor_randperm(kTrain, CT_INT64, "cpu", NULL, &order));
    double total = 0.0;
    for (int64_t b = 0; b < kTrain; b += kBatch) {
      const int64_t n = b + kBatch < kTrain ? kBatch : kTrain - b;
      const int64_t lo = b + n * rank / world, hi = b + n * (rank + 1) / world;
      double loss = 0.0;
      CHECK(train_batch(pg, p, opt, x, labels, train, order, lo, hi, n, &loss));
      total += loss * (double)n;
    }
    ct_tensor_release(order);
    order = NULL;
    /* The epoch's loss over every rank's rows. */
    const int64_t one = 1;
    CHECK(ct_tensor_from_data(&total, &one, 1, CT_FLOAT64, &epoch_loss));
    if (pg) CHECK(ct_dist_all_reduce(pg, epoch_loss, CT_REDUCE_SUM, NULL));
    ct_scalar mean;
    CHECK(ct_tensor_item(epoch_loss, &mean));
    ct_tensor_release(epoch_loss);
    epoch_loss = NULL;
    if (rank == 0) printf("epoch %2d  loss %.9f\n", epoch, mean.f / kTrain);
  }
  for (int i = 0; i < kParams && rank == 0; ++i) {
    ct_tensor *a = NULL, *s = NULL;
    ct_scalar v;
    ct_status st = ct_tensor_abs(p[i], &a);
    if (st == CT_OK) st = ct_tensor_sum(a, NULL, 0, 0, &s);
    if (st == CT_OK) st = ct_tensor_item(s, &v);
    ct_tensor_release(s);
    ct_tensor_release(a);
    CHECK(st);
    printf("param %d  abs sum %.9g\n", i, v.f);
  }
  if (rank == 0) printf("trained on %d rank%s\n", world, world == 1 ? "" : "s");
  rc = 0;

done:
  ct_optimizer_release(opt);
  for (int i = 0; i < kParams; ++i) ct_tensor_release(p[i]);
  ct_tensor_release(epoch_loss), ct_tensor_release(order), ct_tensor_release(train), ct_tensor_release(perm);
  ct_tensor_release(x), ct_tensor_release(pixels_f), ct_tensor_release(labels), ct_tensor_release(pixels);
  ct_checkpoint_release(ckpt);
  ct_process_group_destroy(pg);
  return rc;
}
