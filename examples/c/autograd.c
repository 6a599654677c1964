/*
 * autograd.c - fit y = 2x + 1 by gradient descent, with the gradients from ctorch's autograd.
 *
 * w and b are leaf tensors that require grad. Each step computes the mean squared error of
 * w * x + b against y, runs backward, then updates w and b in place under no-grad mode and
 * clears their gradients, as torch.optim.SGD's step and zero_grad do. docs/autograd.md explains
 * each call; the test link.autograd checks that it learns w = 2 and b = 1.
 */
#include <ctorch.h>
#include <stdio.h>

/* On failure: print which call failed, its status and this thread's message, then clean up. */
#define CHECK(call)                                                                         \
  do {                                                                                      \
    ct_status status_ = (call);                                                             \
    if (status_ != CT_OK) {                                                                 \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ct_status_name(status_), ct_last_error()); \
      goto done;                                                                            \
    }                                                                                       \
  } while (0)

enum { kSteps = 150, kPrintEvery = 25 };

/* param -= lr * param.grad, then clear param.grad. Run it in no-grad mode: an in-place change
 * of a leaf that requires grad is refused while recording. */
static ct_status sgd_update(ct_tensor* param, const ct_scalar* lr) {
  ct_tensor *grad = NULL, *step = NULL;
  ct_status st = ct_tensor_grad(param, &grad);
  if (st == CT_OK && grad == NULL) {
    ct_error_set(CT_ERROR_INVALID_ARGUMENT, "sgd_update: the parameter has no gradient. Run backward first");
    st = CT_ERROR_INVALID_ARGUMENT;
  }
  if (st == CT_OK) st = ct_tensor_mul_scalar(grad, lr, &step);
  if (st == CT_OK) st = ct_tensor_sub_(param, step);
  if (st == CT_OK) st = ct_tensor_set_grad(param, NULL);
  ct_tensor_release(step);
  ct_tensor_release(grad);
  return st;
}

/* The value of a one-element floating tensor. */
static ct_status value_of(const ct_tensor* t, double* out) {
  ct_scalar s;
  ct_status st = ct_tensor_item(t, &s);
  if (st == CT_OK) *out = s.f;
  return st;
}

int main(void) {
  const float x_data[] = {-1, -0.5f, 0, 0.5f, 1};
  const float y_data[] = {-1, 0, 1, 2, 3}; /* 2x + 1 */
  const float zero = 0;
  const int64_t n = 5, one = 1;
  const ct_scalar two = {CT_SCALAR_INT, 2, 0.0}, lr = {CT_SCALAR_FLOAT, 0, 0.1};
  ct_tensor *x = NULL, *y = NULL, *w = NULL, *b = NULL;
  ct_tensor *xw = NULL, *pred = NULL, *err = NULL, *sq = NULL, *loss = NULL; /* one step's */
  char* node = NULL;
  ct_grad_mode previous = CT_GRAD_MODE_ENABLED;
  int in_no_grad = 0;
  double loss_value = 0, w_value = 0, b_value = 0;
  int rc = 1;

  CHECK(ct_init(CT_ABI_VERSION));
  CHECK(ct_tensor_from_data(x_data, &n, 1, CT_FLOAT32, &x));
  CHECK(ct_tensor_from_data(y_data, &n, 1, CT_FLOAT32, &y));
  CHECK(ct_tensor_from_data(&zero, &one, 1, CT_FLOAT32, &w));
  CHECK(ct_tensor_from_data(&zero, &one, 1, CT_FLOAT32, &b));
  CHECK(ct_tensor_set_requires_grad(w, 1)); /* operators on w now record how to differentiate */
  CHECK(ct_tensor_set_requires_grad(b, 1));

  for (int step = 0; step <= kSteps; ++step) {
    /* loss = mean((x * w + b - y)^2): w and b of sizes [1] broadcast over the 5 points. */
    CHECK(ct_tensor_mul(x, w, &xw));
    CHECK(ct_tensor_add(xw, b, &pred));
    CHECK(ct_tensor_sub(pred, y, &err));
    CHECK(ct_tensor_pow_scalar(err, &two, &sq));
    CHECK(ct_tensor_mean(sq, NULL, 0, 0, &loss));
    if (step == 0) {
      CHECK(ct_tensor_grad_fn_name(loss, &node));
      printf("loss is made by %s\n", node);
    }
    if (step % kPrintEvery == 0) {
      CHECK(value_of(loss, &loss_value));
      printf("step %3d  loss %.4g\n", step, loss_value);
    }
    /* Adds d(loss)/dw into w's grad and d(loss)/db into b's (b's is summed over the broadcast),
     * then frees what the graph saved. */
    CHECK(ct_tensor_backward(loss, NULL, 0));
    ct_tensor_release(xw);
    ct_tensor_release(pred);
    ct_tensor_release(err);
    ct_tensor_release(sq);
    ct_tensor_release(loss);
    xw = pred = err = sq = loss = NULL;

    CHECK(ct_grad_mode_set(CT_GRAD_MODE_NO_GRAD, &previous));
    in_no_grad = 1;
    CHECK(sgd_update(w, &lr));
    CHECK(sgd_update(b, &lr));
    in_no_grad = 0;
    CHECK(ct_grad_mode_set(previous, NULL));
  }

  CHECK(value_of(w, &w_value));
  CHECK(value_of(b, &b_value));
  printf("learned w = %.4f, b = %.4f (data: y = 2x + 1)\n", w_value, b_value);
  rc = (w_value - 2) * (w_value - 2) < 1e-6 && (b_value - 1) * (b_value - 1) < 1e-6 ? 0 : 1;

done:
  if (in_no_grad && ct_grad_mode_set(previous, NULL) != CT_OK) rc = 1;
  ct_string_release(node);
  ct_tensor_release(loss);
  ct_tensor_release(sq);
  ct_tensor_release(err);
  ct_tensor_release(pred);
  ct_tensor_release(xw);
  ct_tensor_release(b);
  ct_tensor_release(w);
  ct_tensor_release(y);
  ct_tensor_release(x);
  return rc;
}
