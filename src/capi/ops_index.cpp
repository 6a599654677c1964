// ops_index.cpp - the typed functions of the indexing family: handle checks, then one dispatch of
// the registered operator (looked up once per function).
#include <vector>

#include "capi/handle.h"
#include "core/error.h"
#include "dispatch/dispatcher.h"

using namespace ct;
using capi::tensor_arg;

namespace {

// C's "NULL is a full slice" index array as the operator's (tensors, dims) pair; see
// Note [Advanced indexing schema] in src/ops/index/advanced.cpp.
struct IndexList {
  std::vector<const TensorImpl*> tensors;
  std::vector<int64_t> dims;
};

IndexList index_list_arg(const ct_tensor* const* indices, size_t n, const char* fn) {
  CT_CHECK(indices || n == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": indices is NULL but n is ", n,
           ". Pass an array of n handles (NULL entries for full slices)");
  IndexList l;
  int64_t dim = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!indices[i]) {
      ++dim;
      continue;
    }
    const TensorImpl& t = tensor_arg(indices[i], fn, "indices[i]");
    l.tensors.push_back(&t);
    l.dims.push_back(dim);
    const bool mask = t.dtype() == DType::Bool || t.dtype() == DType::UInt8;
    dim += mask ? static_cast<int64_t>(t.dim()) : 1;
  }
  CT_CHECK(!l.tensors.empty(), CT_ERROR_INVALID_ARGUMENT, fn,
           ": every index is NULL (a full slice). Pass at least one index tensor");
  return l;
}

Value scalar_or(const ct_scalar* s, const char* fn, const char* arg, int64_t dflt) {
  return s ? Value(capi::scalar_arg(s, fn, arg)) : Value(dflt);
}

}  // namespace

extern "C" {

ct_status ct_tensor_index_select(const ct_tensor* a, int64_t dim, const ct_tensor* index, ct_tensor** out) {
  const char* fn = "ct_tensor_index_select";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "index_select");
    return call(op, {&tensor_arg(a, fn, "a"), dim, &tensor_arg(index, fn, "index")});
  });
}

ct_status ct_tensor_gather(const ct_tensor* a, int64_t dim, const ct_tensor* index, ct_tensor** out) {
  const char* fn = "ct_tensor_gather";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "gather");
    return call(op, {&tensor_arg(a, fn, "a"), dim, &tensor_arg(index, fn, "index"), false});
  });
}

ct_status ct_tensor_scatter(const ct_tensor* a, int64_t dim, const ct_tensor* index, const ct_tensor* src,
                            ct_tensor** out) {
  const char* fn = "ct_tensor_scatter";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "scatter.src");
    return call(op, {&tensor_arg(a, fn, "a"), dim, &tensor_arg(index, fn, "index"), &tensor_arg(src, fn, "src")});
  });
}

ct_status ct_tensor_scatter_add(const ct_tensor* a, int64_t dim, const ct_tensor* index, const ct_tensor* src,
                                ct_tensor** out) {
  const char* fn = "ct_tensor_scatter_add";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "scatter_add");
    return call(op, {&tensor_arg(a, fn, "a"), dim, &tensor_arg(index, fn, "index"), &tensor_arg(src, fn, "src")});
  });
}

ct_status ct_tensor_index_add(const ct_tensor* a, int64_t dim, const ct_tensor* index, const ct_tensor* source,
                              const ct_scalar* alpha, ct_tensor** out) {
  const char* fn = "ct_tensor_index_add";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "index_add");
    return call(op, {&tensor_arg(a, fn, "a"), dim, &tensor_arg(index, fn, "index"), &tensor_arg(source, fn, "source"),
                     scalar_or(alpha, fn, "alpha", 1)});
  });
}

ct_status ct_tensor_masked_fill(const ct_tensor* a, const ct_tensor* mask, const ct_scalar* value, ct_tensor** out) {
  const char* fn = "ct_tensor_masked_fill";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "masked_fill.Scalar");
    return call(op, {&tensor_arg(a, fn, "a"), &tensor_arg(mask, fn, "mask"), capi::scalar_arg(value, fn, "value")});
  });
}

ct_status ct_tensor_masked_select(const ct_tensor* a, const ct_tensor* mask, ct_tensor** out) {
  const char* fn = "ct_tensor_masked_select";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "masked_select");
    return call(op, {&tensor_arg(a, fn, "a"), &tensor_arg(mask, fn, "mask")});
  });
}

ct_status ct_tensor_nonzero(const ct_tensor* a, ct_tensor** out) {
  const char* fn = "ct_tensor_nonzero";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "nonzero");
    return call(op, {&tensor_arg(a, fn, "a")});
  });
}

ct_status ct_tensor_index(const ct_tensor* a, const ct_tensor* const* indices, size_t n, ct_tensor** out) {
  const char* fn = "ct_tensor_index";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "index.Tensor");
    const TensorImpl& self = tensor_arg(a, fn, "a");
    const IndexList l = index_list_arg(indices, n, fn);
    return call(op, {&self, ArrayRef<const TensorImpl*>(l.tensors), IntArrayRef(l.dims)});
  });
}

ct_status ct_tensor_index_put(const ct_tensor* a, const ct_tensor* const* indices, size_t n, const ct_tensor* values,
                              int accumulate, ct_tensor** out) {
  const char* fn = "ct_tensor_index_put";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "index_put");
    const TensorImpl& self = tensor_arg(a, fn, "a");
    const TensorImpl& v = tensor_arg(values, fn, "values");
    const IndexList l = index_list_arg(indices, n, fn);
    return call(op, {&self, ArrayRef<const TensorImpl*>(l.tensors), &v, accumulate != 0, IntArrayRef(l.dims)});
  });
}

ct_status ct_tensor_index_put_(ct_tensor* a, const ct_tensor* const* indices, size_t n, const ct_tensor* values,
                               int accumulate) {
  const char* fn = "ct_tensor_index_put_";
  return capi::guard([&] {
    CT_OPERATOR(op, "index_put_");
    const TensorImpl& self = tensor_arg(a, fn, "a");
    const TensorImpl& v = tensor_arg(values, fn, "values");
    const IndexList l = index_list_arg(indices, n, fn);
    call(op, {&self, ArrayRef<const TensorImpl*>(l.tensors), &v, accumulate != 0, IntArrayRef(l.dims)});
  });
}

}  // extern "C"
