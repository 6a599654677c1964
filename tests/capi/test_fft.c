/* torch.fft through the C ABI: the transforms of known signals, round trips at lengths with small and
 * large prime factors, the norms, the n-D forms, the sample frequencies and shifts, and the refusals. */
#include "capi_test.h"

static void test_rfft_and_fft_of_a_ramp(void) {
  ct_tensor* x = T(CT_FLOAT64, S(4), 1, 2, 3, 4);
  ct_tensor *h = NULL, *hr = NULL, *f = NULL, *fr = NULL, *o = NULL, *or_ = NULL;
  /* sum 10; x_k e^{-i pi k / 2}: -2 + 2i; alternating: -2 */
  CHECK_OK(ct_tensor_fft_rfft(x, NULL, -1, NULL, &h));
  CHECK_OK(ct_tensor_view_as_real(h, &hr));
  CHECK_TENSOR_NEAR(hr, CT_FLOAT64, 1e-15, S(3, 2), 10, 0, -2, 2, -2, 0);
  CHECK_OK(ct_tensor_fft_fft(x, NULL, 0, NULL, &f));
  CHECK_OK(ct_tensor_view_as_real(f, &fr));
  CHECK_TENSOR_NEAR(fr, CT_FLOAT64, 1e-15, S(4, 2), 10, 0, -2, 2, -2, 0, -2, -2);
  /* ortho divides by sqrt(4) = 2 */
  CHECK_OK(ct_tensor_fft_rfft(x, NULL, -1, "ortho", &o));
  CHECK_OK(ct_tensor_view_as_real(o, &or_));
  CHECK_TENSOR_NEAR(or_, CT_FLOAT64, 1e-15, S(3, 2), 5, 0, -1, 1, -1, 0);
  RELEASE(x, h, hr, f, fr, o, or_);
}

/* ifft(fft(x)) and irfft(rfft(x), n) give x back: 12 = 4 * 3 runs on KISS FFT's butterflies, 67 and
 * 2 * 101 on Bluestein's convolution. */
static void test_round_trips_at_any_length(void) {
  const int64_t lengths[] = {1, 12, 67, 202};
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; ++i) {
    const int64_t n = lengths[i];
    ct_tensor *x = NULL, *f = NULL, *b = NULL, *d = NULL, *m = NULL, *h = NULL, *r = NULL, *e = NULL, *em = NULL;
    CHECK_OK(ct_manual_seed(7));
    CHECK_OK(ct_tensor_randn(&n, 1, CT_FLOAT64, NULL, NULL, &x));
    CHECK_OK(ct_tensor_fft_fft(x, NULL, -1, "forward", &f));
    CHECK_OK(ct_tensor_fft_ifft(f, NULL, -1, "forward", &b));
    CHECK_OK(ct_tensor_sub(b, x, &d));
    CHECK_OK(ct_tensor_abs(d, &m));
    ct_tensor* worst = NULL;
    CHECK_OK(ct_tensor_amax(m, NULL, 0, 0, &worst));
    ct_scalar w;
    CHECK_OK(ct_tensor_item(worst, &w));
    CHECK(w.kind == CT_SCALAR_FLOAT && w.f < 1e-13);
    CHECK_OK(ct_tensor_fft_rfft(x, NULL, -1, NULL, &h));
    CHECK_OK(ct_tensor_fft_irfft(h, &n, -1, NULL, &r));
    CHECK_OK(ct_tensor_sub(r, x, &e));
    CHECK_OK(ct_tensor_abs(e, &em));
    ct_tensor* worst_real = NULL;
    CHECK_OK(ct_tensor_amax(em, NULL, 0, 0, &worst_real));
    CHECK_OK(ct_tensor_item(worst_real, &w));
    CHECK(w.f < 1e-13);
    RELEASE(x, f, b, d, m, worst, h, r, e, em, worst_real);
  }
}

static void test_two_dims_and_padding(void) {
  ct_tensor* x = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor *f = NULL, *fr = NULL, *p = NULL;
  /* [[sum, row difference sums], [column difference sums, alternating]] */
  CHECK_OK(ct_tensor_fft_fft2(x, NULL, 0, S(-2, -1), NULL, &f));
  CHECK_OK(ct_tensor_view_as_real(f, &fr));
  CHECK_TENSOR_NEAR(fr, CT_FLOAT32, 1e-6, S(2, 2, 2), 10, 0, -2, 0, -4, 0, 0, 0);
  /* s pads the last dim with zeros to 3 points */
  CHECK_OK(ct_tensor_fft_rfftn(x, S(2, 3), NULL, 0, NULL, &p));
  int64_t sizes[2] = {0, 0};
  size_t ndim = 0;
  CHECK_OK(ct_tensor_ndim(p, &ndim));
  CHECK_OK(ct_tensor_sizes(p, sizes, 2));
  CHECK(ndim == 2 && sizes[0] == 2 && sizes[1] == 2);
  RELEASE(x, f, fr, p);
}

