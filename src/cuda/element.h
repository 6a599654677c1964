// element.h - eager CUDA kernels derived from element functions (Note [Element functions]): an
// operator declared elementwise (OpBuilder::elementwise) that the CUDA library's table has no kernel
// for runs as a generated grid-stride kernel calling its functor of fns.h, compiled with NVRTC on
// first use (one per functor, dtype and form, cached).
#pragma once

#include <string>

#include "dispatch/registry.h"

namespace ct::cuda {

/// The CUDA C of the kernel computing fn over n contiguous elements of dtype T (float, double,
/// long long or bool): extern "C" ct_element(T* o, const T* a, const T* b, T alpha, long long n);
/// b and alpha are read only by binary functions, alpha only when `scaled`.
std::string element_kernel_source(const ElementFn& fn, const char* type, bool scaled);

/// Installs the derived kernel for every elementwise operator without a CUDA kernel.
void register_element_kernels(Registry& r);

}  // namespace ct::cuda
