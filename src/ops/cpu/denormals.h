// denormals.h - flushing denormal floats to zero (torch.set_flush_denormal): the x86 MXCSR bits FTZ
// (results) and DAZ (inputs). A thread's setting travels with its parallel work (parallel.cpp).
#pragma once

#include <cstdint>

namespace ct::cpu {

/// Sets this thread's flushing; false (and nothing set) where the CPU has no such mode.
bool set_flush_denormal(bool on);
/// This thread's mode bits, and applying them to another thread (a worker running its job).
uint32_t denormal_mode();
void apply_denormal_mode(uint32_t mode);

}  // namespace ct::cpu
