// split.cpp - split, split_with_sizes, chunk and unbind: functions returning a list of views.
//
// The dispatcher's operators return a fixed number of tensors (kMaxOutputs), and these return as
// many as the input's dim splits into, so they are functions over narrow and select rather than
// registered operators; every piece is one of those views, so gradients flow through it and the
// meta device needs nothing of its own. The C ABI and the Python package build on these. With a
// symbolic size the number of pieces must still be known, so it is decided with a guard (as in
// PyTorch); the pieces' sizes stay symbolic.
#include <algorithm>

#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

int64_t split_dim(const char* op, const Tensor& a, int64_t dim) {
  CT_CHECK(a->dim() > 0, CT_ERROR_SHAPE, op, ": cannot split a 0-dim tensor. Reshape it to 1-D first");
  return wrap_dim(op, dim, static_cast<int64_t>(a->dim()));
}

}  // namespace

std::vector<Tensor> split(const Tensor& a, int64_t split_size, int64_t dim) {
  const int64_t d = split_dim("split", a, dim);
  const SymInt n = a->sym_size(d);
  CT_CHECK(split_size >= 0, CT_ERROR_INVALID_ARGUMENT, "split: split_size is ", split_size,
           ". Pass a size >= 0");
  CT_CHECK(split_size > 0 || n == 0, CT_ERROR_INVALID_ARGUMENT, "split: split_size is 0 but dim ", d, " has size ",
           n, ". split_size may be 0 only for an empty dim");
  const int64_t pieces =
      split_size == 0 ? 1 : std::max<int64_t>(((n + (split_size - 1)) / split_size).guard_int(), 1);
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(pieces));
  for (int64_t i = 0; i < pieces; ++i) {
    const int64_t start = i * split_size;
    out.push_back(narrow_symint(a, d, start, sym_min(split_size, n - start)));
  }
  return out;
}

std::vector<Tensor> split_with_sizes(const Tensor& a, IntArrayRef sizes, int64_t dim) {
  const int64_t d = split_dim("split_with_sizes", a, dim);
  const SymInt n = a->sym_size(d);
  int64_t total = 0;
  for (int64_t s : sizes) {
    CT_CHECK(s >= 0, CT_ERROR_INVALID_ARGUMENT, "split_with_sizes: split_sizes ", sizes,
             " has a negative entry. Sizes must be >= 0");
    total += s;
  }
  CT_CHECK(total == n, CT_ERROR_INVALID_ARGUMENT, "split_with_sizes: split_sizes ", sizes, " sum to ", total,
           " but dim ", d, " of the input ", a->sym_sizes(), " has size ", n, ". Give sizes that sum to ", n);
  std::vector<Tensor> out;
  out.reserve(sizes.size());
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(narrow(a, d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& a, int64_t chunks, int64_t dim) {
  const int64_t d = split_dim("chunk", a, dim);
  CT_CHECK(chunks > 0, CT_ERROR_INVALID_ARGUMENT, "chunk: chunks is ", chunks, ". Pass a number > 0");
  const int64_t size = ((a->sym_size(d) + (chunks - 1)) / chunks).guard_int();
  if (size == 0) {  // an empty dim gives `chunks` empty pieces, as in PyTorch
    DimVector sizes;
    for (int64_t i = 0; i < chunks; ++i) sizes.push_back(0);
    return split_with_sizes(a, sizes, d);
  }
  return split(a, size, d);
}

std::vector<Tensor> unbind(const Tensor& a, int64_t dim) {
  CT_CHECK(a->dim() > 0, CT_ERROR_INDEX, "unbind: cannot unbind a 0-dim tensor. Reshape it to 1-D first");
  const int64_t d = wrap_dim("unbind", dim, static_cast<int64_t>(a->dim()));
  std::vector<Tensor> out;
  const int64_t n = a->sym_size(d).guard_int();  // one output per element: their number must be known
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.push_back(select(a, d, i));
  return out;
}

}  // namespace ct::ops
