// stft.cpp - the short-time Fourier transform and its inverse, torch.stft and torch.istft, with
// PyTorch's arguments, defaults and checks. Both are composites over the transforms of
// transforms.cpp, unfold (framing) and col2im (overlap-add), so their derivatives, batching and
// devices are those operators'.
//
// stft frames the signal (centered by padding n_fft / 2 on each side), multiplies each frame by the
// window (zero-padded to n_fft in the middle when shorter), and transforms each frame: a one-sided
// spectrum for a real signal and window unless onesided=False. The result is [freq, frame] (with
// the batch first when there is one). istft inverts it: each frame transformed back, multiplied by
// the window again, overlap-added, and divided by the overlap-added squared window (which must stay
// away from zero: the NOLA condition).
#include <algorithm>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// Argument i: its int, or fallback for None.
int64_t int_or(const Frame& f, size_t i, int64_t fallback) { return f.arg(i).is_none() ? fallback : f.arg(i).to_int(); }

// The window as both transforms use it: win_length long (ones when none is given), zero-padded in
// the middle of n_fft points.
Tensor padded_window(const char* fn, const Tensor& window, int64_t win_length, int64_t n_fft, DType real, Device dev) {
  Tensor w = window;
  if (w.defined()) {
    CT_CHECK(w->dim() == 1 && w->size(0) == win_length, CT_ERROR_SHAPE, fn,
             ": expected a 1D window tensor of size equal to win_length=", win_length, ", but got window with size ",
             w->sizes());
    CT_CHECK(w->device() == dev, CT_ERROR_DEVICE, fn, ": the window is on ", w->device(), " and the input on ", dev,
             ". Move the window with to()");
  } else if (win_length < n_fft) {
    w = ones({win_length}, real, dev);
  }
  if (!w.defined() || win_length == n_fft) return w;
  const int64_t left = (n_fft - win_length) / 2;
  return constant_pad_nd(w, {left, n_fft - win_length - left});
}

// frames [batch, n_frames, n_fft] added at their places, frame t from sample t * hop on:
// [batch, length]. That is col2im (fold) of one channel, one row high; col2im takes real values
// only, as torch's, so complex frames are added part by part.
Tensor overlap_add(const Tensor& frames, int64_t hop, int64_t length) {
  if (is_complex(frames->dtype()))
    return complex(overlap_add(real(frames), hop, length), overlap_add(imag(frames), hop, length));
  const int64_t batch = frames->size(0), n_fft = frames->size(2);
  const Tensor columns = transpose(frames, 1, 2);  // [batch, n_fft, n_frames]: col2im's blocks
  return reshape(col2im(columns, {1, length}, {1, n_fft}, {1, 1}, {0, 0}, {1, hop}), {batch, length});
}

