/* test_cuda.c - the CUDA backend through the C ABI. Without a GPU (or without libctorch_cuda.so)
 * the device-free contract is checked and the GPU tests print why they skip; with one, operators on
 * "cuda" are compared with the cpu, gradients, determinism and the RNG included. */
#include "capi_test.h"

static int have_gpu(void) {
  if (ct_cuda_device_count() > 0) return 1;
  printf("  %s: skipped: no CUDA device in this process\n", capi_current);
  return 0;
}

static ct_tensor* on(const ct_tensor* t, const char* device) {
  ct_tensor* out = NULL;
  if (ct_tensor_to_device(t, device, &out) != CT_OK) printf("to %s: %s\n", device, ct_last_error());
  return out;
}

/* max |a - b| over two float32 tensors of n elements (a on any device, b on the cpu). */
static double max_diff(const ct_tensor* a, const ct_tensor* b, size_t n) {
  float* x = calloc(n, sizeof(float));
  float* y = calloc(n, sizeof(float));
  double worst = INFINITY;
  if (x && y && ct_tensor_copy_to(a, x, n * sizeof(float)) == CT_OK && ct_tensor_copy_to(b, y, n * sizeof(float)) == CT_OK) {
    worst = 0;
    for (size_t i = 0; i < n; ++i) worst = fmax(worst, fabs((double)x[i] - y[i]));
  }
  free(x);
  free(y);
  return worst;
}

static void test_without_a_device_cuda_is_absent_and_says_why(void) {
  if (ct_cuda_device_count() > 0) return;
  CHECK(ct_has_feature("cuda") == 0);
  ct_tensor* x = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_to_device(x, "cuda", &out), CT_ERROR_DEVICE);
  CHECK_ERROR_CONTAINS("no cuda device is available: ");
  CHECK(out == NULL);
  const int64_t sizes[1] = {4};
  CHECK_STATUS(ct_tensor_empty(sizes, 1, CT_FLOAT32, "cuda:0", &out), CT_ERROR_DEVICE);
  CHECK_STATUS(ct_cuda_synchronize(0), CT_ERROR_DEVICE);
  CHECK_OK(ct_cuda_empty_cache());
  int pinned = -1;
  CHECK_OK(ct_tensor_is_pinned(x, &pinned));
  CHECK(pinned == 0);
  CHECK_STATUS(ct_tensor_pin_memory(x, &out), CT_ERROR_DEVICE);
  CHECK_ERROR_CONTAINS("no cuda device is available");
  int64_t v = -1;
  CHECK_OK(ct_metric_get("memory.cuda.bytes_reserved", &v));
  CHECK(v == 0);
  ct_tensor_release(x);
}

