// kernels.h - the CUDA compute functions of the built-in operators (the host half of the CUDA
// backend; see Note [The CUDA backend in two halves] in cuda/context.h).
//
// register_cuda_kernels installs them for DispatchKey::CUDA. It only fills registry entries: it
// loads no CUDA library and calls no driver member, so it runs in every process, with or without
// a GPU. Each compute function calls the driver table when a CUDA tensor reaches it.
#pragma once

#include "dispatch/registry.h"

namespace ct::cuda {

/// Installs the CUDA kernels of every built-in operator listed in the family files (pointwise.cpp,
/// reduce.cpp, nn.cpp, blas.cpp, random.cpp). Run once, after the operators are defined.
void register_cuda_kernels(Registry& r);

// The families, and the two ways of installing a kernel they share.
void register_pointwise_kernels(Registry& r);
void register_reduce_kernels(Registry& r);
void register_nn_kernels(Registry& r);
void register_blas_kernels(Registry& r);
void register_random_kernels(Registry& r);
void register_index_kernels(Registry& r);
void register_sort_kernels(Registry& r);
void register_conv_kernels(Registry& r);              // conv.cpp
void register_pointwise_params_kernels(Registry& r);  // pointwise_params.cpp
void register_factory_kernels(Registry& r);           // factories.cpp
void register_shape_kernels(Registry& r);             // shape.cpp
void register_scan_kernels(Registry& r);              // scan.cpp
void register_sampling_kernels(Registry& r);          // sampling.cpp
void register_linalg_kernels(Registry& r);            // linalg.cpp
void register_fft_kernels(Registry& r);               // fft.cpp

/// A structured operator's CUDA compute (run by structured_kernel), and the same for its in-place
/// variant ("add_.Tensor" for "add.Tensor", "neg_" for "neg") when it has one, as
/// OpBuilder::inplace does for the cpu. Every table kernel is deterministic (no atomics).
/// CT_ERROR_INTERNAL when full_name is not a built-in structured operator.
void set_cuda_compute(Registry& r, const char* full_name, ComputeFn fn);
/// A plain CUDA kernel (operators whose outputs are not freshly allocated, like copy_).
void set_cuda_kernel(Registry& r, const char* full_name, KernelFn fn);

}  // namespace ct::cuda
