// appended.h - the driver table with the members appended for the pointwise ops, factories and
// scans (unary_params .. scan in ct_cuda_driver.h), checked present: a libctorch_cuda.so older than
// libctorch lacks them (its struct_size ends before them).
#pragma once

#include <cstddef>

#include "core/error.h"
#include "cuda/context.h"

namespace ct::cuda {

/// driver(), raising CT_ERROR_VERSION naming op when its table ends before the appended members.
inline const ct_cuda_driver& appended_driver(const char* op) {
  const ct_cuda_driver& d = driver();
  CT_CHECK(d.struct_size >= offsetof(ct_cuda_driver, scan) + sizeof(d.scan), CT_ERROR_VERSION, op,
           ": the loaded libctorch_cuda.so is older than libctorch (its driver table has no unary_params, "
           "binary_params, ternary, index_fill or scan). Install the libctorch_cuda.so built with this libctorch");
  return d;
}

/// driver(), raising CT_ERROR_VERSION naming op when its table ends before the random sampling
/// members (check_probabilities .. multinomial_replacement, appended last).
inline const ct_cuda_driver& sampling_driver(const char* op) {
  const ct_cuda_driver& d = driver();
  CT_CHECK(d.struct_size >= offsetof(ct_cuda_driver, multinomial_replacement) + sizeof(d.multinomial_replacement),
           CT_ERROR_VERSION, op, ": the loaded libctorch_cuda.so is older than libctorch (its driver table has no "
           "random sampling members). Install the libctorch_cuda.so built with this libctorch");
  return d;
}

}  // namespace ct::cuda
