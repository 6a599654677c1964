// copy_tiled.h - copying elements between layouts whose innermost dims differ (a transpose).
#pragma once

#include <cstdint>

#include "ops/cpu/loop.h"

namespace ct::cpu {

/// Copies the input of a two-operand plan (output, input of the same dtype, item bytes each) in
/// tiles when the input steps across the output's innermost dim with a larger stride than across
/// some other dim; returns false, copying nothing, when the plan is not such a transpose.
bool copy_tiled(const LoopPlan& p, int64_t item);

/// The 8 x n float32 strip at in (8 rows of n, ld_in floats apart) written transposed to out (n
/// rows of 8, ld_out floats apart), every bit kept: the tiles' in-register 8 x 8 transposes with
/// AVX2, else element by element. One call a strip, as a call per block cost a sixth of the
/// convolution's weight gradient. For kernels that lay out panels themselves (that gradient's).
void transpose_8xn_f32(const float* in, int64_t ld_in, int64_t n, float* out, int64_t ld_out);

}  // namespace ct::cpu
