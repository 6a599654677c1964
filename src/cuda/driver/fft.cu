// fft.cu - the Fourier transforms of torch.fft on cuFFT (ct_cuda_fft): complex to complex, real to
// the half spectrum and back, over the innermost 1 to 3 dims of a batch of contiguous signals.
//
// Making a cuFFT plan costs far more than a small transform, so plans are kept in one pool of the
// 32 most recent, by (device, kind, precision, sizes, batch). A call takes its plan out of the pool
// while it binds the stream and the work area and enqueues the transform, so no two threads use a
// plan at once, and puts it back after. The work area is the caller's (fft_workspace sizes it;
// ctorch's caching allocator lends it in stream order), never the plan's own: a plan back in the
// pool holds no memory of the call that used it. Plans are never destroyed at exit (destroying
// them then races the driver's teardown, as handle_pool.h says of handles); one evicted from a
// full pool is.
#include <cufft.h>

#include <mutex>
#include <vector>

#include "dtype.h"
#include "members.h"
#include "status.h"

namespace ct::cuda {
namespace {

const char* cufft_name(cufftResult r) {
  switch (r) {
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "cufftResult";
  }
}

int check_cufft(cufftResult r, const char* what) {
  if (r == CUFFT_SUCCESS) return 0;
  cudaGetLastError();
  const int code = r == CUFFT_ALLOC_FAILED ? CT_CUDA_ERR_OOM : CT_CUDA_ERR_CUFFT;
  return fail(code, "%s failed: %s (%d)", what, cufft_name(r), static_cast<int>(r));
}

#define CT_CUFFT_TRY(call)                                     \
  do {                                                         \
    if (const int st_ = check_cufft((call), #call)) return st_; \
  } while (0)

struct PlanKey {
  int device = 0, kind = 0, dtype = 0, rank = 0;
  long long n[3] = {1, 1, 1};
  long long batch = 0;
  bool operator==(const PlanKey& o) const {
    return device == o.device && kind == o.kind && dtype == o.dtype && rank == o.rank && n[0] == o.n[0] &&
           n[1] == o.n[1] && n[2] == o.n[2] && batch == o.batch;
  }
};

struct Plan {
  PlanKey key;
  cufftHandle handle = 0;
  size_t work_bytes = 0;
};

cufftType type_of(const PlanKey& k) {
  const bool wide = k.dtype == kF64;
  switch (k.kind) {
    case CT_CUDA_FFT_R2C: return wide ? CUFFT_D2Z : CUFFT_R2C;
    case CT_CUDA_FFT_C2R: return wide ? CUFFT_Z2D : CUFFT_C2R;
    default: return wide ? CUFFT_Z2Z : CUFFT_C2C;
  }
}

// A new plan for key on the current device, without a work area of its own.
int make_plan(const PlanKey& key, Plan* out) {
  cufftHandle h = 0;
  CT_CUFFT_TRY(cufftCreate(&h));
  long long n[3] = {key.n[0], key.n[1], key.n[2]};
  size_t work = 0;
  int st = check_cufft(cufftSetAutoAllocation(h, 0), "cufftSetAutoAllocation");
  // NULL embeddings: cuFFT's basic layout, each signal contiguous and the next right after it.
  if (!st)
    st = check_cufft(cufftMakePlanMany64(h, key.rank, n, nullptr, 1, 0, nullptr, 1, 0, type_of(key), key.batch, &work),
                     "cufftMakePlanMany64");
  if (st) {
    cufftDestroy(h);
    return st;
  }
  *out = Plan{key, h, work};
  return 0;
}

class PlanPool {
 public:
  static constexpr size_t kKept = 32;

  // The plan for key, out of the pool (the most recent such) or new.
  int take(const PlanKey& key, Plan* out) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t i = plans_.size(); i-- > 0;) {
        if (!(plans_[i].key == key)) continue;
        *out = plans_[i];
        plans_.erase(plans_.begin() + static_cast<std::ptrdiff_t>(i));
        return 0;
      }
    }
    return make_plan(key, out);
  }

  // Puts p back as the most recent; the oldest goes when more than kKept are kept.
  void give_back(const Plan& p) {
    Plan evicted;
    bool evict = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      plans_.push_back(p);
      if (plans_.size() > kKept) {
        evicted = plans_.front();
        plans_.erase(plans_.begin());
        evict = true;
      }
    }
    if (evict) cufftDestroy(evicted.handle);
  }

 private:
  std::mutex mutex_;
  std::vector<Plan> plans_;
};

PlanPool& pool() {
  static PlanPool* p = new PlanPool;  // leaked on purpose: see the top of the file
  return *p;
}

