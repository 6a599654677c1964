/*
 * quickstart.c - add two tensors with ctorch's C API and print the result.
 *
 * Build against an installed ctorch:
 *   cc quickstart.c $(pkg-config --cflags --libs ctorch) -o quickstart
 * or in CMake: find_package(ctorch CONFIG REQUIRED) and link ctorch::ctorch.
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

int main(void) {
  const float a_data[] = {1, 2, 3, 4, 5, 6};
  const float b_data[] = {10, 20, 30, 40, 50, 60};
  const int64_t sizes[] = {2, 3};
  ct_tensor *a = NULL, *b = NULL, *c = NULL; /* every handle we own, released at done */
  char* text = NULL;
  int64_t shape[8];
  size_t ndim = 0;
  ct_dtype dtype;
  int rc = 1;

  CHECK(ct_init(CT_ABI_VERSION)); /* fails if the loaded library is older than this header */
  CHECK(ct_tensor_from_data(a_data, sizes, 2, CT_FLOAT32, &a)); /* copies a_data */
  CHECK(ct_tensor_from_data(b_data, sizes, 2, CT_FLOAT32, &b));
  CHECK(ct_tensor_add(a, b, &c)); /* a, b borrowed; c is a new reference */

  CHECK(ct_tensor_to_string(c, &text));
  CHECK(ct_tensor_dtype(c, &dtype));
  CHECK(ct_tensor_ndim(c, &ndim));
  if (ndim > sizeof shape / sizeof shape[0]) {
    fprintf(stderr, "unexpected ndim %zu\n", ndim);
    goto done;
  }
  CHECK(ct_tensor_sizes(c, shape, ndim));

  printf("ctorch %s: a + b =\n%s\nshape [", ct_version(), text);
  for (size_t i = 0; i < ndim; ++i) printf("%s%lld", i ? ", " : "", (long long)shape[i]);
  printf("], dtype %s\n", ct_dtype_name(dtype));
  rc = 0;

done:
  ct_string_release(text); /* every release accepts NULL */
  ct_tensor_release(c);
  ct_tensor_release(b);
  ct_tensor_release(a);
  return rc;
}