// stft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None,
//      bool center=True, str pad_mode='reflect', bool normalized=False, bool? onesided=None,
//      bool? return_complex=None) -> Tensor
void stft_kernel(void*, Frame& f) {
  const char* fn = "stft";
  Tensor x = Tensor::borrow(&f.tensor(0));
  const int64_t n_fft = f.arg(1).to_int();
  const int64_t hop = int_or(f, 2, n_fft / 4), win_length = int_or(f, 3, n_fft);
  const Tensor window = optional_tensor(f, 4);
  const bool center = f.arg(5).to_bool(), normalized = f.arg(7).to_bool();
  const bool complex_input = is_complex(x->dtype()) || (window.defined() && is_complex(window->dtype()));
  CT_CHECK(!f.arg(9).is_none() || complex_input, CT_ERROR_INVALID_ARGUMENT, fn,
           ": stft requires the return_complex parameter be given for real inputs (input ", x->dtype(),
           "). Pass return_complex=True (a complex result), or return_complex=False (its view_as_real)");
  const bool return_complex = f.arg(9).is_none() || f.arg(9).to_bool();
  CT_CHECK(x->dim() == 1 || x->dim() == 2, CT_ERROR_SHAPE, fn, ": expected a 1D or 2D tensor (a signal, or a batch "
           "of signals), but got sizes ", x->sizes());
  CT_CHECK(is_floating(x->dtype()) || is_complex(x->dtype()), CT_ERROR_DTYPE, fn,
           ": expected a tensor of floating point or complex values, got ", x->dtype(), ". Convert it with to()");
  const bool batched = x->dim() == 2;
  if (!batched) x = unsqueeze(x, 0);
  if (center) {  // n_fft / 2 points on each side, as pad does them for a [1, batch, length] signal
    const int64_t half = n_fft / 2;
    x = squeeze(pad(unsqueeze(x, 0), {half, half}, f.arg(6).str()), 0);
  }
  const int64_t length = x->size(1);
  CT_CHECK(n_fft > 0 && n_fft <= length, CT_ERROR_INVALID_ARGUMENT, fn, ": expected 0 < n_fft <= ", length,
           ", but got n_fft=", n_fft, center ? " (the length counts the centering pad)" : "");
  CT_CHECK(hop > 0, CT_ERROR_INVALID_ARGUMENT, fn, ": expected hop_length > 0, but got hop_length=", hop);
  CT_CHECK(win_length > 0 && win_length <= n_fft, CT_ERROR_INVALID_ARGUMENT, fn,
           ": expected 0 < win_length <= n_fft, but got win_length=", win_length);
  const Tensor w = padded_window(fn, window, win_length, n_fft, real_dtype(x->dtype()), x->device());
  const bool onesided = f.arg(8).is_none() ? !complex_input : f.arg(8).to_bool();
  CT_CHECK(!(onesided && complex_input), CT_ERROR_INVALID_ARGUMENT, fn,
           ": Cannot have onesided output if window or input is complex. Pass onesided=False");
  Tensor frames = unfold(x, 1, n_fft, hop);  // [batch, n_frames, n_fft]
  if (w.defined()) frames = mul(frames, w);
  const int64_t norm = normalized ? 1 : 0;  // normalized: by 1 / sqrt(n_fft)
  Tensor spectrum = complex_input ? _fft_c2c(frames, {2}, norm, /*forward=*/true)
                                  : _fft_r2c(frames, {2}, norm, onesided);
  spectrum = transpose(spectrum, 1, 2);  // [batch, freq, n_frames]
  if (!batched) spectrum = squeeze(spectrum, 0);
  f.outs[0] = return_complex ? spectrum : view_as_real(spectrum);
}

