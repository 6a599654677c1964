// fuse_cuda.h - fused kernels on CUDA: a Plan becomes CUDA C, compiled once with NVRTC.
//
// Note [Fused CUDA kernels]
// The same plans the CPU runs (fuse_plan.h) run on CUDA as one generated kernel. Pointwise-only
// plans become a grid-stride loop over the R x C elements, each thread computing its element's
// whole chain in registers and writing only the group's outputs. Plans with per-row values (the
// last-dim reductions) give each row to one block of kBlock threads: a reduction recomputes the
// pointwise values it reads in a column loop, folds them per thread in column order and combines
// the kBlock partial results by a fixed tree in shared memory, so a result depends on the shape
// alone: bitwise repeatable, though not necessarily eager's bits (eager's reduction kernel may
// order the sum differently). Pointwise values call the element functions the eager kernels call:
// the source begins with fns.h itself (kElementPreamble, Note [Element functions]), and is
// compiled, like the eager kernels, with --fmad=false. Numbers from the graph (alpha, a Scalar operand) are written into the source
// as exact bit patterns.
//
// Compiled programs are cached by source and GPU architecture for the life of the process (a plan
// compiles once per architecture, whatever function or shapes it came from); the cache counts its
// compilations in the metric compile.cuda_kernels.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compile/fuse_plan.h"
#include "cuda/nvrtc_kernels.h"

namespace ct::compile {

constexpr int kBlock = 256;  // threads per block of a generated kernel

/// The CUDA C source of p's kernel, `extern "C" __global__ void ct_fused(...)`: one pointer per
/// Input and Output slot (in slot order), then R and C as long long.
std::string cuda_source(const Plan& p);

/// The pointer parameters of p's kernel in order: each an output (true) or an input (false) of the
/// fused node, with its number. R and C follow them.
std::vector<std::pair<bool, int32_t>> cuda_params(const Plan& p);

/// Runs p (device cuda) on inputs (contiguous, on p's device) into outs (allocated, contiguous),
/// compiling `source` on first use per device (cache, held by the plan's kernel).
void run_cuda(const Plan& p, const std::string& source, cuda::KernelCache& cache, ArrayRef<const TensorImpl*> inputs,
              int64_t rows, int64_t cols, Tensor* outs);

/// Kernels compiled with NVRTC so far.
int64_t cuda_kernels_compiled();

}  // namespace ct::compile
