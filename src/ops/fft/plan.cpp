// plan.cpp - the transforms of plan.h: a per-thread cache of plans, each of one of three kinds.
//
//   direct     KISS FFT's object for the length: lengths up to kLargestDirect whose prime factors
//              are at most kLargestDirectPrime.
//   four-step  a longer length n = n1 n2 with such factors (Note [Four-step]).
//   Bluestein  a length with a larger prime factor (Note [Bluestein]).
//
// Note [Four-step]
// KISS FFT recurses depth first over the whole signal, reading it with strides that grow with each
// stage: past the caches (a few tens of thousands of points) most of its time goes to misses. A
// long transform is split instead. With n = n1 n2, j = j1 n2 + j2 and k = k1 + n1 k2,
//   X_k = sum_j2 [ w_n^(j2 k1) (sum_j1 x_j w_n1^(j1 k1)) ] w_n2^(j2 k2),
// which is n2 transforms of length n1 (of the columns of x read as an n1 x n2 matrix), a product by
// the twiddles w_n^(j2 k1), then n1 transforms of length n2, each short enough for the caches,
// with transposes between them so that every transform reads and writes contiguous memory. The
// short transforms of a step are independent: they are shared out across threads, each one whole
// on one thread, so the bits do not depend on the thread count. The twiddles are rounded once from
// double, which keeps single precision transforms as accurate as the direct ones.
//
// Note [Bluestein]
// KISS FFT's butterfly for a prime p other than 2, 3 and 5 costs p^2 complex products per group of
// p outputs, so a length with a large prime factor (a prime length above all) would take O(n^2)
// work. Such a length runs as a convolution instead. With jk = (j^2 + k^2 - (k - j)^2) / 2,
//   X_k = c_k sum_j (x_j c_j) conj(c_{k-j}),   c_j = exp(-/+ i pi j^2 / n),
// a linear convolution of the n terms x_j c_j with the 2n - 1 terms conj(c_l), |l| < n, computed as
// a cyclic one of a length m >= 2n - 1 whose only prime factors are 2, 3 and 5: two transforms of
// length m per call, the filter's transform (scaled by 1 / m) kept in the plan. The chirp's angle
// pi (j^2 mod 2n) / n comes from an exact integer and is rounded once, in double, so that it stays
// accurate for j near n.
#include "ops/fft/plan.h"

#include <kissfft/kissfft.hh>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "ops/cpu/parallel.h"

