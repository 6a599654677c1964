// handle_pool.h - one library handle (cuBLAS, cuSOLVER) per (thread, device), as blas.cu's Note
// [cuBLAS handles and determinism] explains: a handle is bound to the call's stream each time, and
// a fixed handle with fixed settings gives the same bits for the same call on one GPU model.
// Handles are never destroyed (destroying them at exit races the driver's teardown); a thread that
// ends returns its handles to a pool that the next thread reuses.
#pragma once

#include <cuda_runtime.h>

#include <mutex>
#include <vector>

#include "status.h"

namespace ct::cuda {

template <typename H>
class HandlePool {
 public:
  /// The calling thread's handle for the current device. The first use on a (thread, device) takes
  /// one another thread left in the pool, or makes one with create(&handle), which returns 0 or a
  /// table status (and cleans up after itself on failure).
  template <typename Create>
  static int get(H* out, Create&& create) {
    int device = 0;
    CT_CUDA_TRY(cudaGetDevice(&device));
    for (const Entry& e : mine_.entries)
      if (e.device == device) return *out = e.handle, 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      std::vector<Entry>& pool = *pool_;
      for (size_t k = 0; k < pool.size(); ++k) {
        if (pool[k].device != device) continue;
        mine_.entries.push_back(pool[k]);
        pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(k));
        return *out = mine_.entries.back().handle, 0;
      }
    }
    H h{};
    if (const int st = create(&h)) return st;
    mine_.entries.push_back(Entry{h, device});
    *out = h;
    return 0;
  }

 private:
  struct Entry {
    H handle;
    int device;
  };
  struct Mine {
    std::vector<Entry> entries;
    ~Mine() {
      std::lock_guard<std::mutex> lock(mutex_);
      pool_->insert(pool_->end(), entries.begin(), entries.end());
    }
  };
  static inline std::mutex mutex_;
  static inline std::vector<Entry>* pool_ = new std::vector<Entry>();  // leaked on purpose: see above
  static inline thread_local Mine mine_;
};

}  // namespace ct::cuda