int check_args(const ct_cuda_fft* a) {
  CT_CUDA_ARG(a != nullptr, "fft: args is NULL");
  CT_CUDA_ARG(a->kind >= CT_CUDA_FFT_C2C && a->kind <= CT_CUDA_FFT_C2R, "fft: unknown kind %d", a->kind);
  CT_CUDA_ARG(a->dtype == kF32 || a->dtype == kF64, "fft: dtype %s; the transforms run in float32 or float64 "
              "(complex64 or complex128 data)", dtype_name(a->dtype));
  CT_CUDA_ARG(a->rank >= 1 && a->rank <= 3, "fft: rank %d; a plan transforms 1 to 3 dims", a->rank);
  for (int i = 0; i < a->rank; ++i)
    CT_CUDA_ARG(a->n[i] >= 1, "fft: size %lld along dim %d of the signal; each must be at least 1",
                (long long)a->n[i], i);
  CT_CUDA_ARG(a->batch >= 0, "fft: negative batch %lld", (long long)a->batch);
  CT_CUDA_ARG(a->batch == 0 || (a->in && a->out), "fft: in or out is NULL");
  CT_CUDA_ARG(a->kind == CT_CUDA_FFT_C2C || a->in != a->out || a->batch == 0,
              "fft: a real transform cannot run in place; pass an output of its own");
  return 0;
}

PlanKey key_of(const ct_cuda_fft* a, int device) {
  PlanKey k;
  k.device = device;
  k.kind = a->kind;
  k.dtype = a->dtype;
  k.rank = a->rank;
  for (int i = 0; i < a->rank; ++i) k.n[i] = a->n[i];
  k.batch = a->batch;
  return k;
}

int exec(const Plan& p, const ct_cuda_fft* a) {
  const bool wide = a->dtype == kF64;
  switch (a->kind) {
    case CT_CUDA_FFT_R2C:
      if (wide) CT_CUFFT_TRY(cufftExecD2Z(p.handle, static_cast<cufftDoubleReal*>(a->in),
                                          static_cast<cufftDoubleComplex*>(a->out)));
      else CT_CUFFT_TRY(cufftExecR2C(p.handle, static_cast<cufftReal*>(a->in), static_cast<cufftComplex*>(a->out)));
      return 0;
    case CT_CUDA_FFT_C2R:
      if (wide) CT_CUFFT_TRY(cufftExecZ2D(p.handle, static_cast<cufftDoubleComplex*>(a->in),
                                          static_cast<cufftDoubleReal*>(a->out)));
      else CT_CUFFT_TRY(cufftExecC2R(p.handle, static_cast<cufftComplex*>(a->in), static_cast<cufftReal*>(a->out)));
      return 0;
    default: {
      const int direction = a->inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
      if (wide) CT_CUFFT_TRY(cufftExecZ2Z(p.handle, static_cast<cufftDoubleComplex*>(a->in),
                                          static_cast<cufftDoubleComplex*>(a->out), direction));
      else CT_CUFFT_TRY(cufftExecC2C(p.handle, static_cast<cufftComplex*>(a->in), static_cast<cufftComplex*>(a->out),
                                     direction));
      return 0;
    }
  }
}

// args checked, and the plan for them on the current device taken out of the pool; an empty batch
// needs none (*taken stays false).
int take_plan(const ct_cuda_fft* args, Plan* p, bool* taken) {
  *taken = false;
  if (const int st = check_args(args)) return st;
  if (args->batch == 0) return 0;
  int device = 0;
  CT_CUDA_TRY(cudaGetDevice(&device));
  if (const int st = pool().take(key_of(args, device), p)) return st;
  *taken = true;
  return 0;
}

}  // namespace

int fft_workspace(const ct_cuda_fft* args, size_t* bytes) {
  CT_CUDA_ARG(bytes != nullptr, "fft_workspace: bytes is NULL");
  *bytes = 0;
  Plan p;
  bool taken = false;
  if (const int st = take_plan(args, &p, &taken)) return st;
  if (!taken) return 0;
  *bytes = p.work_bytes;
  pool().give_back(p);
  return 0;
}

int fft(const ct_cuda_fft* args, void* workspace, size_t workspace_bytes, void* stream) {
  Plan p;
  bool taken = false;
  if (const int st = take_plan(args, &p, &taken)) return st;
  if (!taken) return 0;
  int st = 0;
  if (workspace_bytes < p.work_bytes || (p.work_bytes > 0 && !workspace))
    st = fail(CT_CUDA_ERR_INVALID_ARGUMENT,
              "fft: the workspace has %zu bytes, fewer than the %zu fft_workspace asked for", workspace_bytes,
              p.work_bytes);
  if (!st) st = check_cufft(cufftSetStream(p.handle, as_stream(stream)), "cufftSetStream");
  if (!st && p.work_bytes > 0) st = check_cufft(cufftSetWorkArea(p.handle, workspace), "cufftSetWorkArea");
  if (!st) st = exec(p, args);
  pool().give_back(p);
  return st;
}

}  // namespace ct::cuda
