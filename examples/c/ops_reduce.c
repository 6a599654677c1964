/*
 * ops_reduce.c - statistics, sorting and selection from C: the best three scores of each row,
 * their order, and the rows' spread (docs/operators/reduce.md walks through it).
 */
#include <ctorch.h>
#include <math.h>
#include <stdio.h>

#define CHECK(call)                                                                         \
  do {                                                                                      \
    ct_status status_ = (call);                                                             \
    if (status_ != CT_OK) {                                                                 \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ct_status_name(status_), ct_last_error()); \
      goto done;                                                                            \
    }                                                                                       \
  } while (0)

/* Prints "name = <tensor>" and releases nothing. */
static ct_status show(const char* name, const ct_tensor* t) {
  char* text = NULL;
  ct_status s = ct_tensor_to_string(t, &text);
  if (s == CT_OK) printf("%s = %s\n", name, text);
  ct_string_release(text);
  return s;
}

int main(void) {
  /* two rows of scores; row 0 has a tie (5 at 1 and 3) and row 1 a NaN, which ranks highest */
  const float data[] = {1, 5, 3, 5, 0, 2, NAN, 4, -1, 8};
  const int64_t sizes[] = {2, 5}, rows = 1;
  ct_tensor *x = NULL, *top = NULL, *at = NULL, *sorted = NULL, *order = NULL, *sd = NULL, *lse = NULL;
  int rc = 1;

  CHECK(ct_init(CT_ABI_VERSION));
  CHECK(ct_tensor_from_data(data, sizes, 2, CT_FLOAT32, &x));

  /* the 3 largest of each row: ties in index order, NaN first */
  CHECK(ct_tensor_topk(x, 3, -1, 1, 1, &top, &at));
  CHECK(show("topk values", top));
  CHECK(show("topk indices", at));

  /* a stable descending sort of each row */
  CHECK(ct_tensor_sort(x, 1, 1, &sorted, &order));
  CHECK(show("sort indices", order));

  /* the population standard deviation (correction 0) and logsumexp of each row */
  CHECK(ct_tensor_std(x, &rows, 1, 0.0, 0, &sd));
  CHECK(show("std", sd));
  CHECK(ct_tensor_logsumexp(x, &rows, 1, 0, &lse));
  CHECK(show("logsumexp", lse));
  rc = 0;

done:
  ct_tensor_release(x);
  ct_tensor_release(top);
  ct_tensor_release(at);
  ct_tensor_release(sorted);
  ct_tensor_release(order);
  ct_tensor_release(sd);
  ct_tensor_release(lse);
  return rc;
}
