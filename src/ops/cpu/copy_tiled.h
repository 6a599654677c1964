// copy_tiled.h - copying elements between layouts whose innermost dims differ (a transpose).
#pragma once

#include <cstdint>

#include "ops/cpu/loop.h"

namespace ct::cpu {

/// Copies the input of a two-operand plan (output, input of the same dtype, item bytes each) in
/// tiles when the input steps across the output's innermost dim with a larger stride than across
/// some other dim; returns false, copying nothing, when the plan is not such a transpose.
bool copy_tiled(const LoopPlan& p, int64_t item);

}  // namespace ct::cpu
