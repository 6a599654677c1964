/*
 * digits_cnn.c - a small convolutional network trained on the handwritten digits (1x8x8 images),
 * through the C ABI only: conv2d, batch norm, relu, max pooling, flatten and linear, with Adam.
 *
 *   conv2d(1 -> 8, 3x3, padding 1) -> batch_norm(8) -> relu -> max_pool2d(2) -> flatten -> linear(128 -> 10)
 *
 * The data, seed, split, batches and printed lines are those of examples/digits.md (the MLP's
 * recipe), with this model, 10 epochs and Adam at lr 0.01. examples/python/digits_cnn.py builds the
 * same network from ctorch.nn modules and prints the same bits. Usage:
 *
 *   digits_cnn [--epoch-times] [DATA]     (DATA: examples/data/digits.safetensors by default)
 */
#define _POSIX_C_SOURCE 199309L
#include <ctorch.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* On failure: print which call failed, its status and this thread's message, then clean up. */
#define CHECK(call)                                                                            \
  do {                                                                                         \
    ct_status status_ = (call);                                                                \
    if (status_ != CT_OK) {                                                                    \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ct_status_name(status_), ct_last_error()); \
      goto done;                                                                               \
    }                                                                                          \
  } while (0)

enum { kSamples = 1797, kTrain = 1437, kTest = kSamples - kTrain, kBatch = 64, kEpochs = 10, kParams = 6 };

/* Parameters in the optimizer's order (conv weight and bias, batch norm weight and bias, linear
 * weight and bias), then batch norm's running statistics. */
typedef struct Cnn {
  ct_tensor* p[kParams];
  ct_tensor *running_mean, *running_var;
} Cnn;

/* The network on x [N, 1, 8, 8]; training selects batch statistics (and updates the running ones). */
static ct_status forward(const Cnn* m, const ct_tensor* x, int training, ct_tensor** out) {
  ct_tensor *conv = NULL, *norm = NULL, *act = NULL, *pool = NULL, *flat = NULL;
  ct_conv2d_options conv_options = CT_CONV2D_OPTIONS_DEFAULT;
  conv_options.padding[0] = conv_options.padding[1] = 1;
  const ct_pool2d_options pool_options = CT_POOL2D_OPTIONS_DEFAULT(2, 2);
  ct_status st = ct_tensor_conv2d(x, m->p[0], m->p[1], &conv_options, &conv);
  if (st == CT_OK)
    st = ct_tensor_batch_norm(conv, m->p[2], m->p[3], m->running_mean, m->running_var, training, 0.1, 1e-5, &norm);
  if (st == CT_OK) st = ct_tensor_relu(norm, &act);
  if (st == CT_OK) st = ct_tensor_max_pool2d(act, &pool_options, &pool, NULL);
  if (st == CT_OK) st = ct_tensor_flatten(pool, 1, -1, &flat);
  if (st == CT_OK) st = ct_tensor_linear(flat, m->p[4], m->p[5], out);
  ct_tensor_release(flat), ct_tensor_release(pool), ct_tensor_release(act);
  ct_tensor_release(norm), ct_tensor_release(conv);
  return st;
}

/* One training batch: the entries [start, start + n) of order, through the training indices. */
static ct_status train_batch(const Cnn* m, ct_optimizer* opt, const ct_tensor* x, const ct_tensor* labels,
                             const ct_tensor* train, const ct_tensor* order, int64_t start, int64_t n,
                             double* loss_value) {
  ct_tensor *slice = NULL, *idx = NULL, *xb = NULL, *yb = NULL, *logits = NULL, *loss = NULL;
  ct_scalar item;
  ct_status st = ct_tensor_narrow(order, 0, start, n, &slice);
  if (st == CT_OK) st = ct_tensor_index_select(train, 0, slice, &idx);
  if (st == CT_OK) st = ct_tensor_index_select(x, 0, idx, &xb);
  if (st == CT_OK) st = ct_tensor_index_select(labels, 0, idx, &yb);
  if (st == CT_OK) st = forward(m, xb, 1, &logits);
  if (st == CT_OK) st = ct_tensor_cross_entropy(logits, yb, NULL, CT_REDUCTION_MEAN, -100, 0.0, &loss);
  if (st == CT_OK) st = ct_optimizer_zero_grad(opt, 1);
  if (st == CT_OK) st = ct_tensor_backward(loss, NULL, 0);
  if (st == CT_OK) st = ct_optimizer_step(opt);
  if (st == CT_OK) st = ct_tensor_item(loss, &item);
  if (st == CT_OK) *loss_value = item.f;
  ct_tensor_release(loss), ct_tensor_release(logits), ct_tensor_release(yb);
  ct_tensor_release(xb), ct_tensor_release(idx), ct_tensor_release(slice);
  return st;
}

