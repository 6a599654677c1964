// The counters behind Note [Allocation-failure injection] (core/fault_injection.h).
#ifdef CTORCH_FAULT_INJECTION

#include "core/fault_injection.h"

#include <atomic>

namespace ct::fault {
namespace {

std::atomic<bool> g_armed{false};
std::atomic<bool> g_persistent{false};
std::atomic<int64_t> g_fail_at{0};
std::atomic<int64_t> g_allocations{0};
std::atomic<int64_t> g_failed{0};
std::atomic<int> g_first_failure{-1};  // see ct_testing_failure_accounted_for
std::atomic<int64_t> g_round{0};       // one more at each ct_testing_fail_allocation
thread_local int64_t t_failed_round = -1;  // the round in which one of this thread's allocations failed

}  // namespace

bool allocation_fails() noexcept {
  if (!g_armed.load(std::memory_order_acquire)) return false;
  const int64_t k = g_allocations.fetch_add(1, std::memory_order_relaxed) + 1;
  const int64_t at = g_fail_at.load(std::memory_order_relaxed);
  if (k != at && !(k > at && g_persistent.load(std::memory_order_relaxed))) return false;
  g_failed.fetch_add(1, std::memory_order_relaxed);
  t_failed_round = g_round.load(std::memory_order_relaxed);
  return true;
}

// A failure about memory may come from any thread (a worker's failure is reported by the thread
// that called the operator); one about something else counts only on the thread whose allocation
// failed, since other threads may be failing on purpose meanwhile.
void failure_reported(bool about_memory) noexcept {
  if (g_failed.load(std::memory_order_relaxed) == 0) return;
  if (!about_memory && t_failed_round != g_round.load(std::memory_order_relaxed)) return;
  int none = -1;
  g_first_failure.compare_exchange_strong(none, about_memory ? 1 : 0, std::memory_order_relaxed);
}

}  // namespace ct::fault

extern "C" {

void ct_testing_fail_allocation(int64_t n, int persistent) {
  using namespace ct::fault;
  g_armed.store(false, std::memory_order_release);
  g_allocations.store(0, std::memory_order_relaxed);
  g_failed.store(0, std::memory_order_relaxed);
  g_first_failure.store(-1, std::memory_order_relaxed);
  g_round.fetch_add(1, std::memory_order_relaxed);
  g_fail_at.store(n, std::memory_order_relaxed);
  g_persistent.store(persistent != 0, std::memory_order_relaxed);
  g_armed.store(n > 0, std::memory_order_release);
}

int64_t ct_testing_allocations(void) { return ct::fault::g_allocations.load(std::memory_order_relaxed); }
int64_t ct_testing_failed_allocations(void) { return ct::fault::g_failed.load(std::memory_order_relaxed); }
int ct_testing_failure_accounted_for(void) { return ct::fault::g_first_failure.load(std::memory_order_relaxed); }

}  // extern "C"

#endif  // CTORCH_FAULT_INJECTION
