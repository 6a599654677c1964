#include "ops/cpu/parallel.h"

#include "ops/cpu/denormals.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <pthread.h>

extern "C" void openblas_set_num_threads(int);
extern "C" int openblas_get_num_threads(void);

namespace ct::cpu {
namespace {

thread_local bool t_in_parallel = false;

// Note [Spinning before sleeping]
// Waking a thread that sleeps on a condition variable takes a futex call and a reschedule: tens of
// microseconds on a virtual machine whose idle vCPU was halted (65 us per parallel region was
// measured on a 2-vCPU VM), more than the whole of a 0.5 MiB copy. So a worker that finishes a job
// spins for kSpinFor on the job word before it sleeps, and the caller spins as long on the count of
// unfinished chunks before it sleeps; back-to-back operators then hand work over through memory, as
// OpenMP's spinning workers do. The spin is bounded so an idle process gives its cores back.
constexpr auto kSpinFor = std::chrono::microseconds(200);

// Spins until done() or kSpinFor has passed; true when done() was seen.
template <typename Done>
bool spin_until(const Done& done) {
  const auto until = std::chrono::steady_clock::now() + kSpinFor;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    if (std::chrono::steady_clock::now() >= until) return done();
  }
}

// Note [Claimed chunks]
// A job's chunks 1..n-1 are claimed one at a time from job_ (the job's generation in the high 32
// bits, the next unclaimed chunk in the low 32), by the workers and, once its own chunk 0 is done,
// by the caller too. A worker whose core is busy with another process can take milliseconds to be
// scheduled; the caller then runs that worker's chunk itself instead of waiting for it. A claim
// names the generation, so a worker that wakes late never runs a chunk of a later job with an
// earlier job's function. The chunks are the same whoever runs them, so results are too.
//
// One job at a time; concurrent callers take turns on job_mu.
class Pool {
 public:
  explicit Pool(int workers) {
    // Detached: pools live until the process ends (see g_pool). A thread that cannot be started
    // (no memory for its state, or no thread left) leaves the pool smaller instead of failing its
    // construction: the threads already started use this object, which must then never go away.
    for (; workers_ < workers; ++workers_) {
      try {
        std::thread([this] { loop(); }).detach();
      } catch (const std::exception&) {
        break;
      }
    }
  }
  int workers() const { return workers_; }

  // Runs task(i) for i in [0, n): index 0 on the caller, the rest on whichever thread claims it.
  void run(int n, const std::function<void(int)>& task) {
    std::lock_guard<std::mutex> job(job_mu_);
    uint64_t gen;
    {
      std::lock_guard<std::mutex> g(mu_);
      task_ = &task;
      denormals_ = denormal_mode();  // the workers compute as the caller does (set_flush_denormal)
      n_ = n;
      pending_.store(n - 1, std::memory_order_relaxed);
      error_ = nullptr;
      gen = (job_.load(std::memory_order_relaxed) >> 32) + 1;
      job_.store(gen << 32 | 1, std::memory_order_release);
    }
    cv_.notify_all();
    std::exception_ptr mine;
    try {
      task(0);
    } catch (...) {
      mine = std::current_exception();
    }
    run_chunks(gen, &task, n);
    spin_until([this] { return pending_.load(std::memory_order_acquire) == 0; });
    std::unique_lock<std::mutex> g(mu_);
    done_cv_.wait(g, [this] { return pending_.load(std::memory_order_relaxed) == 0; });
    task_ = nullptr;
    if (mine) std::rethrow_exception(mine);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // Runs chunks of job gen while some are unclaimed (Note [Claimed chunks]). task is only called
  // after a claim succeeded, which means the job is still running and task is its function.
  void run_chunks(uint64_t gen, const std::function<void(int)>* task, int n) {
    for (;;) {
      uint64_t v = job_.load(std::memory_order_acquire);
      if ((v >> 32) != gen || static_cast<int64_t>(v & 0xffffffffu) >= n) return;
      if (!job_.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel)) continue;
      std::exception_ptr err;
      try {
        (*task)(static_cast<int>(v & 0xffffffffu));
      } catch (...) {
        err = std::current_exception();
      }
      if (err) {
        std::lock_guard<std::mutex> g(mu_);
        if (!error_) error_ = err;
      }
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> g(mu_);  // the caller checks pending_ under mu_ before it sleeps
        done_cv_.notify_one();
      }
    }
  }

