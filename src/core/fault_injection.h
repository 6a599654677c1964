// fault_injection.h - allocation-failure injection for the hardening tests (docs/reliability.md).
//
// Note [Allocation-failure injection]
// A build configured with CTORCH_FAULT_INJECTION=ON makes every allocation of the library countable
// and failable: operator new and its variants (replaced inside libctorch.so only, see
// core/fault_new.cpp) and the library's direct malloc/aligned_alloc calls, which go through
// ct::fault::malloc and ct::fault::aligned_alloc below. tests/fault/test_alloc_failure.c arms the
// n-th allocation to fail, for every n a scenario performs, the way SQLite's malloc tests do, and
// checks that each failure comes back as a status with no leak and no crash. In every other build
// the check is a constant false and the wrappers are the C library's functions. The test, in C,
// includes this header for the ct_testing_* functions.
#pragma once

#include <stdint.h>

#include "ctorch.h"

#ifdef CTORCH_FAULT_INJECTION
#ifdef __cplusplus
extern "C" {
#endif
/* Arms injection: the n-th allocation from now (n >= 1) fails, and with persistent != 0 every
   allocation after it too; n == 0 disarms. Resets the counters below. Any thread. */
CT_API void ct_testing_fail_allocation(int64_t n, int persistent);
/* Allocations counted since the last ct_testing_fail_allocation. */
CT_API int64_t ct_testing_allocations(void);
/* Allocations failed by injection since the last ct_testing_fail_allocation. */
CT_API int64_t ct_testing_failed_allocations(void);
/* How the library accounted for an injected allocation failure (since the last
   ct_testing_fail_allocation), from the first of these to happen after it: 1 a ct_* function on
   any thread reported that memory ran out (CT_ERROR_OUT_OF_MEMORY, or a message lost for want of
   memory), or the library absorbed the failure on purpose (a cache that keeps nothing, a profiler
   span dropped); 0 a ct_* function on the thread whose allocation failed reported another
   failure; -1 nothing yet. */
CT_API int ct_testing_failure_accounted_for(void);
#ifdef __cplusplus
}
#endif
#endif

#ifdef __cplusplus
#include <cstddef>
#include <cstdlib>

namespace ct::fault {

#ifdef CTORCH_FAULT_INJECTION
/// Counts one allocation; true when injection says it must fail.
bool allocation_fails() noexcept;
/// Records a failure the C ABI reports (see ct_testing_failure_accounted_for).
void failure_reported(bool about_memory) noexcept;
/// Records a failed allocation the library absorbs on purpose, reporting nothing.
inline void failure_absorbed() noexcept { failure_reported(true); }
#else
constexpr bool allocation_fails() noexcept { return false; }
constexpr void failure_reported(bool) noexcept {}
constexpr void failure_absorbed() noexcept {}
#endif

inline void* malloc(size_t n) noexcept { return allocation_fails() ? nullptr : std::malloc(n); }
inline void* aligned_alloc(size_t align, size_t n) noexcept {
  return allocation_fails() ? nullptr : std::aligned_alloc(align, n);
}

}  // namespace ct::fault
#endif  // __cplusplus
