// The Philox generator against the published known answers, the distribution maps against libm and
// their limits, and the fill loop's independence from the thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/half.h"
#include "ops/cpu/parallel.h"
#include "ops/random/fill.h"
#include "ops/random/philox.h"

using namespace ct::ops::random;

namespace {

// Philox4x32-10 in full generality (128-bit counter, 64-bit key): the known-answer vectors of the
// Random123 distribution (kat_vectors) use counters ctr wider than ctorch's 64-bit block numbers.
Words philox_full(const uint32_t c[4], const uint32_t k[2]) {
  uint32_t c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3], k0 = k[0], k1 = k[1];
  for (int r = 0; r < 10; ++r) {
    const uint64_t p0 = uint64_t{0xD2511F53u} * c0, p1 = uint64_t{0xCD9E8D57u} * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0, n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1), c3 = static_cast<uint32_t>(p0), c0 = n0, c2 = n2;
    k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
  }
  return Words{{c0, c1, c2, c3}};
}

}  // namespace

TEST(Philox, KnownAnswers) {
  // ctr = 0, key = 0 through ctorch's entry point (block 0 of seed 0).
  const Words z = philox(0, 0);
  EXPECT_EQ(z.w[0], 0x6627e8d5u);
  EXPECT_EQ(z.w[1], 0xe169c58du);
  EXPECT_EQ(z.w[2], 0xbc57ac4cu);
  EXPECT_EQ(z.w[3], 0x9b00dbd8u);
  const uint32_t ones[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, kones[2] = {0xffffffffu, 0xffffffffu};
  const Words f = philox_full(ones, kones);
  EXPECT_EQ(f.w[0], 0x408f276du);
  EXPECT_EQ(f.w[1], 0x41c83b0eu);
  EXPECT_EQ(f.w[2], 0xa20bc7c6u);
  EXPECT_EQ(f.w[3], 0x6d5451fdu);
  const uint32_t pi[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, kpi[2] = {0xa4093822u, 0x299f31d0u};
  const Words p = philox_full(pi, kpi);
  EXPECT_EQ(p.w[0], 0xd16cfe09u);
  EXPECT_EQ(p.w[1], 0x94fdccebu);
  EXPECT_EQ(p.w[2], 0x5001e420u);
  EXPECT_EQ(p.w[3], 0x24126ea1u);
  // ctorch's block numbering is the low 64 bits of that counter.
  const uint32_t c[4] = {0x89abcdefu, 0x01234567u, 0, 0}, k[2] = {0xdeadbeefu, 0x0badf00du};
  const Words a = philox(0x0badf00ddeadbeefull, 0x0123456789abcdefull), b = philox_full(c, k);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(a.w[i], b.w[i]);
}

TEST(Philox, UniformMapsStayBelowOne) {
  EXPECT_EQ(uniform_float(0, 24), 0.0f);
  EXPECT_LT(uniform_float(0xffffffffu, 24), 1.0f);
  EXPECT_LT(static_cast<float>(ct::Half(uniform_float(0xffffffffu, 11))), 1.0f);
  EXPECT_LT(static_cast<float>(ct::BFloat16(uniform_float(0xffffffffu, 8))), 1.0f);
  EXPECT_EQ(uniform_double(0, 0), 0.0);
  EXPECT_LT(uniform_double(0xffffffffu, 0xffffffffu), 1.0);
}

TEST(Philox, LogMatchesLibm) {
  for (float x = 5.9604645e-08f; x <= 1.0f; x *= 1.0137f) {  // from 2^-24, the smallest u1, to 1
    EXPECT_NEAR(log_f32(x), std::log(x), 4e-7 * std::fabs(std::log(x)) + 1e-7) << x;
    EXPECT_NEAR(log_f64(x), std::log(static_cast<double>(x)), 1e-15 * std::fabs(std::log(x)) + 1e-16) << x;
  }
  EXPECT_EQ(log_f32(1.0f), 0.0f);
  EXPECT_EQ(log_f64(1.0), 0.0);
}

TEST(Philox, SinCosMatchLibm) {
  for (int i = 0; i < 4096; ++i) {
    const double t = i / 4096.0;
    float sf, cf;
    double sd, cd;
    sincos_turns(static_cast<float>(t), sf, cf);
    sincos_turns(t, sd, cd);
    const double a = 2 * M_PI * t;
    EXPECT_NEAR(sf, std::sin(a), 3e-7) << t;
    EXPECT_NEAR(cf, std::cos(a), 3e-7) << t;
    EXPECT_NEAR(sd, std::sin(a), 1e-15) << t;
    EXPECT_NEAR(cd, std::cos(a), 1e-15) << t;
  }
}

TEST(Philox, FillIsIndependentOfTheThreadCount) {
  const int before = ct::cpu::get_num_threads();
  auto draw = [](int threads) {
    ct::cpu::set_num_threads(threads);
    ct::runtime::Generator g(ct::kCPU, 42);
    std::vector<float> v(300001);  // not a multiple of the block or batch size
    fill<4>(v.data(), static_cast<int64_t>(v.size()), g,
            [](uint32_t a, uint32_t b, uint32_t c, uint32_t d, float* dst, int64_t) {
              float z0, z1, z2, z3;
              box_muller(static_cast<float>((a >> 8) + 1) / 16777216.0f, static_cast<float>(b >> 8) / 16777216.0f, z0, z1);
              box_muller(static_cast<float>((c >> 8) + 1) / 16777216.0f, static_cast<float>(d >> 8) / 16777216.0f, z2, z3);
              dst[0] = z0, dst[1] = z1, dst[2] = z2, dst[3] = z3;
            });
    EXPECT_EQ(g.offset(), (v.size() + 3) / 4);
    return v;
  };
  const std::vector<float> one = draw(1), four = draw(4);
  ct::cpu::set_num_threads(before);
  EXPECT_EQ(0, std::memcmp(one.data(), four.data(), one.size() * sizeof(float)));
  double mean = 0, var = 0;
  for (float x : one) mean += x;
  mean /= one.size();
  for (float x : one) var += (x - mean) * (x - mean);
  var /= one.size();
  EXPECT_NEAR(mean, 0.0, 0.01);  // 300k samples: the standard error is 0.0018
  EXPECT_NEAR(var, 1.0, 0.01);
}