static void test_frequencies_and_shifts(void) {
  ct_tensor *f = NULL, *r = NULL, *s = NULL, *u = NULL;
  CHECK_OK(ct_tensor_fft_fftfreq(5, 0.5, NULL, NULL, &f));
  CHECK_TENSOR_NEAR(f, CT_FLOAT32, 1e-7, S(5), 0, 0.4, 0.8, -0.8, -0.4);
  const ct_dtype f64 = CT_FLOAT64;
  CHECK_OK(ct_tensor_fft_rfftfreq(4, 1.0, &f64, NULL, &r));
  CHECK_TENSOR(r, CT_FLOAT64, S(3), 0, 0.25, 0.5);
  ct_tensor* x = T(CT_INT64, S(5), 0, 1, 2, -2, -1);
  CHECK_OK(ct_tensor_fft_fftshift(x, NULL, 0, &s));
  CHECK_TENSOR(s, CT_INT64, S(5), -2, -1, 0, 1, 2);
  CHECK_OK(ct_tensor_fft_ifftshift(s, NULL, 0, &u));
  CHECK_TENSOR(u, CT_INT64, S(5), 0, 1, 2, -2, -1);
  RELEASE(f, r, x, s, u);
}

static void test_refusals_name_the_function(void) {
  const float v[] = {1, 2, 3, 4};
  ct_tensor* z = NULL;
  CHECK_OK(ct_tensor_from_data(v, S(2), CT_COMPLEX64, &z));
  ct_tensor* x = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* out = NULL;
  CHECK_STATUS(ct_tensor_fft_rfft(z, NULL, -1, NULL, &out), CT_ERROR_DTYPE);
  CHECK_ERROR_CONTAINS("fft_rfft");
  CHECK(out == NULL);
  const int64_t zero = 0;
  CHECK_STATUS(ct_tensor_fft_fft(x, &zero, -1, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("Invalid number of data points (0)");
  CHECK_STATUS(ct_tensor_fft_fft(x, NULL, -1, "half", &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("Invalid normalization mode");
  CHECK_STATUS(ct_tensor_fft_fft(x, NULL, 2, NULL, &out), CT_ERROR_INDEX);
  CHECK_STATUS(ct_tensor_fft_fftn(x, NULL, 0, S(1, 1), NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("unique");
  CHECK_STATUS(ct_tensor_fft_fft2(x, S(3), S(0, 1), NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_fft_fft(NULL, NULL, -1, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  /* A 0-dim tensor has no dim to transform. */
  ct_tensor* scalar = NULL;
  CHECK_OK(ct_tensor_select(x, 0, 0, &out));
  CHECK_OK(ct_tensor_select(out, 0, 0, &scalar));
  ct_tensor_release(out);
  out = NULL;
  CHECK_STATUS(ct_tensor__fft_r2c(scalar, S(0), 0, 1, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("0-dim");
  CHECK_STATUS(ct_tensor_fft_rfft(scalar, NULL, -1, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_fft_fftshift(scalar, NULL, 0, &out), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor_release(scalar);
  CHECK_STATUS(ct_tensor__fft_c2r(z, S(0), 0, 9, &out), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("needs 5 input points");
  CHECK(out == NULL);
  RELEASE(z, x);
}

/* cos(pi n / 2) in frames of 8 (hop 8, no centering, no window): each frame's spectrum is 4 at
 * frequency 2 and 0 elsewhere; istft gives the signal back. A real signal must say return_complex. */
static void test_stft_of_a_cosine_and_back(void) {
  ct_tensor* x = T(CT_FLOAT64, S(16), 1, 0, -1, 0, 1, 0, -1, 0, 1, 0, -1, 0, 1, 0, -1, 0);
  ct_tensor *s = NULL, *sr = NULL, *y = NULL, *out = NULL;
  const int64_t hop = 8, length = 16;
  const int yes = 1;
  CHECK_OK(ct_tensor_stft(x, 8, &hop, NULL, NULL, 0, NULL, 0, NULL, &yes, &s));
  CHECK_OK(ct_tensor_view_as_real(s, &sr));
  CHECK_TENSOR_NEAR(sr, CT_FLOAT64, 1e-15, S(5, 2, 2), 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  CHECK_OK(ct_tensor_istft(s, 8, &hop, NULL, NULL, 0, 0, NULL, &length, 0, &y));
  CHECK_TENSOR_NEAR(y, CT_FLOAT64, 1e-15, S(16), 1, 0, -1, 0, 1, 0, -1, 0, 1, 0, -1, 0, 1, 0, -1, 0);
  CHECK_STATUS(ct_tensor_stft(x, 8, &hop, NULL, NULL, 0, NULL, 0, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("return_complex");
  CHECK_STATUS(ct_tensor_istft(x, 8, &hop, NULL, NULL, 0, 0, NULL, NULL, 0, &out), CT_ERROR_DTYPE);
  CHECK_ERROR_CONTAINS("istft");
  CHECK(out == NULL);
  RELEASE(x, s, sr, y);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_rfft_and_fft_of_a_ramp),
    CAPI_TEST(test_round_trips_at_any_length),
    CAPI_TEST(test_two_dims_and_padding),
    CAPI_TEST(test_frequencies_and_shifts),
    CAPI_TEST(test_refusals_name_the_function),
    CAPI_TEST(test_stft_of_a_cosine_and_back),
};
CAPI_MAIN(TESTS)
