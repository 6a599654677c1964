// fft.cpp - gradcheck cases of the discrete Fourier transforms: the three transforms (_fft_c2c,
// _fft_r2c, _fft_c2r) and the torch.fft functions, stft and istft made of them. Each case is a real function of
// real inputs (complex() in, view_as_real() out), so a finite difference of real numbers checks the
// adjoint transforms, the doubled points of a half spectrum, the ignored imaginary parts of its
// first and middle points, padding and trimming, and the norms.
#include "gradcheck.h"

namespace ct::gradcheck {
namespace {

Tensor z_of(const Inputs& x, size_t i) { return ops::complex(x[i], x[i + 1]); }
Tensor parts(const Tensor& z) { return ops::view_as_real(z); }
Tensor flat(const Tensor& t) { return ops::reshape(t, {-1}); }
Tensor joined(std::initializer_list<Tensor> ts) {
  std::vector<const TensorImpl*> flats;
  std::vector<Tensor> keep;
  for (const Tensor& t : ts) keep.push_back(flat(t));
  for (const Tensor& t : keep) flats.push_back(t.impl());
  return ops::cat(flats, 0);
}

std::vector<Case> fft_cases() {
  const Input v{{5}}, even{{2, 6}}, half{{2, 4}}, grid{{3, 4}};
  return {
      {{"_fft_c2c", "fft_fft", "fft_ifft"},
       {v, v},
       [](const Inputs& x) {
         const Tensor z = z_of(x, 0);
         return joined({parts(ops::fft_fft(z, std::nullopt, -1, "ortho")), parts(ops::fft_ifft(z, 7)),
                        parts(ops::fft_fft(z, 3, 0, "forward"))});
       }},
      {{"_fft_r2c", "fft_rfft", "fft_ihfft"},
       {even},
       [](const Inputs& x) {
         return joined({parts(ops::fft_rfft(x[0])), parts(ops::fft_rfft(x[0], 5, 0)),
                        parts(ops::fft_ihfft(x[0], 7, -1, "ortho")), parts(ops::fft_fft(x[0], std::nullopt, 0))});
       }},
      // Even and odd lengths: the middle point of an even one is real, the others count twice; the
      // last case reads 3 of the 4 points it is given.
      {{"_fft_c2r", "fft_irfft", "fft_hfft"},
       {half, half},
       [](const Inputs& x) {
         const Tensor z = z_of(x, 0);
         return joined({ops::fft_irfft(z), ops::fft_irfft(z, 7, -1, "forward"), ops::fft_hfft(z, 5),
                        ops::_fft_c2r(z, IntArrayRef{1}, 1, 4)});
       }},
      {{"fft_fft2", "fft_ifft2", "fft_fftn", "fft_ifftn"},
       {grid, grid},
       [](const Inputs& x) {
         const Tensor z = z_of(x, 0);
         return joined({parts(ops::fft_fft2(z)), parts(ops::fft_ifft2(z, IntArrayRef{4, 3}, IntArrayRef{0, 1}, "ortho")),
                        parts(ops::fft_fftn(z, std::nullopt, IntArrayRef{0})), parts(ops::fft_ifftn(z))});
       }},
      {{"fft_rfft2", "fft_rfftn", "fft_ihfft2", "fft_ihfftn"},
       {grid},
       [](const Inputs& x) {
         return joined({parts(ops::fft_rfft2(x[0])), parts(ops::fft_rfftn(x[0], IntArrayRef{2, 5})),
                        parts(ops::fft_ihfft2(x[0])), parts(ops::fft_ihfftn(x[0], std::nullopt, std::nullopt, "forward"))});
       }},
      {{"fft_irfft2", "fft_irfftn", "fft_hfft2", "fft_hfftn"},
       {grid, grid},
       [](const Inputs& x) {
         const Tensor z = z_of(x, 0);
         return joined({ops::fft_irfft2(z), ops::fft_irfftn(z, IntArrayRef{3, 5}), ops::fft_hfft2(z),
                        ops::fft_hfftn(z, std::nullopt, std::nullopt, "ortho")});
       }},
      // A batch of signals through stft (centered by reflection), and a spectrum of 9 frames back
      // through istft (its overlap-add divided by the window's), trimmed to the centered signal or
      // to a length.
      {{"stft", "istft"},
       {Input{{2, 24}}, Input{{5, 9}}, Input{{5, 9}}},
       [](const Inputs& x) {
         const Tensor w = ops::hann_window(8, DType::Float64);
         const Tensor s = ops::stft(x[0], 8, 2, std::nullopt, w, true, "reflect", false, std::nullopt, true);
         return joined({parts(s), ops::istft(z_of(x, 1), 8, 2, std::nullopt, w),
                        ops::istft(z_of(x, 1), 8, 3, 6, Tensor(), true, true, std::nullopt, 20)});
       }},
      {{"fft_fftshift", "fft_ifftshift"},
       {grid},
       [](const Inputs& x) { return ops::add(ops::fft_fftshift(x[0]), ops::fft_ifftshift(x[0], IntArrayRef{1})); }},
  };
}

const GradCheckFamily family(fft_cases);

}  // namespace
}  // namespace ct::gradcheck
