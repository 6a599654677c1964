#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "core/error.h"
#include "ops/cpu/parallel.h"
#include "scoped_threads.h"

namespace {
// Runs f on a fresh thread. Tests that make parallel_for throw use it, so that whatever state an
// exception leaves on the calling thread cannot change how later tests run.
template <typename F>
void on_fresh_thread(F f) {
  std::thread th(f);
  th.join();
}

}  // namespace

TEST(ParallelFor, CoversTheRangeExactlyOnce) {
  for (int threads : {1, 2, 3, 8}) {
    ScopedThreads t(threads);
    for (int64_t grain : {1, 7, 100, 5000}) {
      const int64_t begin = 13, end = 10013;
      std::vector<std::atomic<int>> hits(static_cast<size_t>(end));
      for (auto& h : hits) h = 0;
      std::atomic<int> chunks{0};
      ct::cpu::parallel_for(begin, end, grain, [&](int64_t b, int64_t e) {
        EXPECT_LE(begin, b);
        EXPECT_LT(b, e);
        EXPECT_LE(e, end);
        ++chunks;
        for (int64_t i = b; i < e; ++i) ++hits[static_cast<size_t>(i)];
      });
      for (int64_t i = 0; i < end; ++i)
        ASSERT_EQ(hits[static_cast<size_t>(i)].load(), i < begin ? 0 : 1)
            << "index " << i << " threads " << threads << " grain " << grain;
      EXPECT_LE(chunks.load(), threads);
    }
  }
}

TEST(ParallelFor, EmptyRangeCallsNothing) {
  bool called = false;
  ct::cpu::parallel_for(5, 5, 1, [&](int64_t, int64_t) { called = true; });
  ct::cpu::parallel_for(5, 3, 1, [&](int64_t, int64_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(ParallelFor, ChunksRespectTheGrain) {
  ScopedThreads t(4);
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> seen;
  ct::cpu::parallel_for(0, 1000, 300, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> g(mu);
    seen.emplace_back(b, e);
  });
  for (auto& c : seen)
    if (c.second != 1000) EXPECT_GE(c.second - c.first, 300);
}

TEST(ParallelFor, RethrowsAnExceptionFromAWorkerChunk) {
  ScopedThreads t(2);
  on_fresh_thread([] {
    try {
      ct::cpu::parallel_for(0, 100, 1, [](int64_t b, int64_t) {
        if (b > 0) throw std::runtime_error("worker chunk failed");
      });
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "worker chunk failed");
    }
  });
}

TEST(ParallelFor, RethrowsAnExceptionFromTheCallersChunk) {
  ScopedThreads t(2);
  on_fresh_thread([] {
    try {
      ct::cpu::parallel_for(0, 100, 1, [](int64_t b, int64_t) {
        if (b == 0) throw std::logic_error("first chunk failed");
      });
      FAIL() << "no exception";
    } catch (const std::logic_error& e) {
      EXPECT_STREQ(e.what(), "first chunk failed");
    }
  });
}

TEST(ParallelFor, RethrowsCtErrorsWithTheirStatus) {
  ScopedThreads t(2);
  on_fresh_thread([] {
    try {
      ct::cpu::parallel_for(0, 64, 1, [](int64_t, int64_t) { ct::fail(CT_ERROR_INDEX, "bad index"); });
      FAIL() << "no exception";
    } catch (const ct::Error& e) {
      EXPECT_EQ(e.status(), CT_ERROR_INDEX);
    }
  });
}

TEST(ParallelFor, PoolStillWorksAfterAnException) {
  ScopedThreads t(2);
  on_fresh_thread([] {
    EXPECT_ANY_THROW(ct::cpu::parallel_for(0, 10, 1, [](int64_t, int64_t) { throw 1; }));
    std::atomic<int64_t> sum{0};
    ct::cpu::parallel_for(0, 1000, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) sum += i;
    });
    EXPECT_EQ(sum.load(), 999 * 1000 / 2);
  });
}