  [[noreturn]] void loop() {
    t_in_parallel = true;
    uint64_t seen = 0;
    for (;;) {
      spin_until([&] { return (job_.load(std::memory_order_acquire) >> 32) != seen; });
      const std::function<void(int)>* task;
      uint32_t denormals;
      int n;
      {
        std::unique_lock<std::mutex> g(mu_);
        cv_.wait(g, [&] { return (job_.load(std::memory_order_relaxed) >> 32) != seen; });
        seen = job_.load(std::memory_order_relaxed) >> 32;
        task = task_;
        denormals = denormals_;
        n = n_;
      }
      apply_denormal_mode(denormals);
      run_chunks(seen, task, n);
    }
  }

  int workers_ = 0;
  std::mutex job_mu_;
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int)>* task_ = nullptr;
  uint32_t denormals_ = 0;
  int n_ = 0;
  std::atomic<int> pending_{0};    // chunks 1..n-1 not finished; written under mu_ or atomically
  std::atomic<uint64_t> job_{0};   // generation << 32 | next unclaimed chunk; read while spinning
  std::exception_ptr error_;
};

int default_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(std::min(n, 64u)) : 1;
}

std::atomic<int> g_num_threads{default_threads()};
std::mutex g_pool_mu;
// Grown on demand. A smaller pool that is replaced is never deleted, because another thread may
// still be running a job on it; its workers just sleep.
std::atomic<Pool*> g_pool{nullptr};

// Note [Thread pools across fork]
// A forked child has only the thread that called fork: the pool's workers are gone, and a job
// handed to them would wait forever. The child forgets the pool (its memory stays, unused) and
// starts a new one on its first parallel job, as torch's pools do; Python's DataLoader workers and
// multiprocessing rely on it. fork() must not run while another thread is inside a ctorch call (the
// mutexes would be copied locked), which is fork's rule for any threaded library.
void forget_pool_in_child() { g_pool.store(nullptr, std::memory_order_relaxed); }

Pool& pool_with(int workers) {
  Pool* p = g_pool.load(std::memory_order_acquire);
  if (p && p->workers() >= workers) return *p;
  static const bool forgets_in_child = pthread_atfork(nullptr, nullptr, forget_pool_in_child) == 0;
  (void)forgets_in_child;  // without the handler (no memory), a child must keep to one thread
  std::lock_guard<std::mutex> g(g_pool_mu);
  p = g_pool.load(std::memory_order_acquire);
  if (!p || p->workers() < workers) {
    Pool* grown = new Pool(std::max(workers, default_threads() - 1));
    if (p && grown->workers() <= p->workers()) {
      // Too few of its threads started (no memory or threads left): keep the current pool. One
      // that started none is seen by no thread and can go; repeated failures then leak nothing.
      if (grown->workers() == 0) delete grown;
      return *p;
    }
    p = grown;
    g_pool.store(p, std::memory_order_release);
  }
  return *p;
}

}  // namespace

void set_num_threads(int n) {
  g_num_threads.store(n, std::memory_order_relaxed);
  openblas_set_num_threads(n);
}

int get_num_threads() { return g_num_threads.load(std::memory_order_relaxed); }

SingleThreadedBlas::SingleThreadedBlas() : saved_(openblas_get_num_threads()) {
  if (saved_ != 1) openblas_set_num_threads(1);
}
SingleThreadedBlas::~SingleThreadedBlas() {
  if (saved_ != 1) openblas_set_num_threads(saved_);
}

void parallel_blas_calls(int64_t count, const std::function<void(int64_t, int64_t)>& f) {
  const int threads = get_num_threads();
  if (count < 2 || threads < 2 || t_in_parallel) {
    f(0, count);
    return;
  }
  SingleThreadedBlas one;
  parallel_for(0, count, 1, f);
}

void parallel_for(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  int64_t chunks = std::min<int64_t>(get_num_threads(), n / grain);  // rounded down: chunks >= grain
  if (chunks <= 1 || t_in_parallel) {
    f(begin, end);
    return;
  }
  Pool& p = pool_with(static_cast<int>(chunks) - 1);
  chunks = std::min<int64_t>(chunks, p.workers() + 1);
  const int64_t step = (n + chunks - 1) / chunks;
  chunks = (n + step - 1) / step;
  p.run(static_cast<int>(chunks), [&](int i) {
    struct Flag {  // restores the caller's flag even when f throws
      bool was = t_in_parallel;
      Flag() { t_in_parallel = true; }
      ~Flag() { t_in_parallel = was; }
    } flag;
    int64_t b = begin + i * step;
    f(b, std::min(end, b + step));
  });
}

}  // namespace ct::cpu
