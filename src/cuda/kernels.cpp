#include "cuda/kernels.h"

#include <string>

#include "core/error.h"
#include "cuda/element.h"
#include "dispatch/dispatcher.h"

namespace ct::cuda {

namespace {
OperatorDef& find_op(Registry& r, const char* full_name) {
  OperatorDef* op = r.find(full_name);
  CT_CHECK(op, CT_ERROR_INTERNAL, "cuda: built-in operator ", full_name, " is not defined");
  return *op;
}
}  // namespace

void set_cuda_compute(Registry& r, const char* full_name, ComputeFn fn) {
  OperatorDef& op = find_op(r, full_name);
  CT_CHECK(op.meta, CT_ERROR_INTERNAL, "cuda: ", full_name, " is not a structured operator");
  constexpr int k = static_cast<int>(DispatchKey::CUDA);
  op.compute[k] = fn;
  r.set_kernel(op, DispatchKey::CUDA, Kernel{structured_kernel, nullptr, nullptr}, Determinism::Deterministic);
  std::string name = full_name;
  const size_t dot = name.find('.');
  name.insert(dot == std::string::npos ? name.size() : dot, "_");
  OperatorDef* ip = r.find(name);
  if (!ip || ip->functional != &op) return;
  ip->compute[k] = fn;
  r.set_kernel(*ip, DispatchKey::CUDA, Kernel{inplace_kernel, nullptr, nullptr}, Determinism::Deterministic);
}

void set_cuda_kernel(Registry& r, const char* full_name, KernelFn fn) {
  r.set_kernel(find_op(r, full_name), DispatchKey::CUDA, Kernel{fn, nullptr, nullptr}, Determinism::Deterministic);
}

void register_cuda_kernels(Registry& r) {
  register_pointwise_kernels(r);
  register_reduce_kernels(r);
  register_nn_kernels(r);
  register_blas_kernels(r);
  register_random_kernels(r);
  register_index_kernels(r);
  register_sort_kernels(r);
  register_conv_kernels(r);
  register_pointwise_params_kernels(r);
  register_factory_kernels(r);
  register_shape_kernels(r);
  register_scan_kernels(r);
  register_sampling_kernels(r);
  register_linalg_kernels(r);
  register_fft_kernels(r);
  // Last: the elementwise operators no family file gave a kernel get the derived one.
  register_element_kernels(r);
}

}  // namespace ct::cuda
