// driver_members.h - the driver table for calls of members added after its first version: a
// libctorch_cuda.so older than libctorch ends its table (struct_size) before them, and calling one
// must be a version error, not a read past the table.
#pragma once

#include <cstddef>

#include "core/error.h"
#include "cuda/context.h"

namespace ct::cuda {

/// driver(), raising CT_ERROR_VERSION naming op and `member` when the loaded table ends before
/// `end` (the offset just past the member).
inline const ct_cuda_driver& driver_with(const char* op, size_t end, const char* member) {
  const ct_cuda_driver& d = driver();
  CT_CHECK(d.struct_size >= end, CT_ERROR_VERSION, op, ": the loaded libctorch_cuda.so is older than libctorch (its ",
           "driver table has no ", member, "). Install the libctorch_cuda.so built with this libctorch");
  return d;
}

}  // namespace ct::cuda

/// The driver table, checked to have `member`: CT_CUDA_DRIVER_WITH(f.name(), scan).scan(...).
#define CT_CUDA_DRIVER_WITH(op, member) \
  ::ct::cuda::driver_with(op, offsetof(ct_cuda_driver, member) + sizeof(ct_cuda_driver::member), #member)
