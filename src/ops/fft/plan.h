// plan.h - one-dimensional discrete Fourier transforms of any length, the engine under the fft
// operators (transforms.cpp). KISS FFT's C++ template (kissfft.hh from Debian's libkissfft-dev,
// BSD-3-Clause: mixed radix, with butterflies of its own for 2, 3, 4 and 5 and a generic O(p^2)
// one for any other prime p) does the work; a length with a prime factor too large for that runs
// as Bluestein's chirp convolution of a length KISS FFT does well (Note [Bluestein]).
#pragma once

#include <complex>
#include <cstdint>

namespace ct::ops::fft {

/// out[k] = sum_j in[j] exp(-2 pi i j k / n) (forward) or exp(+2 pi i j k / n) (inverse), unscaled,
/// for n >= 1. in and out hold n contiguous elements each and must not overlap. The transform runs
/// on the calling thread alone, so its bits never depend on the thread count; plans (twiddles,
/// factorization, Bluestein's filter) are cached per thread, the most recently used first.
template <typename T>
void transform(int64_t n, bool inverse, const std::complex<T>* in, std::complex<T>* out);

/// The first n / 2 + 1 outputs of the forward transform of n real inputs (the rest follow by
/// conjugate symmetry). in holds n contiguous elements, out n / 2 + 1.
template <typename T>
void transform_real(int64_t n, const T* in, std::complex<T>* out);

/// The n real points of the inverse transform (unscaled) of the Hermitian spectrum whose first
/// n / 2 + 1 points are in (the others are their conjugates; the imaginary parts of in[0] and, for
/// an even n, in[n / 2] are ignored). out holds n contiguous elements.
template <typename T>
void transform_hermitian(int64_t n, const std::complex<T>* in, T* out);

extern template void transform<float>(int64_t, bool, const std::complex<float>*, std::complex<float>*);
extern template void transform<double>(int64_t, bool, const std::complex<double>*, std::complex<double>*);
extern template void transform_real<float>(int64_t, const float*, std::complex<float>*);
extern template void transform_real<double>(int64_t, const double*, std::complex<double>*);
extern template void transform_hermitian<float>(int64_t, const std::complex<float>*, float*);
extern template void transform_hermitian<double>(int64_t, const std::complex<double>*, double*);

}  // namespace ct::ops::fft