namespace {
size_t distinct_threads_of_a_two_chunk_loop() {
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<int> started{0};
  ct::cpu::parallel_for(0, 2, 1, [&](int64_t, int64_t) {
    {
      std::lock_guard<std::mutex> g(mu);
      ids.insert(std::this_thread::get_id());
    }
    // Each chunk waits (up to a second) for the other to start, so the caller cannot run both
    // itself while the worker is still waking up (Note [Claimed chunks]); run inline, the loop
    // still shows one thread.
    ++started;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (started.load() < 2 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  });
  return ids.size();
}
}  // namespace

// Runs on a fresh thread, so a thread left marked "inside a parallel region" cannot leak into
// other tests.
TEST(ParallelFor, ExceptionInTheCallersChunkDoesNotLeaveTheThreadSerial) {
  ScopedThreads t(2);
  size_t before = 0, after = 0;
  std::thread th([&] {
    before = distinct_threads_of_a_two_chunk_loop();
    try {
      ct::cpu::parallel_for(0, 2, 1, [](int64_t b, int64_t) {
        if (b == 0) throw std::runtime_error("caller chunk");
      });
    } catch (const std::runtime_error&) {
    }
    after = distinct_threads_of_a_two_chunk_loop();
  });
  th.join();
  EXPECT_EQ(before, 2u);
  EXPECT_EQ(after, 2u) << "after an exception in chunk 0 the calling thread runs every later parallel_for inline";
}

TEST(ParallelFor, NestedCallsRunInline) {
  ScopedThreads t(2);
  std::atomic<int> inner_chunks{0};
  ct::cpu::parallel_for(0, 2, 1, [&](int64_t, int64_t) {
    ct::cpu::parallel_for(0, 100, 1, [&](int64_t b, int64_t e) {
      EXPECT_EQ(b, 0);
      EXPECT_EQ(e, 100);
      ++inner_chunks;
    });
  });
  EXPECT_EQ(inner_chunks.load(), 2);
}

TEST(ParallelFor, SetNumThreadsIsReadBack) {
  const int saved = ct::cpu::get_num_threads();
  ct::cpu::set_num_threads(3);
  EXPECT_EQ(ct::cpu::get_num_threads(), 3);
  ct::cpu::set_num_threads(saved);
  EXPECT_EQ(ct::cpu::get_num_threads(), saved);
}

// Note [Thread pools across fork]: a forked child has none of the pool's workers; its first
// parallel job must start new ones instead of waiting for the parent's forever.
TEST(ParallelFor, AForkedChildStartsItsOwnPool) {
  ScopedThreads t(4);
  std::atomic<int> before{0};
  ct::cpu::parallel_for(0, 4000, 1000, [&](int64_t, int64_t) { ++before; });  // the parent's pool exists
  ASSERT_EQ(before.load(), 4);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(30);  // a hang ends the child by SIGALRM, which the parent reports
    std::atomic<int> chunks{0};
    std::set<std::thread::id> ids;
    std::mutex mu;
    ct::cpu::parallel_for(0, 4000, 1000, [&](int64_t, int64_t) {
      ++chunks;
      {
        std::lock_guard<std::mutex> g(mu);
        ids.insert(std::this_thread::get_id());
      }
      // Each chunk waits until a second thread has taken one, so the caller cannot run them all
      // before the new workers start (Note [Claimed chunks]) however slowly they do: a fixed sleep
      // of 20 ms was too short under ASan on a loaded machine. A pool that never starts workers
      // still fails, after the deadline.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      for (;;) {
        {
          std::lock_guard<std::mutex> g(mu);
          if (ids.size() > 1) break;
        }
        if (std::chrono::steady_clock::now() > deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
    _exit(chunks.load() == 4 && ids.size() > 1 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child did not exit (signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                 << "): its parallel job waited for the parent's workers";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child's job did not run in 4 chunks on several threads";
}
