/* ops_index.c - the indexing family from C: index_select, index_add with repeated indices, a
 * boolean mask, and advanced indexing a[:, idx] read and written. docs/operators/index.md quotes it. */
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
  const int64_t sizes[2] = {2, 3}, three[1] = {3}, two[1] = {2};
  const int64_t picks[3] = {2, 0, 2}; /* repeats are fine */
  ct_tensor *a = NULL, *idx = NULL, *rows = NULL, *ones = NULL;
  TRY(ct_tensor_from_data(values, sizes, 2, CT_FLOAT32, &a));
  TRY(ct_tensor_from_data(picks, three, 1, CT_INT64, &idx));

  /* a.index_select(1, idx): columns 2, 0, 2 */
  ct_tensor* cols = NULL;
  TRY(ct_tensor_index_select(a, 1, idx, &cols));
  show("index_select", cols);

  /* index_add: rows 1 and 1 of a 2-row result get ones added twice, in index order */
  const int64_t twice[2] = {1, 1}, ones_sizes[2] = {2, 3};
  const float ones_data[6] = {1, 1, 1, 1, 1, 1};
  TRY(ct_tensor_from_data(twice, two, 1, CT_INT64, &rows));
  TRY(ct_tensor_from_data(ones_data, ones_sizes, 2, CT_FLOAT32, &ones));
  ct_tensor* added = NULL;
  TRY(ct_tensor_index_add(a, 0, rows, ones, NULL, &added));
  show("index_add", added);

  /* a[a > 2] */
  ct_scalar two_s = {CT_SCALAR_INT, 2, 0.0};
  ct_tensor *mask = NULL, *picked = NULL;
  TRY(ct_tensor_gt_scalar(a, &two_s, &mask));
  TRY(ct_tensor_masked_select(a, mask, &picked));
  show("a[a > 2]", picked);

  /* a[:, idx] reads; a[:, idx] = -1 writes in place (NULL is the full slice ":") */
  const ct_tensor* index[2] = {NULL, idx};
  ct_tensor *read = NULL, *minus_one = NULL;
  TRY(ct_tensor_index(a, index, 2, &read));
  show("a[:, idx]", read);
  const float m1 = -1;
  TRY(ct_tensor_from_data(&m1, NULL, 0, CT_FLOAT32, &minus_one));
  TRY(ct_tensor_index_put_(a, index, 2, minus_one, 0));
  show("after a[:, idx] = -1", a);

  /* an index out of range is an error naming the operator, the index and the size */
  const int64_t bad_pick[1] = {7}, one[1] = {1};
  ct_tensor *bad = NULL, *out = NULL;
  TRY(ct_tensor_from_data(bad_pick, one, 1, CT_INT64, &bad));
  ct_status s = ct_tensor_index_select(a, 0, bad, &out);
  printf("%s: %s\n", ct_status_name(s), ct_last_error());

  ct_tensor* all[] = {a, idx, rows, ones, cols, added, mask, picked, read, minus_one, bad};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) ct_tensor_release(all[i]);
  return 0;
}
