/*
 * tensor_tour.c - views, broadcasting, type promotion, reductions, matrix products and the meta
 * device, each printed the way PyTorch prints it.
 */
#include <ctorch.h>
#include <stdio.h>

#define CHECK(call)                                                                     \
  do {                                                                                  \
    ct_status status_ = (call);                                                         \
    if (status_ != CT_OK) {                                                             \
      fprintf(stderr, "%s: %s: %s\n", #call, ct_status_name(status_), ct_last_error()); \
      return 1;                                                                         \
    }                                                                                   \
  } while (0)

static ct_tensor* keep[32]; /* every handle made here, released at the end */
static int nkeep = 0;
static ct_tensor* hold(ct_tensor* t) { return keep[nkeep++] = t; }

static int show(const char* label, const ct_tensor* t) {
  char* text = NULL;
  if (ct_tensor_to_string(t, &text) != CT_OK) return 1;
  printf("%s:\n%s\n", label, text);
  ct_string_release(text);
  return 0;
}

static int tour(void) {
  ct_tensor *x, *xt, *col, *sum, *row_sum, *half, *prod, *m, *mm, *meta, *meta_mm;
  CHECK(ct_tensor_arange(0, 6, 1, CT_FLOAT32, NULL, &x));
  hold(x);
  const int64_t s23[] = {2, 3};
  CHECK(ct_tensor_reshape(x, s23, 2, &x));
  hold(x);
  if (show("x = arange(6).reshape(2, 3)", x)) return 1;

  CHECK(ct_tensor_transpose(x, 0, 1, &xt)); /* a view: no copy */
  hold(xt);
  int contiguous = 1;
  CHECK(ct_tensor_is_contiguous(xt, &contiguous));
  printf("x.t() is contiguous: %d\n", contiguous);

  const int64_t col_data[] = {100, 200};
  const int64_t s21[] = {2, 1};
  CHECK(ct_tensor_from_data(col_data, s21, 2, CT_INT64, &col));
  hold(col);
  CHECK(ct_tensor_add(x, col, &sum)); /* [2, 3] + [2, 1] broadcasts; float32 + int64 is float32 */
  hold(sum);
  if (show("x + [[100], [200]]", sum)) return 1;

  const int64_t dim1 = 1;
  CHECK(ct_tensor_sum(x, &dim1, 1, 0, &row_sum));
  hold(row_sum);
  if (show("x.sum(1)", row_sum)) return 1;

  CHECK(ct_tensor_to(x, CT_FLOAT16, &half));
  hold(half);
  const ct_scalar third = {CT_SCALAR_FLOAT, 0, 1.0 / 3};
  CHECK(ct_tensor_mul_scalar(half, &third, &prod)); /* float16 * Python float stays float16 */
  hold(prod);
  if (show("x.half() * (1/3)", prod)) return 1;

  CHECK(ct_tensor_matmul(x, xt, &m)); /* xt is passed to BLAS as a transpose, not copied */
  hold(m);
  if (show("x @ x.t()", m)) return 1;

  const int64_t s_big[] = {4096, 1024}, s_w[] = {1024, 10};
  CHECK(ct_tensor_empty(s_big, 2, CT_FLOAT32, "meta", &meta)); /* shapes only, no memory */
  hold(meta);
  CHECK(ct_tensor_empty(s_w, 2, CT_FLOAT32, "meta", &mm));
  hold(mm);
  CHECK(ct_tensor_matmul(meta, mm, &meta_mm));
  hold(meta_mm);
  return show("meta [4096, 1024] @ [1024, 10]", meta_mm);
}

int main(void) {
  if (ct_init(CT_ABI_VERSION) != CT_OK) {
    fprintf(stderr, "%s\n", ct_last_error());
    return 1;
  }
  int rc = tour();
  while (nkeep > 0) ct_tensor_release(keep[--nkeep]);
  return rc;
}
