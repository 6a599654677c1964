/* ops_fft.c - torch.fft through the C ABI: the spectrum of a sampled tone (rfft) and its frequencies
 * (rfftfreq), the signal back from the spectrum (irfft), its short-time spectrum (stft) and the
 * signal back from that (istft), a 2-D transform, and the refusal of a real transform of a complex
 * input. */
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
  /* 8 samples, 1 s apart, of 1 + cos(2 pi t / 4): frequencies 0 and 0.25. */
  const int64_t n = 8;
  const double x_vals[8] = {2, 1, 0, 1, 2, 1, 0, 1};
  ct_tensor *x = NULL, *spectrum = NULL, *magnitude = NULL, *freq = NULL, *back = NULL;
  TRY(ct_tensor_from_data(x_vals, &n, 1, CT_FLOAT64, &x));
  if (show("x", x)) return 1;
  TRY(ct_tensor_fft_rfft(x, NULL, -1, NULL, &spectrum));  /* n / 2 + 1 = 5 points */
  TRY(ct_tensor_abs(spectrum, &magnitude));
  if (show("abs(rfft(x))", magnitude)) return 1;
  const ct_dtype f64 = CT_FLOAT64;
  TRY(ct_tensor_fft_rfftfreq(n, 1.0, &f64, NULL, &freq));
  if (show("rfftfreq(8)", freq)) return 1;
  TRY(ct_tensor_fft_irfft(spectrum, &n, -1, NULL, &back));
  if (show("irfft(rfft(x), 8)", back)) return 1;

  /* Frames of 4 samples, 4 apart, not centered, no window: the spectrum of [2, 1, 0, 1] twice,
   * [freq, frame]. istft overlap-adds the frames back into the signal. */
  const int64_t hop = 4;
  const int yes = 1;
  ct_tensor *frames = NULL, *frame_magnitude = NULL, *signal = NULL;
  TRY(ct_tensor_stft(x, 4, &hop, NULL, NULL, 0, NULL, 0, NULL, &yes, &frames));
  TRY(ct_tensor_abs(frames, &frame_magnitude));
  if (show("abs(stft(x, 4, hop_length=4, center=False, return_complex=True))", frame_magnitude)) return 1;
  TRY(ct_tensor_istft(frames, 4, &hop, NULL, NULL, 0, 0, NULL, &n, 0, &signal));
  if (show("istft(that, 4, hop_length=4, center=False, length=8)", signal)) return 1;

  /* A 2-D transform with the "ortho" scale, 1 / sqrt(2 * 2). */
  const float image[4] = {1, 2, 3, 4};
  const int64_t sizes[2] = {2, 2};
  const int64_t dims[2] = {-2, -1};
  ct_tensor *img = NULL, *f2 = NULL, *parts = NULL;
  TRY(ct_tensor_from_data(image, sizes, 2, CT_FLOAT32, &img));
  TRY(ct_tensor_fft_fft2(img, NULL, 0, dims, 2, "ortho", &f2));
  TRY(ct_tensor_view_as_real(f2, &parts));
  if (show("view_as_real(fft2(img, norm=\"ortho\"))", parts)) return 1;

  ct_tensor* refused = NULL;
  if (ct_tensor_fft_rfft(spectrum, NULL, -1, NULL, &refused) != CT_OK)
    printf("rfft of a complex tensor: %s\n", ct_last_error());

  ct_tensor_release(x);
  ct_tensor_release(spectrum);
  ct_tensor_release(magnitude);
  ct_tensor_release(freq);
  ct_tensor_release(back);
  ct_tensor_release(frames);
  ct_tensor_release(frame_magnitude);
  ct_tensor_release(signal);
  ct_tensor_release(img);
  ct_tensor_release(f2);
  ct_tensor_release(parts);
  return 0;
}
