/* startup_ctorch.c - the smallest real ctorch program: initialize, add two tensors, print the sum.
 * bench_runtime times it from process start to exit (its first operator result). */
#include <stdio.h>

#include "ctorch.h"

int main(void) {
  const float a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
  const int64_t n[1] = {3};
  ct_tensor *x = NULL, *y = NULL, *z = NULL;
  char* text = NULL;
  if (ct_init(CT_ABI_VERSION) != CT_OK || ct_tensor_from_data(a, n, 1, CT_FLOAT32, &x) != CT_OK ||
      ct_tensor_from_data(b, n, 1, CT_FLOAT32, &y) != CT_OK || ct_tensor_add(x, y, &z) != CT_OK ||
      ct_tensor_to_string(z, &text) != CT_OK) {
    fprintf(stderr, "startup_ctorch: %s\n", ct_last_error());
    return 1;
  }
  puts(text);
  ct_string_release(text);
  ct_tensor_release(x);
  ct_tensor_release(y);
  ct_tensor_release(z);
  return 0;
}