namespace ct::ops::fft {
namespace {

// Above this, a prime factor makes Bluestein's two transforms of about 4n cheaper than KISS FFT's
// generic butterfly (p products per output): the break-even measured near 50 for float and double.
constexpr int64_t kLargestDirectPrime = 61;
// Longer lengths run as four steps: 2^14 complex doubles (256 KiB) still fit in L2.
constexpr int64_t kLargestDirect = int64_t{1} << 14;
// Plans a thread keeps besides the one used last; a 2^20-point double plan holds 48 MiB.
constexpr size_t kCacheBytes = size_t{64} << 20;
// A plan larger than this (past 2^22 double points) is dropped once used, so that one huge transform
// does not pin its memory to the thread; a repeated one rebuilds it, a cost of the order of one call.
constexpr size_t kLargestKeptPlanBytes = size_t{256} << 20;
// Work space a thread keeps between calls; a larger one is allocated for its call alone.
constexpr size_t kKeptScratchBytes = size_t{1} << 20;
// A length splits into four steps only with a factor this long or longer, so that each row's
// transform outweighs its share of the transposes; otherwise KISS FFT takes it whole.
constexpr int64_t kShortestFourStepFactor = 32;
// Square tiles of transposes.
constexpr int64_t kTile = 32;

int64_t largest_prime_factor(int64_t n) {
  int64_t largest = 1;
  for (int64_t f = 2; f * f <= n; f += f == 2 ? 1 : 2)
    while (n % f == 0) {
      largest = f;
      n /= f;
    }
  return std::max(largest, n);
}

// The smallest 2^a 3^b 5^c >= n.
int64_t smooth_length(int64_t n) {
  int64_t best = int64_t{1} << 62;
  for (int64_t p5 = 1; p5 < 2 * n; p5 *= 5)
    for (int64_t p35 = p5; p35 < 2 * n; p35 *= 3) {
      int64_t v = p35;
      while (v < n) v *= 2;
      best = std::min(best, v);
    }
  return best;
}

// The largest divisor of n at most sqrt(n).
int64_t square_root_divisor(int64_t n) {
  int64_t best = 1;
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) best = d;
  return best;
}

// exp(sign 2 pi i num / den), rounded once from double. The angle is reduced exactly to a quarter
// turn plus an angle below pi / 2, so that quarter turns are exact (w_n^(n/2) is -1, not -1 plus
// a sine of pi's rounding) and large num lose nothing to the reduction.
template <typename T>
std::complex<T> unit(double sign, int64_t num, int64_t den) {
  const int64_t r = num % den, quarter = 4 * r / den, rest = 4 * r - quarter * den;
  const double a = 1.5707963267948966192313 * static_cast<double>(rest) / static_cast<double>(den);
  const double c = rest == 0 ? 1.0 : std::cos(a), s = rest == 0 ? 0.0 : std::sin(a);
  const double re[4] = {c, -s, -c, s}, im[4] = {s, c, -s, -c};  // times i^quarter
  return {static_cast<T>(re[quarter]), static_cast<T>(sign * im[quarter])};
}

// dst (cols x rows) = the transpose of src (rows x cols), tiles shared out across threads.
template <typename C>
void transpose(const C* src, C* dst, int64_t rows, int64_t cols) {
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  cpu::parallel_for(0, row_tiles, 4, [&](int64_t t0, int64_t t1) {
    for (int64_t r0 = t0 * kTile; r0 < std::min(rows, t1 * kTile); r0 += kTile)
      for (int64_t c0 = 0; c0 < cols; c0 += kTile)
        for (int64_t r = r0; r < std::min(rows, r0 + kTile); ++r)
          for (int64_t c = c0; c < std::min(cols, c0 + kTile); ++c) dst[c * rows + r] = src[r * cols + c];
  });
}

template <typename T>
class Plan {
 public:
  using C = std::complex<T>;
  enum class Kind { Direct, FourStep, Bluestein };

  Plan(int64_t n, bool inverse) : n_(n), inverse_(inverse) {
    const bool smooth = largest_prime_factor(n) <= kLargestDirectPrime;
    const int64_t n1 = smooth && n > kLargestDirect ? square_root_divisor(n) : 1;
    kind_ = !smooth ? Kind::Bluestein : n1 >= kShortestFourStepFactor ? Kind::FourStep : Kind::Direct;
    const double sign = inverse ? 1.0 : -1.0;
    if (kind_ == Kind::Direct) {
      direct_.emplace(static_cast<size_t>(n), inverse);
    } else if (kind_ == Kind::FourStep) {
      n1_ = n1;
      n2_ = n / n1;
      twiddles_.resize(static_cast<size_t>(n));  // row j2: w_n^(j2 k1) for each k1
      for (int64_t j2 = 0; j2 < n2_; ++j2)
        for (int64_t k1 = 0; k1 < n1_; ++k1) twiddles_[j2 * n1_ + k1] = unit<T>(sign, j2 * k1, n);
      a_.resize(static_cast<size_t>(n));
      b_.resize(static_cast<size_t>(n));
    } else {
      m_ = smooth_length(2 * n - 1);
      chirp_.resize(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) {  // angle sign pi j^2 / n = sign 2 pi (j^2 mod 2n) / 2n
        const auto sq = static_cast<unsigned __int128>(j) * static_cast<unsigned __int128>(j);
        chirp_[j] = unit<T>(sign, static_cast<int64_t>(sq % static_cast<unsigned __int128>(2 * n)), 2 * n);
      }
      a_.assign(static_cast<size_t>(m_), C(0));
      b_.resize(static_cast<size_t>(m_));
      a_[0] = std::conj(chirp_[0]);
      for (int64_t l = 1; l < n; ++l) a_[l] = a_[m_ - l] = std::conj(chirp_[l]);
      filter_.resize(static_cast<size_t>(m_));
      fft::transform<T>(m_, false, a_.data(), filter_.data());
      const T scale = T(1) / static_cast<T>(m_);
      for (C& z : filter_) z *= scale;
    }
  }

