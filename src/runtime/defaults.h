// defaults.h - what a call that does not say gets: the default float dtype (process-wide), the
// current device (per thread), the float32 matmul precision and how tensors print (process-wide).
#pragma once

#include <atomic>

#include "core/device.h"
#include "core/dtype.h"

namespace ct::runtime {

namespace detail {
extern std::atomic<int> default_dtype;
}

/// The dtype float data, factories and integral inputs of floating operators default to: float32
/// unless ct_set_default_dtype chose float64.
inline DType default_dtype() { return static_cast<DType>(detail::default_dtype.load(std::memory_order_relaxed)); }

/// Sets the process's default float dtype (the caller checks it is float32 or float64).
void set_default_dtype(DType d);

/// The device factories without a device argument use on this thread: the innermost device context
/// (ct_device_push), else the thread's default (ct_set_default_device), else cpu.
Device current_device();
/// This thread's default device, and its stack of device contexts; pop_device is false when the
/// thread has none to pop.
void set_default_device(Device d);
void push_device(Device d);
bool pop_device();

/// Values equal ct_matmul_precision's order: "highest", "high", "medium".
enum class MatmulPrecision : int { Highest = 0, High = 1, Medium = 2 };
MatmulPrecision matmul_precision();
/// Sets the precision by its name; false (and nothing set) for a name that is none of the three.
bool set_matmul_precision(const char* name);
const char* matmul_precision_name();

/// torch.set_printoptions's settings (ct_print_options): digits after the point, the element count
/// past which a tensor is summarized, the items shown at each end of a summarized dim, the line
/// width, and scientific notation (-1: chosen from the values, 0: never, 1: always).
struct PrintOptions {
  int precision = 4;
  int64_t threshold = 1000, edgeitems = 3, linewidth = 80;
  int sci_mode = -1;
};
PrintOptions print_options();
/// Sets them (the caller checks the ranges).
void set_print_options(const PrintOptions& o);

}  // namespace ct::runtime
