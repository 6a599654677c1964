// sampling.cpp - CUDA compute for bernoulli, bernoulli.p, bernoulli_.float, randint.low, randperm
// and multinomial, with the cpu's numbers for the same seed and offset: every call reserves the
// blocks the cpu reserves (ops/random/random.cpp, sampling.cpp), after the same checks, and the
// table's sampling members (sampling.cu) map them to elements as the cpu does.
//
// randperm and multinomial without replacement sort random keys with the table's stable sort
// (ties by index, as the cpu's std::sort of (key, index) pairs and its partial_sort do), so they
// run in parallel; multinomial with replacement computes each row's running totals with one thread
// per row, in the cpu's order, then the samples in parallel.
//
// Probabilities are checked on the device before anything is drawn: the first bad index or row
// comes back in one 8-byte flag (see Note [CUDA index errors] in index.cpp), and only then is the
// offending value (or row) copied back, so the error is the cpu's message and the generator has
// not moved, as on the cpu.
#include <climits>
#include <cmath>
#include <vector>

#include "core/error.h"
#include "cuda/driver_members.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "dispatch/dispatcher.h"
#include "ops/random/random_common.h"

namespace ct::cuda {
namespace {

uint64_t blocks_for(int64_t n, int64_t per_block) { return static_cast<uint64_t>((n + per_block - 1) / per_block); }

// Runs check_probabilities over p (contiguous float64 [rows, cols] on the device) and returns the
// first failing flat index or row, -1 when none.
int64_t first_failure(const char* op, int mode, const TensorImpl& p, int64_t rows, int64_t cols, int64_t k,
                      void* stream) {
  if (rows * cols == 0) return -1;
  const Tensor err = empty_on({1}, DType::Int64, p.device());
  const ct_cuda_driver& d = CT_CUDA_DRIVER_WITH(op, check_probabilities);
  check(d.check_probabilities(mode, p.data_as<double>(), rows, cols, k, err->data_as<int64_t>(), stream),
        op);
  return read_back<int64_t>(op, err->data(), 1, stream)[0];
}

// out (contiguous, any dtype) = 1 with probability p[i] (p: contiguous float64 of out's numel, or
// NULL for p_scalar), else 0: ceil(n / 4) blocks, as fill_bernoulli.
void draw_bernoulli(const char* op, const TensorImpl& out, runtime::Generator& g, const double* p, double p_scalar) {
  const int64_t n = out.numel();
  const runtime::PhiloxRange r = g.reserve(blocks_for(n, 4));
  if (n == 0) return;
  const ct_cuda_driver& d = CT_CUDA_DRIVER_WITH(op, philox_bernoulli);
  check(d.philox_bernoulli(code(out.dtype()), out.data(), n, r.seed, r.first, p, p_scalar, stream_for(out)),
        op);
}

// ---- bernoulli(Tensor self, *, Generator? generator=None): self holds the probabilities

void bernoulli_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* op = "bernoulli";
  const TensorImpl& out = *outs[0];
  void* stream = stream_for(out);
  const Tensor p = contiguous_as(f.tensor(0), DType::Float64);
  const int64_t bad = first_failure(op, CT_CUDA_CHECK_BERNOULLI, *p, 1, p->numel(), 0, stream);
  if (bad >= 0) {
    const double v = read_back<double>(op, p->data_as<double>() + bad, 1, stream)[0];
    fail(CT_ERROR_INVALID_ARGUMENT, str("bernoulli: probability ", v, " at flat index ", bad,
                                        " is outside [0, 1]. Clamp the probabilities first"));
  }
  draw_bernoulli(op, out, ops::random_generator(f.arg(1), out.device()), p->data_as<double>(), 0.0);
}

void check_probability(const char* op, double p) {
  CT_CHECK(p >= 0 && p <= 1, CT_ERROR_INVALID_ARGUMENT, op, ": p is ", p, ". Pass a probability in [0, 1]");
}

// ---- bernoulli.p(Tensor self, float p, *, Generator? generator=None)

void bernoulli_p_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  draw_bernoulli("bernoulli", out, ops::random_generator(f.arg(2), out.device()), nullptr, f.arg(1).to_double());
}

