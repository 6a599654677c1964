/*
 * digits.c - a multilayer perceptron trained on the handwritten digits, through the C ABI only.
 *
 * Follows examples/digits.md call for call (the recipe every language's digits example shares), so
 * its epoch lines are bitwise those of examples/python/digits.py and the other languages'; CTest's
 * digits.same_in_every_language compares them. Usage:
 *
 *   digits [--epoch-times] [DATA]
 *
 * DATA is examples/data/digits.safetensors (the default path is relative to the repository root).
 * --epoch-times also prints each epoch's wall time to stderr ("time  1  ms 12.345"), for
 * bench/bench_training.py; stdout is the same either way.
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

enum { kSamples = 1797, kTrain = 1437, kTest = kSamples - kTrain, kBatch = 64, kEpochs = 30 };

/* The model's parameters, in the order the optimizer gets them. */
typedef struct Mlp {
  ct_tensor *w1, *b1, *w2, *b2;
} Mlp;

/* linear(relu(linear(x, W1, b1)), W2, b2) as a new reference in *out. */
static ct_status forward(const Mlp* m, const ct_tensor* x, ct_tensor** out) {
  ct_tensor *h = NULL, *r = NULL;
  ct_status st = ct_tensor_linear(x, m->w1, m->b1, &h);
  if (st == CT_OK) st = ct_tensor_relu(h, &r);
  if (st == CT_OK) st = ct_tensor_linear(r, m->w2, m->b2, out);
  ct_tensor_release(r);
  ct_tensor_release(h);
  return st;
}

/* A float32 parameter of the given sizes: empty now, filled by init_linear_ later. */
static ct_status parameter(const int64_t* sizes, size_t ndim, ct_tensor** out) {
  return ct_tensor_empty(sizes, ndim, CT_FLOAT32, "cpu", out);
}

/* One training batch: the entries [start, start + n) of order, through the training indices. */
static ct_status train_batch(const Mlp* m, ct_optimizer* opt, const ct_tensor* x, const ct_tensor* labels,
                             const ct_tensor* train, const ct_tensor* order, int64_t start, int64_t n,
                             double* loss_value) {
  ct_tensor *slice = NULL, *idx = NULL, *xb = NULL, *yb = NULL, *logits = NULL, *loss = NULL;
  ct_scalar item;
  ct_status st = ct_tensor_narrow(order, 0, start, n, &slice);
  if (st == CT_OK) st = ct_tensor_index_select(train, 0, slice, &idx);
  if (st == CT_OK) st = ct_tensor_index_select(x, 0, idx, &xb);
  if (st == CT_OK) st = ct_tensor_index_select(labels, 0, idx, &yb);
  if (st == CT_OK) st = forward(m, xb, &logits);
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

/* The number of rows of x whose largest logit is at their label, under no-grad. */
static ct_status count_correct(const Mlp* m, const ct_tensor* x, const ct_tensor* y, int64_t* correct) {
  ct_tensor *logits = NULL, *pred = NULL, *hit = NULL, *count = NULL;
  ct_scalar item;
  const int64_t dim = 1;
  ct_grad_mode previous;
  ct_status st = ct_grad_mode_set(CT_GRAD_MODE_NO_GRAD, &previous);
  if (st != CT_OK) return st;
  st = forward(m, x, &logits);
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
  ct_tensor *pixels = NULL, *labels = NULL, *pixels_f = NULL, *x = NULL, *perm = NULL, *train = NULL;
  ct_tensor *test = NULL, *x_test = NULL, *y_test = NULL, *order = NULL;
  Mlp m = {NULL, NULL, NULL, NULL};
  ct_optimizer* opt = NULL;

  /* 1-2: the seed, the data, X = to(pixels, float32) / 16. */
  CHECK(ct_manual_seed(0));
  CHECK(ct_checkpoint_open(path, &ckpt));
  CHECK(ct_checkpoint_get(ckpt, "pixels", &pixels));
  CHECK(ct_checkpoint_get(ckpt, "labels", &labels));
  CHECK(ct_tensor_to(pixels, CT_FLOAT32, &pixels_f));
  const ct_scalar sixteen = {CT_SCALAR_INT, 16, 0.0};
  CHECK(ct_tensor_div_scalar(pixels_f, &sixteen, &x));

  /* 3: the 80/20 split. */
  CHECK(ct_tensor_randperm(kSamples, CT_INT64, "cpu", NULL, &perm));
  CHECK(ct_tensor_narrow(perm, 0, 0, kTrain, &train));
  CHECK(ct_tensor_narrow(perm, 0, kTrain, kTest, &test));

  /* 4: the model, as nn.Linear(64, 64) and nn.Linear(64, 10) initialize it. */
  CHECK(parameter((const int64_t[]){64, 64}, 2, &m.w1));
  CHECK(parameter((const int64_t[]){64}, 1, &m.b1));
  CHECK(parameter((const int64_t[]){10, 64}, 2, &m.w2));
  CHECK(parameter((const int64_t[]){10}, 1, &m.b2));
  CHECK(ct_init_linear_(m.w1, m.b1, NULL));
  CHECK(ct_init_linear_(m.w2, m.b2, NULL));
  ct_tensor* params[] = {m.w1, m.b1, m.w2, m.b2};
  for (size_t i = 0; i < 4; ++i) CHECK(ct_tensor_set_requires_grad(params[i], 1));

  /* 5: Adam, lr 0.01. */
  ct_optimizer_options options;
  CHECK(ct_optimizer_options_default(CT_OPTIMIZER_ADAM, &options));
  options.lr = 0.01;
  CHECK(ct_optimizer_create((const ct_tensor* const*)params, 4, &options, &opt));

  /* 6-7: the epochs. */
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

  /* 8: held-out accuracy. */
  CHECK(ct_tensor_index_select(x, 0, test, &x_test));
  CHECK(ct_tensor_index_select(labels, 0, test, &y_test));
  int64_t correct = 0;
  CHECK(count_correct(&m, x_test, y_test, &correct));
  printf("held-out accuracy %.2f%% (%lld/%d)\n", 100.0 * (double)correct / kTest, (long long)correct, kTest);
  rc = 0;

done:
  ct_optimizer_release(opt);
  ct_tensor_release(m.w1), ct_tensor_release(m.b1), ct_tensor_release(m.w2), ct_tensor_release(m.b2);
  ct_tensor_release(order), ct_tensor_release(y_test), ct_tensor_release(x_test), ct_tensor_release(test);
  ct_tensor_release(train), ct_tensor_release(perm), ct_tensor_release(x), ct_tensor_release(pixels_f);
  ct_tensor_release(labels), ct_tensor_release(pixels);
  ct_checkpoint_release(ckpt);
  return rc;
}
