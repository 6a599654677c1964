/* ops_complex.c - complex tensors through the C ABI: C's float _Complex layout in, arithmetic,
 * the real view, magnitudes and phases, a complex matrix product, a complex number operand, and the
 * refusal of an order between complex numbers. */
#include <ctorch.h>
#include <stdio.h>

#define TRY(call)                                                   \
  do {                                                              \
    if ((call) != CT_OK) {                                          \
      fprintf(stderr, "%s failed: %s\n", #call, ct_last_error());   \
      return 1;                                                     \
    }                                                               \
  } while (0)

static int show(const char* what, const ct_tensor* t) {
  char* s = NULL;
  TRY(ct_tensor_to_string(t, &s));
  printf("%s:\n%s\n", what, s);
  ct_string_release(s);
  return 0;
}

int main(void) {
  TRY(ct_init(CT_ABI_VERSION));
  /* z = [1+2i, 3-1i]: (real, imaginary) pairs, as C's float _Complex lays them out. */
  float z_vals[4] = {1, 2, 3, -1};
  const int64_t n = 2;
  ct_tensor *z = NULL, *zz = NULL, *parts = NULL, *mag = NULL, *phase = NULL, *dot = NULL, *i = NULL, *iz = NULL;
  TRY(ct_tensor_from_data(z_vals, &n, 1, CT_COMPLEX64, &z));
  if (show("z", z)) return 1;
  TRY(ct_tensor_mul(z, z, &zz));
  if (show("z * z", zz)) return 1;
  TRY(ct_tensor_view_as_real(zz, &parts));
  if (show("view_as_real(z * z)", parts)) return 1;
  TRY(ct_tensor_abs(z, &mag));
  if (show("abs(z)", mag)) return 1;
  TRY(ct_tensor_angle(z, &phase));
  if (show("angle(z)", phase)) return 1;
  TRY(ct_tensor_matmul(z, z, &dot));
  double re = 0, im = 0;
  TRY(ct_tensor_item_complex(dot, &re, &im));
  printf("z @ z = %g%+gi\n", re, im);
  /* i as an operand promotes as a Python number: z stays complex64. */
  TRY(ct_tensor_complex_scalar(0, 1, &i));
  TRY(ct_tensor_mul(z, i, &iz));
  if (show("1i * z", iz)) return 1;

  ct_tensor* order = NULL;
  if (ct_tensor_lt(z, z, &order) != CT_OK) printf("lt of complex tensors: %s\n", ct_last_error());

  ct_tensor_release(z);
  ct_tensor_release(zz);
  ct_tensor_release(parts);
  ct_tensor_release(mag);
  ct_tensor_release(phase);
  ct_tensor_release(dot);
  ct_tensor_release(i);
  ct_tensor_release(iz);
  return 0;
}