static void test_cuda_names_parse_and_print(void) {
  CHECK_STR_EQ(ct_device_type_name(CT_DEVICE_CUDA), "cuda");
  ct_tensor* x = T(CT_FLOAT32, S(1), 1);
  ct_tensor* out = NULL;
  CHECK_STATUS(ct_tensor_to_device(x, "cuda:x", &out), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor_release(x);
}

/* With or without a GPU: bad arguments are statuses with messages. */
static void test_bad_arguments_are_statuses(void) {
  ct_tensor* x = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* out = SENTINEL;
  int pinned = -1;
  CHECK_STATUS(ct_tensor_is_pinned(NULL, &pinned), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_is_pinned(x, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_pin_memory(NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_pin_memory(x, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_cuda_synchronize(-1), CT_ERROR_DEVICE);
  CHECK_ERROR_CONTAINS("ct_cuda_synchronize");
  ct_tensor* meta = NULL;
  CHECK_OK(ct_tensor_to_device(x, "meta", &meta));
  CHECK_STATUS(ct_tensor_pin_memory(meta, &out), CT_ERROR_DEVICE);
  CHECK_ERROR_CONTAINS("pin_memory: the tensor [2] is on meta");
  RELEASE(x, meta);
}

static void test_round_trip_views_and_arithmetic_match_cpu(void) {
  if (!have_gpu()) return;
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, -2, 3, -4, 5, -6);
  ct_tensor* b = T(CT_FLOAT32, S(3), 0.5, 2, -1);
  ct_tensor *da = on(a, "cuda"), *db = on(b, "cuda:0");
  ct_device_type type;
  int32_t index;
  CHECK_OK(ct_tensor_device(da, &type, &index));
  CHECK(type == CT_DEVICE_CUDA && index == 0);
  ct_tensor *sum = NULL, *prod = NULL, *ex = NULL, *t = NULL, *csum = NULL, *cprod = NULL, *cex = NULL;
  CHECK_OK(ct_tensor_add(da, db, &sum));
  CHECK_OK(ct_tensor_mul(da, db, &prod));
  CHECK_OK(ct_tensor_exp(da, &ex));
  CHECK_OK(ct_tensor_add(a, b, &csum));
  CHECK_OK(ct_tensor_mul(a, b, &cprod));
  CHECK_OK(ct_tensor_exp(a, &cex));
  CHECK(max_diff(sum, csum, 6) == 0);
  CHECK(max_diff(prod, cprod, 6) == 0);
  CHECK(max_diff(ex, cex, 6) <= 1e-5 * 403.5);
  CHECK_OK(ct_tensor_transpose(da, 0, 1, &t));
  ct_tensor* back = on(t, "cpu");
  CHECK_TENSOR(back, CT_FLOAT32, S(3, 2), 1, -4, -2, 5, 3, -6);
  RELEASE(a, b, da, db, sum, prod, ex, t, csum, cprod, cex, back);
}

static void test_reductions_softmax_matmul_match_cpu(void) {
  if (!have_gpu()) return;
  ct_tensor* x = NULL;
  const int64_t sizes[2] = {64, 96};
  CHECK_OK(ct_manual_seed(7));
  CHECK_OK(ct_tensor_randn(sizes, 2, CT_FLOAT32, "cpu", NULL, &x));
  ct_tensor* dx = on(x, "cuda");
  const int64_t dim1[1] = {1};
  ct_tensor *s = NULL, *ds = NULL, *sm = NULL, *dsm = NULL, *xt = NULL, *dxt = NULL, *mm = NULL, *dmm = NULL;
  CHECK_OK(ct_tensor_sum(x, dim1, 1, 0, &s));
  CHECK_OK(ct_tensor_sum(dx, dim1, 1, 0, &ds));
  CHECK(max_diff(ds, s, 64) <= 1e-4);
  CHECK_OK(ct_tensor_softmax(x, 1, NULL, &sm));
  CHECK_OK(ct_tensor_softmax(dx, 1, NULL, &dsm));
  CHECK(max_diff(dsm, sm, 64 * 96) <= 1e-6);
  CHECK_OK(ct_tensor_transpose(x, 0, 1, &xt));
  CHECK_OK(ct_tensor_transpose(dx, 0, 1, &dxt));
  CHECK_OK(ct_tensor_matmul(x, xt, &mm));
  CHECK_OK(ct_tensor_matmul(dx, dxt, &dmm));
  CHECK(max_diff(dmm, mm, 64 * 64) <= 1e-3);
  RELEASE(x, dx, s, ds, sm, dsm, xt, dxt, mm, dmm);
}

static void test_one_seed_gives_the_cpu_numbers(void) {
  if (!have_gpu()) return;
  const int64_t sizes[1] = {1001};
  ct_tensor *c = NULL, *g = NULL, *cn = NULL, *gn = NULL;
  CHECK_OK(ct_manual_seed(123));
  CHECK_OK(ct_tensor_rand(sizes, 1, CT_FLOAT32, "cpu", NULL, &c));
  CHECK_OK(ct_tensor_randn(sizes, 1, CT_FLOAT32, "cpu", NULL, &cn));
  CHECK_OK(ct_manual_seed(123));
  CHECK_OK(ct_tensor_rand(sizes, 1, CT_FLOAT32, "cuda", NULL, &g));
  CHECK_OK(ct_tensor_randn(sizes, 1, CT_FLOAT32, "cuda", NULL, &gn));
  CHECK(max_diff(g, c, 1001) == 0); /* bitwise: the same Philox stream and formulas */
  CHECK(max_diff(gn, cn, 1001) == 0);
  RELEASE(c, g, cn, gn);
}

/* Few outputs over a long dim split the reduced dim over blocks (Note [Split reductions]): the
 * partial results must still give the cpu's, whichever block holds the winner or the tail. The
 * tolerances allow float32 sums in other orders and catch a chunk of 8192 elements lost or
 * counted twice (about 90 for a sum of standard normals). */
static double read1(const ct_tensor* t, size_t i) {
  double v[3] = {0, 0, 0};
  ct_tensor* d = NULL;
  if (ct_tensor_to(t, CT_FLOAT64, &d) == CT_OK) {
    ct_tensor* h = on(d, "cpu");
    if (!h || ct_tensor_copy_to(h, v, sizeof(v[0]) * (i + 1)) != CT_OK) v[i] = NAN;
    ct_tensor_release(h);
  }
  ct_tensor_release(d);
  return v[i];
}

static void test_long_reductions_split_over_blocks_match_cpu(void) {
  if (!have_gpu()) return;
  const int64_t n = (1 << 20) + 7, sizes[1] = {n}, rows3[2] = {n, 3}, dim0[1] = {0};
  ct_tensor *x = NULL, *y = NULL, *dx = NULL, *dy = NULL;
  CHECK_OK(ct_manual_seed(11));
  CHECK_OK(ct_tensor_randn(sizes, 1, CT_FLOAT32, "cpu", NULL, &x));
  CHECK_OK(ct_tensor_randn(rows3, 2, CT_FLOAT32, "cpu", NULL, &y));
  dx = on(x, "cuda");
  dy = on(y, "cuda");
  ct_tensor *s = NULL, *ds = NULL, *m = NULL, *dm = NULL, *v = NULL, *dv = NULL, *i = NULL, *di = NULL, *c = NULL,
            *dc = NULL;
  CHECK_OK(ct_tensor_sum(x, NULL, 0, 0, &s));
  CHECK_OK(ct_tensor_sum(dx, NULL, 0, 0, &ds));
  CHECK(fabs(read1(ds, 0) - read1(s, 0)) <= 0.5);
  CHECK_OK(ct_tensor_mean(x, NULL, 0, 0, &m));
  CHECK_OK(ct_tensor_mean(dx, NULL, 0, 0, &dm));
  CHECK(fabs(read1(dm, 0) - read1(m, 0)) <= 1e-6);
  CHECK_OK(ct_tensor_var(x, NULL, 0, 1.0, 0, &v));
  CHECK_OK(ct_tensor_var(dx, NULL, 0, 1.0, 0, &dv));
  CHECK(fabs(read1(dv, 0) - read1(v, 0)) <= 1e-4);
  CHECK_OK(ct_tensor_argmax(x, NULL, 0, &i));
  CHECK_OK(ct_tensor_argmax(dx, NULL, 0, &di));
  CHECK(read1(di, 0) == read1(i, 0));
  CHECK_OK(ct_tensor_sum(y, dim0, 1, 0, &c)); /* [n, 3] over dim 0: three columns, each split */
  CHECK_OK(ct_tensor_sum(dy, dim0, 1, 0, &dc));
  for (size_t k = 0; k < 3; ++k) CHECK(fabs(read1(dc, k) - read1(c, k)) <= 0.5);
  RELEASE(x, y, dx, dy, s, ds, m, dm, v, dv, i, di, c, dc);
}

static void test_deterministic_reductions_repeat_bitwise(void) {
  if (!have_gpu()) return;
  const int64_t sizes[1] = {1 << 22};
  ct_tensor *x = NULL, *a = NULL, *b = NULL;
  CHECK_OK(ct_use_deterministic_algorithms(1, 0));
  CHECK_OK(ct_tensor_randn(sizes, 1, CT_FLOAT32, "cuda", NULL, &x));
  CHECK_OK(ct_tensor_sum(x, NULL, 0, 0, &a));
  CHECK_OK(ct_tensor_sum(x, NULL, 0, 0, &b));
  CHECK(max_diff(a, b, 1) == 0);
  CHECK_OK(ct_use_deterministic_algorithms(0, 0));
  RELEASE(x, a, b);
}

static void test_gradients_on_cuda(void) {
  if (!have_gpu()) return;
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  CHECK_OK(ct_tensor_set_requires_grad(x, 1));
  ct_tensor* d = on(x, "cuda");
  ct_tensor *sq = NULL, *loss = NULL, *g = NULL;
  CHECK_OK(ct_tensor_mul(d, d, &sq));
  CHECK_OK(ct_tensor_sum(sq, NULL, 0, 0, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_OK(ct_tensor_grad(x, &g));
  CHECK_TENSOR(g, CT_FLOAT32, S(3), 2, 4, 6);
  RELEASE(x, d, sq, loss, g);
}

/* cuSOLVER and cuBLAS trsm against LAPACK: the values torch.linalg's functions give on both devices
 * (eigenvalues and singular values, which no sign choice changes), and a singular matrix refused
 * on cuda as on the cpu. */
static void test_linalg_on_cuda_matches_cpu(void) {
  if (!have_gpu()) return;
  enum { n = 16 };
  const int64_t sizes[3] = {2, n, n}, rhs_sizes[3] = {2, n, 3};
  ct_tensor *x = NULL, *b = NULL, *eye = NULL, *a = NULL, *xt = NULL, *spd = NULL;
  CHECK_OK(ct_manual_seed(11));
  CHECK_OK(ct_tensor_randn(sizes, 3, CT_FLOAT32, "cpu", NULL, &x));
  CHECK_OK(ct_tensor_randn(rhs_sizes, 3, CT_FLOAT32, "cpu", NULL, &b));
  CHECK_OK(ct_tensor_eye(n, n, CT_FLOAT32, "cpu", &eye));
  const ct_scalar shift = SI(n);
  ct_tensor* shifted_eye = NULL;
  CHECK_OK(ct_tensor_mul_scalar(eye, &shift, &shifted_eye));
  CHECK_OK(ct_tensor_add(x, shifted_eye, &a)); /* well conditioned */
  CHECK_OK(ct_tensor_transpose(a, 1, 2, &xt));
  CHECK_OK(ct_tensor_matmul(a, xt, &spd)); /* symmetric positive-definite */
  ct_tensor *da = on(a, "cuda"), *db = on(b, "cuda"), *dspd = on(spd, "cuda");
  ct_tensor *s = NULL, *ds = NULL, *inv = NULL, *dinv = NULL, *det = NULL, *ddet = NULL, *l = NULL, *dl = NULL;
  ct_tensor *w = NULL, *dw = NULL, *sv = NULL, *dsv = NULL, *q = NULL, *r = NULL, *dq = NULL, *dr = NULL;
  CHECK_OK(ct_tensor_linalg_solve(a, b, 1, &s));
  CHECK_OK(ct_tensor_linalg_solve(da, db, 1, &ds));
  CHECK(max_diff(ds, s, 2 * n * 3) <= 1e-5);
  CHECK_OK(ct_tensor_linalg_inv(a, &inv));
  CHECK_OK(ct_tensor_linalg_inv(da, &dinv));
  CHECK(max_diff(dinv, inv, 2 * n * n) <= 1e-5);
  CHECK_OK(ct_tensor_linalg_det(a, &det));
  CHECK_OK(ct_tensor_linalg_det(da, &ddet));
  float host_det[2] = {0, 0};
  CHECK_OK(ct_tensor_copy_to(det, host_det, sizeof host_det));
  CHECK(max_diff(ddet, det, 2) <= 1e-4 * fmax(fabs(host_det[0]), fabs(host_det[1])));
  CHECK_OK(ct_tensor_linalg_cholesky(spd, 0, &l));
  CHECK_OK(ct_tensor_linalg_cholesky(dspd, 0, &dl));
  CHECK(max_diff(dl, l, 2 * n * n) <= 1e-3);
  CHECK_OK(ct_tensor_linalg_eigvalsh(spd, "L", &w));
  CHECK_OK(ct_tensor_linalg_eigvalsh(dspd, "L", &dw));
  CHECK(max_diff(dw, w, 2 * n) <= 1e-2);
  CHECK_OK(ct_tensor_linalg_svdvals(a, NULL, &sv));
  CHECK_OK(ct_tensor_linalg_svdvals(da, NULL, &dsv));
  CHECK(max_diff(dsv, sv, 2 * n) <= 1e-4);
  CHECK_OK(ct_tensor_linalg_qr(a, "reduced", &q, &r));
  CHECK_OK(ct_tensor_linalg_qr(da, "reduced", &dq, &dr));
  CHECK(max_diff(dr, r, 2 * n * n) <= 1e-4); /* Householder's signs on both */
  /* LDL^T of the symmetric A + A^T, and the solve with it */
  ct_tensor *sym = NULL, *dsym = NULL, *ld = NULL, *piv = NULL, *dld = NULL, *dpiv = NULL, *lx = NULL, *dlx = NULL;
  CHECK_OK(ct_tensor_add(a, xt, &sym));
  dsym = on(sym, "cuda");
  CHECK_OK(ct_tensor_linalg_ldl_factor(sym, 0, &ld, &piv));
  CHECK_OK(ct_tensor_linalg_ldl_factor(dsym, 0, &dld, &dpiv));
  CHECK_OK(ct_tensor_linalg_ldl_solve(ld, piv, b, 0, &lx));
  CHECK_OK(ct_tensor_linalg_ldl_solve(dld, dpiv, db, 0, &dlx));
  CHECK(max_diff(dlx, lx, 2 * n * 3) <= 1e-4);
  RELEASE(sym, dsym, ld, piv, dld, dpiv, lx, dlx);
  /* eig on cuSOLVER: A V = V diag(W) for the cuda results, checked on the cpu in complex64 */
  ct_tensor *dw2 = NULL, *dv2 = NULL, *w2 = NULL, *v2 = NULL, *ac = NULL, *av = NULL, *wrow = NULL, *vw = NULL;
  ct_tensor *res = NULL, *mag = NULL, *none = NULL;
  CHECK_OK(ct_tensor_linalg_eig(da, &dw2, &dv2));
  w2 = on(dw2, "cpu");
  v2 = on(dv2, "cpu");
  CHECK_OK(ct_tensor_to(a, CT_COMPLEX64, &ac));
  CHECK_OK(ct_tensor_matmul(ac, v2, &av));
  CHECK_OK(ct_tensor_unsqueeze(w2, -2, &wrow));
  CHECK_OK(ct_tensor_mul(v2, wrow, &vw));
  CHECK_OK(ct_tensor_sub(av, vw, &res));
  CHECK_OK(ct_tensor_abs(res, &mag));
  CHECK_OK(ct_tensor_zeros(sizes, 3, CT_FLOAT32, "cpu", &none));
  CHECK(max_diff(mag, none, 2 * n * n) <= 1e-3 * n);
  RELEASE(dw2, dv2, w2, v2, ac, av, wrow, vw, res, mag, none);
  ct_tensor *zeros = NULL, *dzeros = NULL, *bad = NULL;
  CHECK_OK(ct_tensor_zeros(sizes, 3, CT_FLOAT32, "cpu", &zeros));
  dzeros = on(zeros, "cuda");
  CHECK_STATUS(ct_tensor_linalg_inv(dzeros, &bad), CT_ERROR_LINALG);
  CHECK(strstr(ct_last_error(), "linalg.inv: (Batch element 0)") != NULL);
  RELEASE(x, b, eye, shifted_eye, a, xt, spd, da, db, dspd, s, ds, inv, dinv, det, ddet, l, dl, w, dw, sv, dsv, q, r,
          dq, dr, zeros, dzeros);
}

/* torch.fft on cuFFT against the cpu's transforms: rfft, fft with padding, irfft back, and fftn
 * over both dims with the orthonormal scale, of 3 float32 signals of 40 points. */
static void test_fft_on_cuda_matches_cpu(void) {
  if (!have_gpu()) return;
  const int64_t sizes[2] = {3, 40}, padded = 48, dims[2] = {0, 1};
  ct_tensor *x = NULL, *dx = NULL;
  CHECK_OK(ct_manual_seed(5));
  CHECK_OK(ct_tensor_randn(sizes, 2, CT_FLOAT32, "cpu", NULL, &x));
  dx = on(x, "cuda");
  ct_tensor *r = NULL, *dr = NULL, *rp = NULL, *drp = NULL, *f = NULL, *df = NULL, *fp = NULL, *dfp = NULL;
  ct_tensor *back = NULL, *dback = NULL, *n2 = NULL, *dn2 = NULL, *n2p = NULL, *dn2p = NULL;
  CHECK_OK(ct_tensor_fft_rfft(x, NULL, -1, NULL, &r));
  CHECK_OK(ct_tensor_fft_rfft(dx, NULL, -1, NULL, &dr));
  CHECK_OK(ct_tensor_view_as_real(r, &rp));
  CHECK_OK(ct_tensor_view_as_real(dr, &drp));
  CHECK(max_diff(drp, rp, 3 * 21 * 2) <= 1e-4);
  CHECK_OK(ct_tensor_fft_fft(x, &padded, -1, NULL, &f));
  CHECK_OK(ct_tensor_fft_fft(dx, &padded, -1, NULL, &df));
  CHECK_OK(ct_tensor_view_as_real(f, &fp));
  CHECK_OK(ct_tensor_view_as_real(df, &dfp));
  CHECK(max_diff(dfp, fp, 3 * 48 * 2) <= 1e-4);
  CHECK_OK(ct_tensor_fft_irfft(r, &sizes[1], -1, NULL, &back));
  CHECK_OK(ct_tensor_fft_irfft(dr, &sizes[1], -1, NULL, &dback));
  CHECK(max_diff(dback, back, 3 * 40) <= 1e-5);
  CHECK(max_diff(dback, x, 3 * 40) <= 1e-5);
  CHECK_OK(ct_tensor_fft_fftn(x, NULL, 0, dims, 2, "ortho", &n2));
  CHECK_OK(ct_tensor_fft_fftn(dx, NULL, 0, dims, 2, "ortho", &dn2));
  CHECK_OK(ct_tensor_view_as_real(n2, &n2p));
  CHECK_OK(ct_tensor_view_as_real(dn2, &dn2p));
  CHECK(max_diff(dn2p, n2p, 3 * 40 * 2) <= 1e-5);
  /* The complex arithmetic cuda has: adding a complex number (a 0-dim cpu tensor), and sum */
  const float one_two[2] = {1, 2};
  ct_tensor *c = NULL, *shifted = NULL, *dshifted = NULL, *sp = NULL, *dsp = NULL, *total = NULL, *dtotal = NULL;
  ct_tensor *tp = NULL, *dtp = NULL;
  CHECK_OK(ct_tensor_from_data(one_two, NULL, 0, CT_COMPLEX64, &c));
  CHECK_OK(ct_tensor_add(r, c, &shifted));
  CHECK_OK(ct_tensor_add(dr, c, &dshifted));
  CHECK_OK(ct_tensor_view_as_real(shifted, &sp));
  CHECK_OK(ct_tensor_view_as_real(dshifted, &dsp));
  CHECK(max_diff(dsp, sp, 3 * 21 * 2) <= 1e-4);
  CHECK_OK(ct_tensor_sum(r, NULL, 0, 0, &total));
  CHECK_OK(ct_tensor_sum(dr, NULL, 0, 0, &dtotal));
  CHECK_OK(ct_tensor_view_as_real(total, &tp));
  CHECK_OK(ct_tensor_view_as_real(dtotal, &dtp));
  CHECK(max_diff(dtp, tp, 2) <= 1e-3);
  RELEASE(x, dx, r, dr, rp, drp, f, df, fp, dfp, back, dback, n2, dn2, n2p, dn2p);
  RELEASE(c, shifted, dshifted, sp, dsp, total, dtotal, tp, dtp);
}

static void test_memory_is_cached_and_returned(void) {
  if (!have_gpu()) return;
  const int64_t sizes[1] = {1 << 20};
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_empty(sizes, 1, CT_FLOAT32, "cuda", &t));
  int64_t allocated = 0, reserved = 0;
  CHECK_OK(ct_metric_get("memory.cuda.bytes_allocated", &allocated));
  CHECK(allocated >= (int64_t)4 << 20);
  ct_tensor_release(t);
  CHECK_OK(ct_metric_get("memory.cuda.bytes_reserved", &reserved));
  CHECK(reserved >= (int64_t)4 << 20); /* kept for reuse */
  CHECK_OK(ct_cuda_empty_cache());
  CHECK_OK(ct_metric_get("memory.cuda.bytes_reserved", &reserved));
  CHECK(reserved == 0);
  CHECK_OK(ct_cuda_synchronize(0));
}

static void test_pinned_memory_copies_both_ways(void) {
  if (!have_gpu()) return;
  ct_tensor* x = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor *t = NULL, *p = NULL, *again = NULL, *d = NULL, *back = NULL;
  CHECK_OK(ct_tensor_transpose(x, 0, 1, &t));
  CHECK_OK(ct_tensor_pin_memory(t, &p)); /* contiguous copy of the transpose */
  int pinned = 0;
  CHECK_OK(ct_tensor_is_pinned(p, &pinned));
  CHECK(pinned == 1);
  CHECK_OK(ct_tensor_pin_memory(p, &again));
  CHECK(again == p);
  d = on(p, "cuda");
  back = on(d, "cpu");
  CHECK_TENSOR(back, CT_FLOAT32, S(2, 2), 1, 3, 2, 4);
  RELEASE(x, t, p, again, d, back);
}

static void test_out_of_memory_is_a_status(void) {
  if (!have_gpu()) return;
  const int64_t sizes[1] = {(int64_t)1 << 46}; /* 256 TiB of float32 */
  ct_tensor* t = SENTINEL;
  CHECK_STATUS(ct_tensor_empty(sizes, 1, CT_FLOAT32, "cuda", &t), CT_ERROR_OUT_OF_MEMORY);
  CHECK_ERROR_CONTAINS("cuda:0");
  CHECK(t == NULL);
}

static const capi_test TESTS[] = {CAPI_TEST(test_without_a_device_cuda_is_absent_and_says_why),
                                  CAPI_TEST(test_cuda_names_parse_and_print),
                                  CAPI_TEST(test_bad_arguments_are_statuses),
                                  CAPI_TEST(test_round_trip_views_and_arithmetic_match_cpu),
                                  CAPI_TEST(test_reductions_softmax_matmul_match_cpu),
                                  CAPI_TEST(test_one_seed_gives_the_cpu_numbers),
                                  CAPI_TEST(test_long_reductions_split_over_blocks_match_cpu),
                               CAPI_TEST(test_deterministic_reductions_repeat_bitwise),
                                  CAPI_TEST(test_gradients_on_cuda),
                                  CAPI_TEST(test_linalg_on_cuda_matches_cpu),
                                  CAPI_TEST(test_fft_on_cuda_matches_cpu),
                                  CAPI_TEST(test_memory_is_cached_and_returned),
                                  CAPI_TEST(test_pinned_memory_copies_both_ways),
                                  CAPI_TEST(test_out_of_memory_is_a_status)};
CAPI_MAIN(TESTS)
