#include "ops/cpu/denormals.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define CT_HAVE_MXCSR 1
#else
#define CT_HAVE_MXCSR 0
#endif

namespace ct::cpu {
namespace {

#if CT_HAVE_MXCSR
constexpr uint32_t kFlushToZero = 0x8000, kDenormalsAreZero = 0x0040, kBits = kFlushToZero | kDenormalsAreZero;
#endif

}  // namespace

bool set_flush_denormal(bool on) {
#if CT_HAVE_MXCSR
  // Every x86-64 CPU has FTZ and DAZ (SSE2), but an emulator may keep the bits and ignore them
  // (valgrind does): the mode counts as supported only when a denormal product does flush.
  apply_denormal_mode(on ? kBits : 0);
  if (!on) return true;
  volatile float denormal = 1e-39f;
  volatile float product = denormal * 1.0f;
  if (product == 0.0f) return true;
  apply_denormal_mode(0);
  return false;
#else
  (void)on;
  return false;
#endif
}

uint32_t denormal_mode() {
#if CT_HAVE_MXCSR
  return _mm_getcsr() & kBits;
#else
  return 0;
#endif
}

void apply_denormal_mode(uint32_t mode) {
#if CT_HAVE_MXCSR
  const uint32_t csr = _mm_getcsr();
  if ((csr & kBits) != mode) _mm_setcsr((csr & ~kBits) | mode);
#else
  (void)mode;
#endif
}

}  // namespace ct::cpu
