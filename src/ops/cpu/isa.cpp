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

bool has_avx512() {
#if CT_HAVE_AVX2_KERNELS
  // CTORCH_CPU_CAPABILITY=default or avx2 keeps the kernels below AVX-512.
  static const bool yes = [] {
    const char* want = std::getenv("CTORCH_CPU_CAPABILITY");
    if (want && (std::strcmp(want, "default") == 0 || std::strcmp(want, "avx2") == 0)) return false;
    return has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl");
  }();
  return yes;
#else
  return false;
#endif
}

}  // namespace ct::cpu