  int64_t n() const { return n_; }
  bool inverse() const { return inverse_; }
  // In use: running, or held by a caller that reads its twiddles. A plan in use is never evicted.
  bool busy() const { return users_ > 0; }
  void hold() { ++users_; }
  void release() { --users_; }
  size_t bytes() const {
    return sizeof(C) * (static_cast<size_t>(kind_ == Kind::Direct ? n_ : 0) + twiddles_.size() + a_.size() +
                        b_.size() + chirp_.size() + filter_.size() + real_twiddles_.size());
  }

  void run(const C* in, C* out) {
    Held held(*this);  // the transforms it calls must not evict it from the cache
    if (kind_ == Kind::Direct) direct_->transform(in, out);
    else if (kind_ == Kind::FourStep) run_four_step(in, out);
    else run_bluestein(in, out);
  }

  class Held {
   public:
    explicit Held(Plan& p) : p_(p) { p_.hold(); }
    ~Held() { p_.release(); }
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;

   private:
    Plan& p_;
  };

  // w_{2n}^k for k in [0, n]: the twiddles that make the transform of 2n real points from this
  // (forward) plan's transform of their n pairs.
  const std::vector<C>& real_twiddles() {
    if (real_twiddles_.empty()) {
      real_twiddles_.resize(static_cast<size_t>(n_ + 1));
      for (int64_t k = 0; k <= n_; ++k) real_twiddles_[k] = unit<T>(-1.0, k, 2 * n_);
    }
    return real_twiddles_;
  }

 private:
  // Note [Four-step]: x read as n1 rows of n2.
  void run_four_step(const C* in, C* out) {
    const int64_t n1 = n1_, n2 = n2_;
    transpose(in, a_.data(), n1, n2);  // a: n2 rows (j2) of n1 (j1)
    rows(n2, n1, [&](int64_t j2) {
      C* row = b_.data() + j2 * n1;
      fft::transform<T>(n1, inverse_, a_.data() + j2 * n1, row);
      const C* w = twiddles_.data() + j2 * n1;
      for (int64_t k1 = 0; k1 < n1; ++k1) row[k1] *= w[k1];
    });
    transpose(b_.data(), a_.data(), n2, n1);  // a: n1 rows (k1) of n2 (j2)
    rows(n1, n2, [&](int64_t k1) { fft::transform<T>(n2, inverse_, a_.data() + k1 * n2, b_.data() + k1 * n2); });
    transpose(b_.data(), out, n1, n2);  // out[k1 + n1 k2]
  }
  // body(r) for r in [0, count), rows of `length` points shared out across threads.
  template <typename F>
  static void rows(int64_t count, int64_t length, const F& body) {
    const double work = static_cast<double>(length) * std::log2(static_cast<double>(length));
    cpu::parallel_for(0, count, std::max<int64_t>(1, static_cast<int64_t>(32768.0 / work)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) body(r);
    });
  }

  void run_bluestein(const C* in, C* out) {
    for (int64_t j = 0; j < n_; ++j) a_[j] = in[j] * chirp_[j];
    std::fill(a_.begin() + n_, a_.end(), C(0));
    fft::transform<T>(m_, false, a_.data(), b_.data());
    for (int64_t k = 0; k < m_; ++k) b_[k] *= filter_[k];
    fft::transform<T>(m_, true, b_.data(), a_.data());
    for (int64_t k = 0; k < n_; ++k) out[k] = a_[k] * chirp_[k];
  }

