// dispatcher.h - calling an operator: pick the highest dispatch key with a kernel, run it.
#pragma once

#include <initializer_list>

#include "dispatch/operator.h"
#include "dispatch/registry.h"

namespace ct {

/// Calls op with args in schema order (every argument present) and fills outs[0..nouts).
void dispatch(const OperatorDef& op, const Value* args, size_t nargs, Tensor* outs, size_t nouts);
/// From inside a kernel: runs the next kernel below the running one, with the same arguments.
void redispatch(Frame& f);
/// The keys a call with these arguments starts from (before the thread-local sets).
DispatchKeySet call_keys(const OperatorDef& op, const Value* args, size_t nargs);

/// Convenience for one-output calls from C++.
inline Tensor call(const OperatorDef& op, std::initializer_list<Value> args) {
  Tensor out;
  dispatch(op, args.begin(), args.size(), &out, 1);
  return out;
}

/// The generic kernels behind structured operators (see Note [Structured operators]).
void structured_kernel(void* data, Frame& f);
/// The first half of structured_kernel: runs the meta function and allocates f.outs from it.
MetaResult structured_outputs(Frame& f);
void inplace_kernel(void* data, Frame& f);

/// Raises CT_ERROR_INVALID_ARGUMENT naming op and what (the argument) when t may not be written: an
/// inference tensor outside inference mode (PyTorch's contract), or read-only caller memory. The
/// dispatcher calls it for every argument a schema writes; see Note [Writable arguments].
void check_writable(const TensorImpl& t, const char* op, const char* what);

/// PyTorch's canCast: no floating to integral, no non-bool to bool.
bool can_cast(DType from, DType to);

}  // namespace ct
