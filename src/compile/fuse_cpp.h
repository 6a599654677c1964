// fuse_cpp.h - fused cpu kernels as C++ that the system compiler builds (Note [C++ kernels] in
// fuse_cpp.cpp): what ct_compile's option "cpp_kernels" (mode "max-autotune") runs in place of the
// tile loops of fuse.cpp.
#pragma once

#include <string>

#include "compile/fuse_plan.h"

namespace ct {
/// vec_math.h, element_math.h, fns.h, row_fold.h and fused_fold.h as one text, which every
/// generated C++ kernel starts with; embedded at build time by cmake/embed_source.cmake.
extern const char kCpuKernelPreamble[];
}  // namespace ct

namespace ct::compile {

/// Why plan p cannot run as generated C++ with eager's bits; "" when it can.
std::string cpp_unsupported(const Plan& p);

/// The C++ source of p's tile function, `extern "C" void ct_fused_tile(T* const* slot, int64_t
/// rows, int64_t cols)`: every instruction of p over one tile, with slot[k] pointing where fuse.cpp's
/// tile loop points slot k (scratch slots excepted: their values stay in registers).
std::string cpp_source(const Plan& p);

/// The tile function of source, compiled by the system C++ compiler into the kernel cache (or
/// found there) and loaded; null, with why set, when that fails. Safe from any thread.
void* load_cpp_kernel(const std::string& source, std::string& why);

}  // namespace ct::compile