  int64_t n_;
  bool inverse_;
  Kind kind_ = Kind::Direct;
  int users_ = 0;
  std::optional<kissfft<T>> direct_;
  int64_t n1_ = 0, n2_ = 0;      // four-step
  int64_t m_ = 0;                // Bluestein's convolution length
  std::vector<C> twiddles_;      // four-step
  std::vector<C> chirp_, filter_;  // Bluestein
  std::vector<C> a_, b_;         // work space of both, hence plans per thread
  std::vector<C> real_twiddles_;
};

// A thread's plans, the most recently used first. Per thread: KISS FFT's generic butterfly and the
// four-step and Bluestein plans write into work space the plan owns.
template <typename T>
std::vector<std::unique_ptr<Plan<T>>>& plans() {
  thread_local std::vector<std::unique_ptr<Plan<T>>> cache;
  return cache;
}

template <typename T>
Plan<T>& plan_for(int64_t n, bool inverse) {
  auto& cache = plans<T>();
  for (size_t i = 0; i < cache.size(); ++i)
    if (cache[i]->n() == n && cache[i]->inverse() == inverse) {
      const auto at = cache.begin() + static_cast<std::ptrdiff_t>(i);
      std::rotate(cache.begin(), at, at + 1);
      return *cache.front();
    }
  auto plan = std::make_unique<Plan<T>>(n, inverse);  // may fill the cache with the plans it uses
  cache.insert(cache.begin(), std::move(plan));
  size_t kept = 0;
  for (size_t i = 1; i < cache.size(); ++i) kept += cache[i]->bytes();
  for (size_t i = cache.size(); i-- > 1 && kept > kCacheBytes;)
    if (!cache[i]->busy()) {
      kept -= cache[i]->bytes();
      cache.erase(cache.begin() + static_cast<std::ptrdiff_t>(i));
    }
  return *cache.front();
}