/* The number of images of x classified as their label, in eval mode (running statistics), no-grad. */
static ct_status count_correct(const Cnn* m, const ct_tensor* x, const ct_tensor* y, int64_t* correct) {
  ct_tensor *logits = NULL, *pred = NULL, *hit = NULL, *count = NULL;
  ct_scalar item;
  const int64_t dim = 1;
  ct_grad_mode previous;
  ct_status st = ct_grad_mode_set(CT_GRAD_MODE_NO_GRAD, &previous);
  if (st != CT_OK) return st;
  st = forward(m, x, 0, &logits);
  if (st == CT_OK) st = ct_tensor_argmax(logits, &dim, 0, &pred);
  if (st == CT_OK) st = ct_tensor_eq(pred, y, &hit);
  if (st == CT_OK) st = ct_tensor_sum(hit, NULL, 0, 0, &count);
  if (st == CT_OK) st = ct_tensor_item(count, &item);
  if (st == CT_OK) *correct = item.i;
  ct_tensor_release(count), ct_tensor_release(hit), ct_tensor_release(pred), ct_tensor_release(logits);
  if (ct_grad_mode_set(previous, NULL) != CT_OK && st == CT_OK) st = CT_ERROR_INTERNAL;
  return st;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  const char* path = "examples/data/digits.safetensors";
  int epoch_times = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--epoch-times") == 0) {
      epoch_times = 1;
    } else {
      path = argv[i];
    }
  }
  int rc = 1;
  ct_checkpoint* ckpt = NULL;
  ct_tensor *pixels = NULL, *labels = NULL, *pixels_f = NULL, *scaled = NULL, *x = NULL, *perm = NULL;
  ct_tensor *train = NULL, *test = NULL, *x_test = NULL, *y_test = NULL, *order = NULL;
  Cnn m;
  memset(&m, 0, sizeof m);
  ct_optimizer* opt = NULL;

  /* The seed, the data as images [1797, 1, 8, 8] scaled to [0, 1], the 80/20 split. */
  CHECK(ct_manual_seed(0));
  CHECK(ct_checkpoint_open(path, &ckpt));
  CHECK(ct_checkpoint_get(ckpt, "pixels", &pixels));
  CHECK(ct_checkpoint_get(ckpt, "labels", &labels));
  CHECK(ct_tensor_to(pixels, CT_FLOAT32, &pixels_f));
  const ct_scalar sixteen = {CT_SCALAR_INT, 16, 0.0};
  CHECK(ct_tensor_div_scalar(pixels_f, &sixteen, &scaled));
  CHECK(ct_tensor_reshape(scaled, (const int64_t[]){kSamples, 1, 8, 8}, 4, &x));
  CHECK(ct_tensor_randperm(kSamples, CT_INT64, "cpu", NULL, &perm));
  CHECK(ct_tensor_narrow(perm, 0, 0, kTrain, &train));
  CHECK(ct_tensor_narrow(perm, 0, kTrain, kTest, &test));

  /* The parameters as nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8) and nn.Linear(128, 10) make them. */
  CHECK(ct_tensor_empty((const int64_t[]){8, 1, 3, 3}, 4, CT_FLOAT32, "cpu", &m.p[0]));
  CHECK(ct_tensor_empty((const int64_t[]){8}, 1, CT_FLOAT32, "cpu", &m.p[1]));
  CHECK(ct_init_linear_(m.p[0], m.p[1], NULL));
  CHECK(ct_tensor_ones((const int64_t[]){8}, 1, CT_FLOAT32, "cpu", &m.p[2]));
  CHECK(ct_tensor_zeros((const int64_t[]){8}, 1, CT_FLOAT32, "cpu", &m.p[3]));
  CHECK(ct_tensor_zeros((const int64_t[]){8}, 1, CT_FLOAT32, "cpu", &m.running_mean));
  CHECK(ct_tensor_ones((const int64_t[]){8}, 1, CT_FLOAT32, "cpu", &m.running_var));
  CHECK(ct_tensor_empty((const int64_t[]){10, 128}, 2, CT_FLOAT32, "cpu", &m.p[4]));
  CHECK(ct_tensor_empty((const int64_t[]){10}, 1, CT_FLOAT32, "cpu", &m.p[5]));
  CHECK(ct_init_linear_(m.p[4], m.p[5], NULL));
  for (size_t i = 0; i < kParams; ++i) CHECK(ct_tensor_set_requires_grad(m.p[i], 1));

  ct_optimizer_options options;
  CHECK(ct_optimizer_options_default(CT_OPTIMIZER_ADAM, &options));
  options.lr = 0.01;
  CHECK(ct_optimizer_create((const ct_tensor* const*)m.p, kParams, &options, &opt));

  for (int epoch = 1; epoch <= kEpochs; ++epoch) {
    double start = now_ms();
    CHECK(ct_tensor_randperm(kTrain, CT_INT64, "cpu", NULL, &order));
    double total = 0.0;
    for (int64_t b = 0; b < kTrain; b += kBatch) {
      int64_t n = b + kBatch < kTrain ? kBatch : kTrain - b;
      double loss = 0.0;
      CHECK(train_batch(&m, opt, x, labels, train, order, b, n, &loss));
      total += loss * (double)n;
    }
    ct_tensor_release(order);
    order = NULL;
    double mean = total / kTrain;
    uint64_t bits;
    memcpy(&bits, &mean, sizeof bits);
    printf("epoch %2d  loss %.9f  bits %016llx\n", epoch, mean, (unsigned long long)bits);
    if (epoch_times) fprintf(stderr, "time %2d  ms %.3f\n", epoch, now_ms() - start);
  }

  CHECK(ct_tensor_index_select(x, 0, test, &x_test));
  CHECK(ct_tensor_index_select(labels, 0, test, &y_test));
  int64_t correct = 0;
  CHECK(count_correct(&m, x_test, y_test, &correct));
  printf("held-out accuracy %.2f%% (%lld/%d)\n", 100.0 * (double)correct / kTest, (long long)correct, kTest);
  rc = 0;

done:
  ct_optimizer_release(opt);
  for (size_t i = 0; i < kParams; ++i) ct_tensor_release(m.p[i]);
  ct_tensor_release(m.running_mean), ct_tensor_release(m.running_var);
  ct_tensor_release(order), ct_tensor_release(y_test), ct_tensor_release(x_test), ct_tensor_release(test);
  ct_tensor_release(train), ct_tensor_release(perm), ct_tensor_release(x), ct_tensor_release(scaled);
  ct_tensor_release(pixels_f), ct_tensor_release(labels), ct_tensor_release(pixels);
  ct_checkpoint_release(ckpt);
  return rc;
}
