#include "ops/cpu/isa.h"

#include <cstdlib>
#include <cstring>

namespace ct::cpu {

bool has_avx2() {
#if CT_HAVE_AVX2_KERNELS
  // CTORCH_CPU_CAPABILITY=default keeps the baseline kernels (to compare, or to debug).
  static const bool yes = [] {
    const char* want = std::getenv("CTORCH_CPU_CAPABILITY");
    if (want && std::strcmp(want, "default") == 0) return false;
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return yes;
#else
  return false;
#endif
}

}  // namespace ct::cpu
