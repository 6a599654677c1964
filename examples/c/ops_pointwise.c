/* ops_pointwise.c - the pointwise family from C: activations, rounding, Python's % and //,
 * nan_to_num, lerp, three generated functions and an error. docs/operators/pointwise.md quotes it. */
#include <math.h>
#include <stdio.h>

#include "ctorch.h"

#define TRY(call)                                                        \
  do {                                                                   \
    if ((call) != CT_OK) {                                               \
      fprintf(stderr, "%s failed: %s\n", #call, ct_last_error());       \
      return 1;                                                          \
    }                                                                    \
  } while (0)

static int print(const char* label, ct_tensor* t) {
  char* text = NULL;
  if (ct_tensor_to_string(t, &text) != CT_OK) return 1;
  printf("%-12s %s\n", label, text);
  ct_string_release(text);
  ct_tensor_release(t);
  return 0;
}

int main(void) {
  TRY(ct_init(CT_ABI_VERSION));
  const int64_t n[1] = {4};
  const float xs[4] = {-2.0f, -0.5f, 0.5f, 2.5f};
  const int32_t ia[4] = {7, -7, 7, -7}, ib[4] = {2, 2, -2, -2};
  const float specials[4] = {NAN, INFINITY, -INFINITY, 1.0f};
  ct_tensor *x = NULL, *a = NULL, *b = NULL, *s = NULL, *out = NULL;
  TRY(ct_tensor_from_data(xs, n, 1, CT_FLOAT32, &x));
  TRY(ct_tensor_from_data(ia, n, 1, CT_INT32, &a));
  TRY(ct_tensor_from_data(ib, n, 1, CT_INT32, &b));
  TRY(ct_tensor_from_data(specials, n, 1, CT_FLOAT32, &s));

  /* Activations with torch.nn.functional's parameters. */
  TRY(ct_tensor_gelu(x, "tanh", &out));
  if (print("gelu(tanh):", out)) return 1;
  TRY(ct_tensor_leaky_relu(x, 0.1, &out));
  if (print("leaky_relu:", out)) return 1;

  /* Rounding halves to even; remainder and floor_divide are Python's % and //. */
  TRY(ct_tensor_round(x, &out));
  if (print("round:", out)) return 1;
  TRY(ct_tensor_remainder(a, b, &out));
  if (print("a % b:", out)) return 1;
  TRY(ct_tensor_floor_divide(a, b, &out));
  if (print("a // b:", out)) return 1;

  /* nan_to_num with its defaults (NULL): 0 and the largest finite float32. */
  TRY(ct_tensor_nan_to_num(s, NULL, NULL, NULL, &out));
  if (print("nan_to_num:", out)) return 1;

  /* lerp from x to 1 by 0.25. */
  ct_tensor* ones = NULL;
  const ct_scalar quarter = {CT_SCALAR_FLOAT, 0, 0.25};
  TRY(ct_tensor_ones(n, 1, CT_FLOAT32, NULL, &ones));
  TRY(ct_tensor_lerp(x, ones, &quarter, &out));
  if (print("lerp:", out)) return 1;

  /* Overloads without a hand-written function have generated ones (ctorch_ops.h), taking the
   * schema's arguments in order: logaddexp(self, other), frexp's two results by name, and logit's
   * optional eps as a pointer (NULL is None). */
  ct_tensor *mantissa = NULL, *exponent = NULL, *p = NULL;
  TRY(ct_tensor_logaddexp(x, ones, &out));
  if (print("logaddexp:", out)) return 1;
  TRY(ct_tensor_frexp(x, &mantissa, &exponent));
  if (print("mantissa:", mantissa) || print("exponent:", exponent)) return 1;
  const double eps = 0.25;
  TRY(ct_tensor_sigmoid(x, &p));
  TRY(ct_tensor_logit(p, &eps, &out));
  if (print("logit:", out)) return 1;
  ct_tensor_release(p);

  /* Integer division by zero is an error, as in PyTorch. */
  const ct_scalar zero = {CT_SCALAR_INT, 0, 0.0};
  if (ct_tensor_remainder_scalar(a, &zero, &out) != CT_OK) printf("a %% 0: %s\n", ct_last_error());

  ct_tensor_release(x), ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(s);
  ct_tensor_release(ones);
  return 0;
}
