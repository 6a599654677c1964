// libtorch_ops_reduce.cpp - libtorch's side of bench_ops_reduce (see libtorch_ops_reduce.h).
#include "libtorch_ops_reduce.h"

#include <ATen/ATen.h>

namespace {
at::Tensor& t(void* p) { return *static_cast<at::Tensor*>(p); }
}  // namespace

extern "C" {

void lt_reduce_topk(void* a, int64_t k) { auto r = at::topk(t(a), k); }
void lt_reduce_sort(void* a) { auto r = at::sort(t(a)); }
void lt_reduce_logsumexp(void* a) { at::Tensor r = at::logsumexp(t(a), {1}); }
void lt_reduce_var(void* a) { at::Tensor r = at::var(t(a), {1}); }

void* lt_reduce_int32(void* a) { return new at::Tensor(t(a).to(at::kInt)); }

void lt_reduce_cumsum(void* a) { at::Tensor r = at::cumsum(t(a), 0); }
void lt_reduce_max_dim(void* a) { auto r = at::max(t(a), 1); }
void lt_reduce_nansum(void* a) { at::Tensor r = at::nansum(t(a), {1}); }

}  // extern "C"
