/* ops_lapack.c - linear algebra on LAPACK through the C ABI: a linear system, a least-squares line,
 * the eigenvalues of a symmetric matrix and of a rotation (complex), and what a singular matrix
 * answers. */
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
  /* A x = b with A = [[4, 1, 0], [1, 3, 1], [0, 1, 2]] and x = [1, 2, 3]. */
  double a_vals[9] = {4, 1, 0, 1, 3, 1, 0, 1, 2}, b_vals[3] = {6, 10, 8};
  const int64_t a_sizes[2] = {3, 3}, b_sizes[1] = {3};
  ct_tensor *a = NULL, *b = NULL, *x = NULL, *det = NULL, *w = NULL, *v = NULL;
  TRY(ct_tensor_from_blob(a_vals, a_sizes, NULL, 2, CT_FLOAT64, NULL, NULL, &a));
  TRY(ct_tensor_from_blob(b_vals, b_sizes, NULL, 1, CT_FLOAT64, NULL, NULL, &b));
  TRY(ct_tensor_linalg_solve(a, b, 1, &x));
  if (show("linalg_solve(A, b)", x)) return 1;
  TRY(ct_tensor_linalg_det(a, &det));
  if (show("linalg_det(A)", det)) return 1;
  TRY(ct_tensor_linalg_eigh(a, "L", &w, &v));
  if (show("linalg_eigh(A) eigenvalues", w)) return 1;

  /* A rotation by 90 degrees has no real eigenvalues: linalg_eigvals answers i and -i (complex128). */
  double r_vals[4] = {0, -1, 1, 0};
  const int64_t r_sizes[2] = {2, 2};
  ct_tensor *r = NULL, *ev = NULL;
  TRY(ct_tensor_from_blob(r_vals, r_sizes, NULL, 2, CT_FLOAT64, NULL, NULL, &r));
  TRY(ct_tensor_linalg_eigvals(r, &ev));
  if (show("linalg_eigvals of a rotation", ev)) return 1;

  /* The least-squares line through (0, 1), (1, 3), (2, 4), (3, 7): intercept and slope. */
  double t_vals[8] = {1, 0, 1, 1, 1, 2, 1, 3}, y_vals[4] = {1, 3, 4, 7};
  const int64_t t_sizes[2] = {4, 2}, y_sizes[2] = {4, 1};
  ct_tensor *t = NULL, *y = NULL, *fit = NULL, *residuals = NULL, *rank = NULL, *sv = NULL;
  TRY(ct_tensor_from_blob(t_vals, t_sizes, NULL, 2, CT_FLOAT64, NULL, NULL, &t));
  TRY(ct_tensor_from_blob(y_vals, y_sizes, NULL, 2, CT_FLOAT64, NULL, NULL, &y));
  TRY(ct_tensor_linalg_lstsq(t, y, NULL, "gelsd", &fit, &residuals, &rank, &sv));
  if (show("linalg_lstsq: intercept, slope", fit) || show("squared residual", residuals)) return 1;

  /* A singular matrix is CT_ERROR_LINALG, its message naming the function (and batch element). */
  double s_vals[4] = {1, 2, 2, 4};
  const int64_t s_sizes[2] = {2, 2};
  ct_tensor *s = NULL, *inv = NULL;
  TRY(ct_tensor_from_blob(s_vals, s_sizes, NULL, 2, CT_FLOAT64, NULL, NULL, &s));
  const ct_status st = ct_tensor_linalg_inv(s, &inv);
  printf("linalg_inv of a singular matrix: %s: %s\n", ct_status_name(st), ct_last_error());

  ct_tensor_release(a);
  ct_tensor_release(b);
  ct_tensor_release(x);
  ct_tensor_release(det);
  ct_tensor_release(w);
  ct_tensor_release(v);
  ct_tensor_release(r);
  ct_tensor_release(ev);
  ct_tensor_release(t);
  ct_tensor_release(y);
  ct_tensor_release(fit);
  ct_tensor_release(residuals);
  ct_tensor_release(rank);
  ct_tensor_release(sv);
  ct_tensor_release(s);
  return 0;
}
