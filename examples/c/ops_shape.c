/* ops_shape.c - the shape family from C: repeat, flip, triu, reflect padding, and split into a
 * caller-sized array of views. docs/operators/shape.md quotes it. */
#include <stdio.h>
#include <stdlib.h>

#include "ctorch.h"

#define TRY(call)                                                               \
  do {                                                                          \
    ct_status st_ = (call);                                                     \
    if (st_ != CT_OK) {                                                         \
      fprintf(stderr, "%s failed: %s\n", #call, ct_last_error());               \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

static void show(const char* label, const ct_tensor* t) {
  char* text = NULL;
  TRY(ct_tensor_to_string(t, &text));
  printf("%s = %s\n", label, text);
  ct_string_release(text);
}

int main(void) {
  TRY(ct_init(CT_ABI_VERSION));
  const float values[6] = {0, 1, 2, 3, 4, 5};
  const int64_t sizes[2] = {2, 3};
  ct_tensor* a = NULL;
  TRY(ct_tensor_from_data(values, sizes, 2, CT_FLOAT32, &a));

  const int64_t reps[2] = {1, 2}, dims[1] = {1}, pad[2] = {2, 1};
  ct_tensor *tiled = NULL, *flipped = NULL, *upper = NULL, *padded = NULL;
  TRY(ct_tensor_repeat(a, reps, 2, &tiled));
  TRY(ct_tensor_flip(a, dims, 1, &flipped));
  TRY(ct_tensor_triu(a, 1, &upper));
  TRY(ct_tensor_pad(a, pad, 2, "reflect", NULL, &padded));
  show("repeat(a, [1, 2])", tiled);
  show("flip(a, [1])", flipped);
  show("triu(a, 1)", upper);
  show("pad(a, [2, 1], reflect)", padded);

  /* split returns a list of views: ask for the count, then pass room for it. */
  size_t count = 0;
  TRY(ct_tensor_split(a, 2, 1, NULL, 0, &count));
  ct_tensor** pieces = calloc(count, sizeof *pieces);
  TRY(ct_tensor_split(a, 2, 1, pieces, count, &count));
  printf("split(a, 2, dim=1) gives %zu views\n", count);
  for (size_t i = 0; i < count; ++i) {
    show(i == 0 ? "  first" : "  last", pieces[i]);
    ct_tensor_release(pieces[i]);
  }
  free(pieces);

  ct_tensor_release(a);
  ct_tensor_release(tiled);
  ct_tensor_release(flipped);
  ct_tensor_release(upper);
  ct_tensor_release(padded);
  return 0;
}