// ---- bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None): a non-contiguous
// self is filled through a contiguous temporary, as fill_self does on the cpu.

void bernoulli_inplace_cuda(void*, Frame& f) {
  const TensorImpl& self = f.tensor(0);
  const char* name = f.op.schema.name.c_str();
  const double p = f.arg(1).to_double();
  check_probability(name, p);
  runtime::Generator& g = ops::random_generator(f.arg(f.nargs - 1), self.device());  // generator comes last
  if (self.is_contiguous()) {
    draw_bernoulli(name, self, g, nullptr, p);
  } else {
    const Tensor tmp = empty_on(self.sizes(), self.dtype(), self.device());
    draw_bernoulli(name, *tmp, g, nullptr, p);
    copy_into(name, self, *tmp, stream_for(self));
  }
  self.storage()->bump_version();
  f.outs[0] = Tensor::borrow(&self);
}

// ---- randint.low(int low, int high, int[] size, *, Generator? generator=None, ScalarType? dtype=None,
//      Device? device=None)

void randint_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  const int64_t low = f.arg(0).to_int(), high = f.arg(1).to_int(), n = out.numel();
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  runtime::Generator& g = ops::random_generator(f.arg(3), out.device());
  const runtime::PhiloxRange r = g.reserve(blocks_for(n, range <= (uint64_t{1} << 32) ? 4 : 2));
  if (n == 0) return;
  const ct_cuda_driver& d = CT_CUDA_DRIVER_WITH("randint", philox_randint);
  check(d.philox_randint(code(out.dtype()), out.data(), n, r.seed, r.first, low, high, stream_for(out)),
        "randint");
}

// Sorts each row of keys ([rows, cols], contiguous, dtype) stably into indices (int64 [rows, cols]).
void sort_rows(const char* op, const TensorImpl& keys, bool descending, int64_t rows, int64_t cols, int64_t* indices,
               void* stream) {
  const ct_cuda_driver& d = driver();
  size_t bytes = 0;
  check(d.sort_workspace(code(keys.dtype()), rows, cols, &bytes), op);
  Tensor ws;
  if (bytes) ws = empty_on({static_cast<int64_t>(bytes)}, DType::UInt8, keys.device());
  check(d.sort(code(keys.dtype()), descending ? 1 : 0, nullptr, indices, keys.data(), rows, cols,
               ws.defined() ? ws->data() : nullptr, bytes, stream),
        op);
}

void check_sortable(const char* op, int64_t n) {
  CT_CHECK(n <= INT_MAX, CT_ERROR_NOT_IMPLEMENTED, op, ": on cuda at most 2^31 - 1 keys are sorted per call, got ", n,
           ". Draw on the cpu and copy the result to cuda");
}

// ---- randperm(int n, *, Generator? generator=None, ScalarType? dtype=None, Device? device=None)

void randperm_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* op = "randperm";
  const TensorImpl& out = *outs[0];
  const int64_t n = out.numel();
  check_sortable(op, n);
  runtime::Generator& g = ops::random_generator(f.arg(1), out.device());
  const runtime::PhiloxRange r = g.reserve(blocks_for(n, 2));
  if (n == 0) return;
  void* stream = stream_for(out);
  const Tensor keys = empty_on({n}, DType::Int64, out.device());
  const ct_cuda_driver& d = CT_CUDA_DRIVER_WITH(op, philox_sort_keys);
  check(d.philox_sort_keys(CT_CUDA_SORT_KEYS_RANDPERM, keys->data(), nullptr, n, r.seed, r.first, stream),
        op);
  if (out.dtype() == DType::Int64) {
    sort_rows(op, *keys, false, 1, n, out.data_as<int64_t>(), stream);
    return;
  }
  const Tensor idx = empty_on({n}, DType::Int64, out.device());
  sort_rows(op, *keys, false, 1, n, idx->data_as<int64_t>(), stream);
  copy_into(op, out, *idx, stream);  // exact: the meta checked n - 1 fits the dtype
}

