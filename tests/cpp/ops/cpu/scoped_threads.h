// scoped_threads.h - the CPU pool's thread count set for one scope and restored after it, for tests
// that compare results across thread counts.
#pragma once

#include "ops/cpu/parallel.h"

class ScopedThreads {
 public:
  explicit ScopedThreads(int n) : saved_(ct::cpu::get_num_threads()) { ct::cpu::set_num_threads(n); }
  ~ScopedThreads() { ct::cpu::set_num_threads(saved_); }
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;

 private:
  int saved_;
};
