// cast_line's float32 -> float16 and bfloat16 loops (Note [Vectorized float32 to 16-bit float] in
// cast.cpp) against Half::from_float and BFloat16::from_float, bit for bit: every 7th float32 bit
// pattern and every float around the half's subnormal, overflow and NaN boundaries and bfloat16's
// rounding boundary.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/half.h"
#include "ops/cpu/cast.h"

namespace {

// Converts us with cast_line (one call, so the vector loop's tail runs too) and counts the
// elements whose bits differ from H::from_float's.
template <typename H>
int64_t count_differences(ct::cpu::CastLine line, std::vector<uint32_t> const& us) {
  std::vector<uint16_t> out(us.size());
  line(reinterpret_cast<const char*>(us.data()), sizeof(float), reinterpret_cast<char*>(out.data()),
       static_cast<int64_t>(us.size()));
  int64_t bad = 0;
  for (size_t i = 0; i < us.size(); ++i) {
    float f;
    std::memcpy(&f, &us[i], 4);
    const uint16_t want = H::from_float(f);
    if (out[i] != want && bad++ < 10)
      ADD_FAILURE() << std::hex << "0x" << us[i] << " -> 0x" << out[i] << ", want 0x" << want;
  }
  return bad;
}

template <typename H>
void expect_same_bits(ct::DType to) {
  const ct::cpu::CastLine line = ct::cpu::cast_line(ct::DType::Float32, to);
  ASSERT_NE(line, nullptr);
  int64_t bad = 0;
  std::vector<uint32_t> us;
  // Every 7th bit pattern, in lines of 1000003 (odd lengths).
  for (uint64_t u = 0; u < (1ull << 32); u += 7) {
    us.push_back(static_cast<uint32_t>(u));
    if (us.size() == 1000003) {
      bad += count_differences<H>(line, us);
      us.clear();
    }
  }
  // The windows, both signs: zero and half's subnormals (below 2^-14), the edge of the normals,
  // 65504 to 65536 (overflow to inf), float's top, inf and the NaNs.
  const uint32_t windows[][2] = {{0x00000000u, 0x00100000u}, {0x33000000u, 0x33800000u}, {0x38000000u, 0x39000000u},
                                 {0x477f0000u, 0x47900000u}, {0x7f700000u, 0x7fffffffu}};
  for (auto& w : windows) {
    for (uint64_t u = w[0]; u <= w[1]; ++u)
      for (uint32_t sign : {0u, 0x80000000u}) us.push_back(static_cast<uint32_t>(u) | sign);
    bad += count_differences<H>(line, us);
    us.clear();
  }
  bad += count_differences<H>(line, us);
  EXPECT_EQ(bad, 0);
}

}  // namespace

TEST(CastHalf, Float32ToFloat16MatchesScalarBits) { expect_same_bits<ct::Half>(ct::DType::Float16); }
TEST(CastHalf, Float32ToBFloat16MatchesScalarBits) { expect_same_bits<ct::BFloat16>(ct::DType::BFloat16); }
