// fuse_cpp.h - fused cpu kernels as C++ that the system compiler builds (Note [C++ kernels] in
// fuse_cpp.cpp): what ct_compile's option "cpp_kernels" runs in place of the tile loops of fuse.cpp,
// built when compiling (mode "max-autotune") or in the background once a kernel is hot (the default).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "compile/fuse_plan.h"

namespace ct {
/// vec_math.h, element_math.h, fns.h, row_fold.h and folds.h as one text, which every
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

/// Where the background builder leaves a kernel's tile function: fn once built, or failed (and
/// then why, written before failed is set) when it cannot be.
struct CppKernelSlot {
  std::atomic<void*> fn{nullptr};
  std::atomic<bool> failed{false};
  std::string why;
};

/// Queues source for the process's background builder thread (Note [Building C++ kernels in the
/// background]), which fills slot when done. Safe from any thread. Throws std::bad_alloc, and then
/// nothing was queued; a thread that cannot be started fails the slot instead.
void build_in_background(std::string source, std::shared_ptr<CppKernelSlot> slot);

/// Blocks until the background builder has nothing queued or building: every slot handed to it
/// so far is filled or failed.
void wait_for_background_builds() noexcept;

}  // namespace ct::compile
