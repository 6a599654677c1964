// combinations.cpp - tuples drawn from 1-D tensors: cartesian_prod (every tuple taking one element
// of each tensor) and combinations (r-element subsets of one tensor, or multisets with
// with_replacement), rows in lexicographic order of the positions, as PyTorch orders them.
// Composites of expand, index_select, reshape and stack, so gradients reach the chosen elements.
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

void check_vector(const char* op, const TensorImpl& t, size_t i) {
  CT_CHECK(t.dim() == 1, CT_ERROR_SHAPE, op, ": tensor ", i, " has sizes ", t.sym_sizes(), "; it takes 1-D tensors");
}

// cartesian_prod(Tensor[] tensors) -> Tensor: [n_0 * ... * n_{k-1}, k], the last tensor varying
// fastest; one tensor is returned as it is (a view).
void cartesian_prod_kernel(void*, Frame& f) {
  const ArrayRef<const TensorImpl*> ts = f.arg(0).tensor_list();
  CT_CHECK(!ts.empty(), CT_ERROR_INVALID_ARGUMENT, "cartesian_prod: expected at least one tensor");
  for (size_t i = 0; i < ts.size(); ++i) {
    check_vector("cartesian_prod", *ts[i], i);
    CT_CHECK(ts[i]->dtype() == ts[0]->dtype(), CT_ERROR_DTYPE, "cartesian_prod: tensor ", i, " is ", ts[i]->dtype(),
             " but tensor 0 is ", ts[0]->dtype(), ". Give tensors of one dtype");
  }
  if (ts.size() == 1) {
    f.outs[0] = reshape_symint(Tensor::borrow(ts[0]), ts[0]->sym_sizes());
    return;
  }
  SymDimVector grid;
  for (const TensorImpl* t : ts) grid.push_back(t->sym_size(0));
  SymInt rows = 1;
  for (const SymInt& n : grid) rows = rows * n;
  std::vector<Tensor> columns;
  for (size_t i = 0; i < ts.size(); ++i) {
    SymDimVector along(ts.size(), SymInt(1));
    along[i] = grid[i];
    columns.push_back(reshape_symint(expand_symint(reshape_symint(Tensor::borrow(ts[i]), along), grid), {rows}));
  }
  std::vector<const TensorImpl*> impls;
  for (const Tensor& c : columns) impls.push_back(c.impl());
  f.outs[0] = stack(impls, 1);
}

// combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor: [count, r]; r = 0
// gives an empty 1-D tensor, as in PyTorch. The positions are enumerated on the host (they depend
// on sizes only) and gathered with one index_select.
void combinations_kernel(void*, Frame& f) {
  const Tensor self = Tensor::borrow(&f.tensor(0));
  check_vector("combinations", *self, 0);
  const int64_t r = f.arg(1).to_int();
  const bool replace = f.arg(2).to_bool();
  CT_CHECK(r >= 0, CT_ERROR_INVALID_ARGUMENT, "combinations: r is ", r, ". Pass r >= 0");
  if (r == 0) {
    f.outs[0] = empty({0}, self->dtype(), self->device());
    return;
  }
  const int64_t n = self->sym_size(0).guard_int();
  // The count, C(n, r) or C(n + r - 1, r), grown one factor at a time and bounded by the index
  // tensor's size, so that no count overflows before the refusal.
  const int64_t top = replace ? n + r - 1 : n;
  const int64_t limit = INT64_MAX / 8 / r;
  int64_t count = r > top ? 0 : 1;
  for (int64_t i = 1; i <= r && count > 0; ++i) {
    const int64_t factor = top - r + i;
    CT_CHECK(count <= limit / factor, CT_ERROR_OUT_OF_MEMORY, "combinations: ", n, " elements taken ", r,
             " at a time make too many rows to index. Pass a smaller r");
    count = count * factor / i;  // exact: a product of i consecutive integers divides by i!
  }
  Tensor index = empty({count * r}, DType::Int64, kCPU);
  int64_t* out = index->data_as<int64_t>();
  // The current tuple lives in a host tensor, not a std::vector: r comes from the caller, and a
  // tuple too large must fail as CT_ERROR_OUT_OF_MEMORY from ctorch's allocator, not abort in
  // operator new. No rows (r > n) need no tuple, whatever r is.
  Tensor tuple = empty({count > 0 ? r : 0}, DType::Int64, kCPU);
  int64_t* pick = tuple->data_as<int64_t>();
  for (int64_t j = 0; j < r && count > 0; ++j) pick[j] = replace ? 0 : j;
  for (int64_t row = 0; row < count; ++row) {
    for (int64_t j = 0; j < r; ++j) *out++ = pick[j];
    // The next tuple: raise the last position that can still grow, and reset the ones after it.
    int64_t j = r - 1;
    while (j >= 0 && pick[j] == (replace ? n - 1 : n - r + j)) --j;
    if (j < 0) break;
    ++pick[j];
    for (int64_t k = j + 1; k < r; ++k) pick[k] = replace ? pick[j] : pick[k - 1] + 1;
  }
  if (!self->device().is_cpu()) index = to(index, self->device(), DType::Int64);
  f.outs[0] = reshape(index_select(self, 0, index), {count, r});
}

}  // namespace

void define_combinations(Registry& r) {
  r.def("cartesian_prod(Tensor[] tensors) -> Tensor").composite(cartesian_prod_kernel);
  r.def("combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor").composite(combinations_kernel);
}

}  // namespace ct::ops