// fn(plan) with the plan held, then the plan dropped if it is too large to keep
// (kLargestKeptPlanBytes).
template <typename T, typename F>
void with_plan(int64_t n, bool inverse, const F& fn) {
  Plan<T>& p = plan_for<T>(n, inverse);
  {
    typename Plan<T>::Held held(p);
    fn(p);
  }
  if (p.busy() || p.bytes() <= kLargestKeptPlanBytes) return;
  auto& cache = plans<T>();
  for (size_t i = 0; i < cache.size(); ++i)
    if (cache[i].get() == &p) {
      cache.erase(cache.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
}

// n elements of work space for one call: the thread's kept buffer when small, else its own.
template <typename T>
class Scratch {
 public:
  explicit Scratch(size_t n) {
    thread_local std::vector<std::complex<T>> kept;
    if (n * sizeof(std::complex<T>) > kKeptScratchBytes) {
      own_.resize(n);
      data_ = own_.data();
      return;
    }
    if (kept.size() < n) kept.resize(n);
    data_ = kept.data();
  }
  std::complex<T>* data() { return data_; }

 private:
  std::vector<std::complex<T>> own_;
  std::complex<T>* data_ = nullptr;
};

}  // namespace

template <typename T>
void transform(int64_t n, bool inverse, const std::complex<T>* in, std::complex<T>* out) {
  with_plan<T>(n, inverse, [&](Plan<T>& p) { p.run(in, out); });
}

// An even n: the n / 2 pairs (x_2j, x_2j+1) as complex numbers z_j, whose transform Z gives
//   X_k = (Z_k + conj(Z_{h-k})) / 2 - i w^k (Z_k - conj(Z_{h-k})) / 2,   h = n / 2, w = w_n,
// for k in [0, h] (Z_h read as Z_0), computed in place in out, k and h - k together. An odd n goes
// through the complex transform.
template <typename T>
void transform_real(int64_t n, const T* in, std::complex<T>* out) {
  using C = std::complex<T>;
  if (n % 2 == 0) {
    const int64_t h = n / 2;
    with_plan<T>(h, false, [&](Plan<T>& p) {
      p.run(reinterpret_cast<const C*>(in), out);
      const C* w = p.real_twiddles().data();
      const auto point = [](C a, C b, C wk) {  // from Z_k = a and conj(Z_{h-k}) = b
        const C even = (a + b) * T(0.5), odd = (a - b) * T(0.5);
        return even + wk * C(odd.imag(), -odd.real());
      };
      const C z0 = out[0];
      for (int64_t k = 1, j = h - 1; k <= j; ++k, --j) {
        const C zk = out[k], zj = out[j];
        out[k] = point(zk, std::conj(zj), w[k]);
        if (j != k) out[j] = point(zj, std::conj(zk), w[j]);
      }
      out[0] = C(z0.real() + z0.imag(), 0);
      out[h] = C(z0.real() - z0.imag(), 0);
    });
    return;
  }
  Scratch<T> scratch(static_cast<size_t>(2 * n));
  C* z = scratch.data();
  for (int64_t j = 0; j < n; ++j) z[j] = C(in[j], 0);
  fft::transform<T>(n, false, z, z + n);
  std::copy(z + n, z + n + n / 2 + 1, out);
}

// An even n: transform_real backwards. The spectrum's points k and h + k give the transforms of the
// even and the odd samples, E_k = (X_k + X_{h+k}) / 2 and O_k = (X_k - X_{h+k}) / (2 w^k), and
// X_{h+k} = conj(X_{h-k}); the inverse transform of length h of Z = 2 (E + i O) is then the pairs
// (y_2j, y_2j+1) of the unscaled result. An odd n goes through the whole spectrum.
template <typename T>
void transform_hermitian(int64_t n, const std::complex<T>* in, T* out) {
  using C = std::complex<T>;
  if (n % 2 == 0) {
    const int64_t h = n / 2;
    Scratch<T> scratch(static_cast<size_t>(h));
    C* z = scratch.data();
    with_plan<T>(h, false, [&](Plan<T>& forward) {  // held for its twiddles
      const C* w = forward.real_twiddles().data();
      const C first(in[0].real(), 0), middle(in[h].real(), 0);
      for (int64_t k = 0; k < h; ++k) {
        const C a = k == 0 ? first : in[k], b = std::conj(k == 0 ? middle : in[h - k]);
        const C odd = (a - b) * std::conj(w[k]);
        z[k] = (a + b) + C(-odd.imag(), odd.real());
      }
    });
    fft::transform<T>(h, true, z, reinterpret_cast<C*>(out));
    return;
  }
  Scratch<T> scratch(static_cast<size_t>(2 * n));
  C* z = scratch.data();
  const int64_t half = n / 2 + 1;
  z[0] = C(in[0].real(), 0);
  for (int64_t k = 1; k < half; ++k) z[k] = in[k];
  for (int64_t k = half; k < n; ++k) z[k] = std::conj(z[n - k]);
  fft::transform<T>(n, true, z, z + n);
  for (int64_t j = 0; j < n; ++j) out[j] = z[n + j].real();
}

template void transform<float>(int64_t, bool, const std::complex<float>*, std::complex<float>*);
template void transform<double>(int64_t, bool, const std::complex<double>*, std::complex<double>*);
template void transform_real<float>(int64_t, const float*, std::complex<float>*);
template void transform_real<double>(int64_t, const double*, std::complex<double>*);
template void transform_hermitian<float>(int64_t, const std::complex<float>*, float*);
template void transform_hermitian<double>(int64_t, const std::complex<double>*, double*);

}  // namespace ct::ops::fft