// ---- multinomial(Tensor self, int num_samples, bool replacement=False, *, Generator? generator=None)

// Raises the cpu's error for row r (host copy of its weights), which check_probabilities found bad.
[[noreturn]] void fail_row(const std::vector<double>& w, int64_t r, int64_t k, bool replacement) {
  ops::check_multinomial_row(w.data(), static_cast<int64_t>(w.size()), r, k, replacement);
  fail(CT_ERROR_INTERNAL, str("multinomial: the device check refused row ", r, ", which passes on the host"));
}

void multinomial_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const char* op = "multinomial";
  const TensorImpl& out = *outs[0];
  void* stream = stream_for(out);
  const Tensor p = contiguous_as(f.tensor(0), DType::Float64);
  const int64_t cols = p->size(p->dim() - 1), rows = p->numel() / cols, k = f.arg(1).to_int();
  const bool replacement = f.arg(2).to_bool();
  const double* pd = p->data_as<double>();
  const int64_t bad = first_failure(op, CT_CUDA_CHECK_MULTINOMIAL, *p, rows, cols, replacement ? 1 : k, stream);
  if (bad >= 0) fail_row(read_back<double>(op, pd + bad * cols, cols, stream), bad, k, replacement);
  if (!replacement) check_sortable(op, rows * cols);
  runtime::Generator& g = ops::random_generator(f.arg(3), out.device());
  const ct_cuda_driver& d = CT_CUDA_DRIVER_WITH(op, multinomial_replacement);
  if (replacement) {
    const runtime::PhiloxRange r = g.reserve(blocks_for(rows * k, 2));
    if (rows == 0) return;
    const Tensor ws = empty_on({rows * cols + rows}, DType::Float64, out.device());
    check(d.multinomial_replacement(out.data_as<int64_t>(), pd, rows, cols, k, r.seed, r.first, ws->data(), stream),
          op);
    return;
  }
  // Without replacement: the k largest keys of each row, in order (Efraimidis and Spirakis).
  const runtime::PhiloxRange r = g.reserve(blocks_for(rows * cols, 2));
  if (rows == 0) return;
  const Tensor keys = empty_on({rows, cols}, DType::Float64, out.device());
  check(d.philox_sort_keys(CT_CUDA_SORT_KEYS_MULTINOMIAL, keys->data(), pd, rows * cols, r.seed, r.first, stream), op);
  if (k == cols) {
    sort_rows(op, *keys, true, rows, cols, out.data_as<int64_t>(), stream);
    return;
  }
  const Tensor idx = empty_on({rows, cols}, DType::Int64, out.device());
  sort_rows(op, *keys, true, rows, cols, idx->data_as<int64_t>(), stream);
  // The first k columns of idx, seen with out's sizes.
  DimVector strides;
  if (out.dim() == 2) strides.push_back(cols);
  strides.push_back(1);
  const Tensor first_k = Tensor::adopt(TensorImpl::view_of(*idx, out.sizes(), strides, 0));
  copy_into(op, out, *first_k, stream);
}

}  // namespace

void register_sampling_kernels(Registry& r) {
  set_cuda_compute(r, "bernoulli", bernoulli_cuda);
  set_cuda_compute(r, "bernoulli.p", bernoulli_p_cuda);
  set_cuda_kernel(r, "bernoulli_.float", bernoulli_inplace_cuda);
  set_cuda_compute(r, "randint.low", randint_cuda);
  set_cuda_compute(r, "randperm", randperm_cuda);
  set_cuda_compute(r, "multinomial", multinomial_cuda);
}

}  // namespace ct::cuda
