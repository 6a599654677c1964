// ops_reduce.cpp - the typed functions of statistics, scans and sorting: handle checks, then one
// dispatch of the registered operator (looked up once per function).
#include "capi/handle.h"
#include "core/error.h"
#include "dispatch/dispatcher.h"

using namespace ct;
using capi::tensor_arg;

namespace {

IntArrayRef dims_arg(const int64_t* v, size_t n, const char* fn) { return capi::int_list_arg(v, n, fn, "dims"); }

}  // namespace

extern "C" {

#define CT_MOMENT(name)                                                                              \
  ct_status ct_tensor_##name(const ct_tensor* a, const int64_t* dims, size_t n, double correction,   \
                             int keepdim, ct_tensor** out) {                                         \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                                        \
      CT_OPERATOR(op, #name ".correction");                                                          \
      const TensorImpl& x = tensor_arg(a, "ct_tensor_" #name, "a");                                  \
      return call(op, {&x, dims_arg(dims, n, "ct_tensor_" #name), correction, keepdim != 0});        \
    });                                                                                              \
  }
CT_MOMENT(var)
CT_MOMENT(std)
#undef CT_MOMENT

ct_status ct_tensor_norm(const ct_tensor* a, double p, const int64_t* dims, size_t n, int keepdim, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_norm", [&] {
    CT_OPERATOR(op, "linalg_vector_norm");
    const TensorImpl& x = tensor_arg(a, "ct_tensor_norm", "a");
    return call(op, {&x, p, dims_arg(dims, n, "ct_tensor_norm"), keepdim != 0, Value()});
  });
}

ct_status ct_tensor_logsumexp(const ct_tensor* a, const int64_t* dims, size_t n, int keepdim, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_logsumexp", [&] {
    CT_OPERATOR(op, "logsumexp");
    const TensorImpl& x = tensor_arg(a, "ct_tensor_logsumexp", "a");
    return call(op, {&x, dims_arg(dims, n, "ct_tensor_logsumexp"), keepdim != 0});
  });
}

#define CT_LOGICAL(name)                                                                            \
  ct_status ct_tensor_##name(const ct_tensor* a, const int64_t* dim, int keepdim, ct_tensor** out) { \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                                       \
      CT_OPERATOR(all_op, #name);                                                                   \
      CT_OPERATOR(dim_op, #name ".dim");                                                            \
      const TensorImpl& x = tensor_arg(a, "ct_tensor_" #name, "a");                                 \
      return dim ? call(dim_op, {&x, *dim, keepdim != 0}) : call(all_op, {&x});                     \
    });                                                                                             \
  }
CT_LOGICAL(all)
CT_LOGICAL(any)
#undef CT_LOGICAL

ct_status ct_tensor_cumsum(const ct_tensor* a, int64_t dim, const ct_dtype* dtype, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_cumsum", [&] {
    CT_OPERATOR(op, "cumsum");
    const TensorImpl& x = tensor_arg(a, "ct_tensor_cumsum", "a");
    return call(op, {&x, dim, dtype ? Value(capi::dtype_arg(*dtype, "ct_tensor_cumsum")) : Value()});
  });
}

ct_status ct_tensor_sort(const ct_tensor* a, int64_t dim, int descending, ct_tensor** values, ct_tensor** indices) {
  return capi::tensors_result({values, indices}, "ct_tensor_sort", {"values", "indices"}, [&](Tensor* outs) {
    CT_OPERATOR(op, "sort");
    const Value args[] = {&tensor_arg(a, "ct_tensor_sort", "a"), dim, descending != 0};
    dispatch(op, args, 3, outs, 2);
  });
}

ct_status ct_tensor_argsort(const ct_tensor* a, int64_t dim, int descending, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_argsort", [&] {
    CT_OPERATOR(op, "argsort");
    return call(op, {&tensor_arg(a, "ct_tensor_argsort", "a"), dim, descending != 0});
  });
}

ct_status ct_tensor_topk(const ct_tensor* a, int64_t k, int64_t dim, int largest, int sorted, ct_tensor** values,
                         ct_tensor** indices) {
  return capi::tensors_result({values, indices}, "ct_tensor_topk", {"values", "indices"}, [&](Tensor* outs) {
    CT_OPERATOR(op, "topk");
    const Value args[] = {&tensor_arg(a, "ct_tensor_topk", "a"), k, dim, largest != 0, sorted != 0};
    dispatch(op, args, 5, outs, 2);
  });
}

}  // extern "C"
