/* ops_linalg_conv.c - a convolution, a pool and an einsum through the C ABI. */
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
  /* One 4x4 image, one 3x3 kernel that sums a window, padding 1, stride 2. */
  float image[16], ones[9];
  for (int i = 0; i < 16; ++i) image[i] = (float)i;
  for (int i = 0; i < 9; ++i) ones[i] = 1.0f;
  const int64_t xs[4] = {1, 1, 4, 4}, ws[4] = {1, 1, 3, 3};
  ct_tensor *x = NULL, *w = NULL, *y = NULL, *pooled = NULL, *where = NULL;
  TRY(ct_tensor_from_blob(image, xs, NULL, 4, CT_FLOAT32, NULL, NULL, &x));
  TRY(ct_tensor_from_blob(ones, ws, NULL, 4, CT_FLOAT32, NULL, NULL, &w));
  ct_conv2d_options conv = CT_CONV2D_OPTIONS_DEFAULT;
  conv.stride[0] = conv.stride[1] = 2;
  conv.padding[0] = conv.padding[1] = 1;
  TRY(ct_tensor_conv2d(x, w, NULL, &conv, &y));
  if (show("conv2d, stride 2, padding 1", y)) return 1;

  ct_pool2d_options pool = CT_POOL2D_OPTIONS_DEFAULT(2, 2);
  TRY(ct_tensor_max_pool2d(x, &pool, &pooled, &where));
  if (show("max_pool2d 2x2", pooled) || show("indices", where)) return 1;

  /* A chain of three matrices: einsum contracts the cheap pair first. */
  const int64_t tall[2] = {1000, 10}, wide[2] = {10, 1000};
  ct_tensor *a = NULL, *b = NULL, *c = NULL, *r = NULL, *total = NULL;
  TRY(ct_tensor_ones(tall, 2, CT_FLOAT32, NULL, &a));
  TRY(ct_tensor_ones(wide, 2, CT_FLOAT32, NULL, &b));
  TRY(ct_tensor_ones(tall, 2, CT_FLOAT32, NULL, &c));
  const ct_tensor* ops[3] = {a, b, c};
  TRY(ct_tensor_einsum("ij,jk,kl->il", ops, 3, &r));
  TRY(ct_tensor_sum(r, NULL, 0, 0, &total));
  if (show("einsum ij,jk,kl->il of ones, summed", total)) return 1;

  ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(y), ct_tensor_release(pooled);
  ct_tensor_release(where), ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c);
  ct_tensor_release(r), ct_tensor_release(total);
  return 0;
}