// istft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None,
//       bool center=True, bool normalized=False, bool? onesided=None, int? length=None,
//       bool return_complex=False) -> Tensor
void istft_kernel(void*, Frame& f) {
  const char* fn = "istft";
  Tensor x = Tensor::borrow(&f.tensor(0));
  CT_CHECK(is_complex(x->dtype()), CT_ERROR_DTYPE, fn, ": istft requires a complex-valued input tensor matching the "
           "output from stft with return_complex=True (got ", x->dtype(), ", sizes ", x->sizes(),
           "). Pass view_as_complex(x) for a real tensor whose last dim holds the real and imaginary parts");
  CT_CHECK(x->dim() == 2 || x->dim() == 3, CT_ERROR_SHAPE, fn, ": expected a tensor with 2 or 3 dimensions of complex "
           "values ([freq, frame] or [batch, freq, frame]), but got sizes ", x->sizes());
  CT_CHECK(x->numel() > 0, CT_ERROR_SHAPE, fn, ": input tensor cannot be empty (sizes ", x->sizes(), ")");
  const int64_t n_fft = f.arg(1).to_int();
  const int64_t hop = int_or(f, 2, n_fft / 4), win_length = int_or(f, 3, n_fft);
  const Tensor window = optional_tensor(f, 4);
  const bool center = f.arg(5).to_bool(), normalized = f.arg(6).to_bool(), return_complex = f.arg(9).to_bool();
  const bool batched = x->dim() == 3;
  if (!batched) x = unsqueeze(x, 0);
  const int64_t n_freq = x->size(1), n_frames = x->size(2);
  const bool onesided = f.arg(7).is_none() ? n_freq != n_fft : f.arg(7).to_bool();
  if (onesided) {
    CT_CHECK(n_fft / 2 + 1 == n_freq, CT_ERROR_SHAPE, fn, ": expected the frequency dimension (3rd to the last) of "
             "the input tensor to match n_fft / 2 + 1 = ", n_fft / 2 + 1, " when onesided=True, but got ", n_freq);
  } else {
    CT_CHECK(n_fft == n_freq, CT_ERROR_SHAPE, fn, ": expected the frequency dimension (3rd to the last) of the input "
             "tensor to match n_fft = ", n_fft, " when onesided=False, but got ", n_freq);
  }
  CT_CHECK(hop > 0 && hop <= win_length, CT_ERROR_INVALID_ARGUMENT, fn, ": expected 0 < hop_length <= win_length (",
           win_length, "), but got hop_length=", hop);
  CT_CHECK(win_length > 0 && win_length <= n_fft, CT_ERROR_INVALID_ARGUMENT, fn,
           ": expected 0 < win_length <= n_fft (", n_fft, "), but got win_length=", win_length);
  const DType real = real_dtype(x->dtype());
  Tensor w = padded_window(fn, window, win_length, n_fft, real, x->device());
  if (!w.defined()) w = ones({n_fft}, real, x->device());
  const Tensor spectra = transpose(x, 1, 2);  // [batch, n_frames, n_freq]
  const int64_t norm = normalized ? 1 : 2;    // the inverse of stft's: by 1 / sqrt(n_fft), or 1 / n_fft
  Tensor frames;
  if (return_complex) {
    CT_CHECK(!onesided, CT_ERROR_INVALID_ARGUMENT, fn, ": Cannot have onesided output if window or input is complex. "
             "Pass onesided=False with a full spectrum");
    frames = _fft_c2c(spectra, {2}, norm, /*forward=*/false);
  } else {
    CT_CHECK(!is_complex(w->dtype()), CT_ERROR_INVALID_ARGUMENT, fn,
             ": Complex windows are incompatible with return_complex=False. Pass return_complex=True");
    frames = _fft_c2r(onesided ? spectra : narrow(spectra, 2, 0, n_fft / 2 + 1), {2}, norm, n_fft);
  }
  const int64_t full = n_fft + hop * (n_frames - 1);
  Tensor y = overlap_add(mul(frames, w), hop, full);
  Tensor envelope = overlap_add(expand(unsqueeze(unsqueeze(mul(w, w), 0), 0), {1, n_frames, n_fft}), hop, full);
  const int64_t start = center ? n_fft / 2 : 0;
  const int64_t end = !f.arg(8).is_none() ? start + f.arg(8).to_int() : center ? full - n_fft / 2 : full;
  const int64_t kept = std::max<int64_t>(0, std::min(end, full) - start);
  y = narrow(y, 1, start, kept);
  envelope = narrow(envelope, 1, start, kept);
  if (!envelope->device().is_meta() && kept > 0) {
    const double lowest = host_contiguous(to(amin(abs(envelope)), DType::Float64))->data_as<double>()[0];
    CT_CHECK(!(lowest < 1e-11), CT_ERROR_INVALID_ARGUMENT, fn, ": window overlap add min: ", lowest,
             " (below 1e-11: the window and hop_length ", hop, " break the NOLA condition). Use a window whose "
             "squares overlap-add to no zero, or a smaller hop_length");
  }
  y = div(y, envelope);
  if (!batched) y = squeeze(y, 0);
  if (end > full) y = constant_pad_nd(y, {0, end - full});  // a longer length: zeros at the end
  f.outs[0] = y;
}

}  // namespace

void define_stft(Registry& r) {
  r.def("stft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None, "
        "bool center=True, str pad_mode='reflect', bool normalized=False, bool? onesided=None, "
        "bool? return_complex=None) -> Tensor")
      .composite(stft_kernel);
  r.def("istft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None, "
        "bool center=True, bool normalized=False, bool? onesided=None, int? length=None, "
        "bool return_complex=False) -> Tensor")
      .composite(istft_kernel);
}

}  // namespace ct::ops
