// libtorch_ops_index.cpp - the libtorch side of bench_ops_index (see libtorch_ops_index.h).
#include "libtorch_ops_index.h"

#include <ATen/ATen.h>

namespace {
at::Tensor& t(void* p) { return *static_cast<at::Tensor*>(p); }
}  // namespace

extern "C" {

void* lt_index_wrap(void* data, const int64_t* sizes, int ndim, int is_float) {
  return new at::Tensor(at::from_blob(data, at::IntArrayRef(sizes, static_cast<size_t>(ndim)),
                                      is_float ? at::kFloat : at::kLong));
}

void lt_index_release(void* p) { delete static_cast<at::Tensor*>(p); }

void lt_index_add(void* self, int64_t dim, void* index, void* source) {
  at::Tensor r = at::index_add(t(self), dim, t(index), t(source));
}

void lt_index_select(void* self, int64_t dim, void* index) { at::Tensor r = at::index_select(t(self), dim, t(index)); }

void lt_gather(void* self, int64_t dim, void* index) { at::Tensor r = at::gather(t(self), dim, t(index)); }

void lt_index_put_accumulate(void* self, void* index, void* values) {
  c10::List<c10::optional<at::Tensor>> idx;
  idx.push_back(t(index));
  at::Tensor r = at::index_put(t(self), idx, t(values), true);
}

}  // extern "C"
