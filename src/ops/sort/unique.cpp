// unique.cpp - _unique2: the distinct elements of a tensor, in ascending order, with each input
// element's position among them (inverse) and each one's count.
//
// How many elements come out depends on the values, so no meta function can know the sizes: the
// operator is a composite that refuses the meta device with a clear error and computes on the host:
// another device's input is read back (Note [Values read on the host]), the results move to it.
#include <memory>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "ops/sort/rows.h"

namespace ct::ops {
namespace {

using namespace sortrows;

// _unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False)
//   -> (Tensor, Tensor, Tensor)
// Always sorted (sorted=False allows any order; PyTorch's cpu kernel also sorts). Unrequested
// outputs are empty int64 tensors, as in PyTorch. Equal keys are one element: -0.0 joins 0.0 and
// every NaN is one value (see Note [Sort keys]). As PyTorch's cpu kernel, return_counts fills the
// inverse too.
void unique_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(!a.device().is_meta(), CT_ERROR_NOT_IMPLEMENTED, "_unique2: the number of distinct elements is data-dependent, "
           "so the meta device cannot compute the output sizes (input ", a.sym_sizes(), "). Run it on a device with data");
  // PyTorch's cpu kernel fills the inverse whenever counts are asked for too (it counts with it).
  const bool counts = f.arg(3).to_bool(), inverse = f.arg(2).to_bool() || counts;
  const int64_t n = a.numel();
  const Tensor flat = host_contiguous(reshape(Tensor::borrow(&a), {n}));
  std::vector<int64_t> order(static_cast<size_t>(n)), inv(static_cast<size_t>(inverse ? n : 0));
  std::vector<int64_t> cnt;
  Tensor values;
  visit_dtype(a.dtype(), "_unique2", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = flat->data_as<T>();
    std::unique_ptr<T[]> sorted(new T[static_cast<size_t>(n)]);  // not vector: T may be bool
    Scratch<T> s;
    sort_row(p, n, false, sorted.get(), order.data(), s);
    std::vector<int64_t> out;  // where each distinct value first appears in sorted
    for (int64_t i = 0; i < n; ++i) {
      if (i == 0 || sortkey::key(sorted[i], false) != sortkey::key(sorted[i - 1], false)) {
        out.push_back(i);
        cnt.push_back(0);
      }
      ++cnt.back();
      if (inverse) inv[static_cast<size_t>(order[i])] = static_cast<int64_t>(out.size()) - 1;
    }
    values = empty({static_cast<int64_t>(out.size())}, a.dtype(), kCPU);
    T* v = values->data_as<T>();
    for (size_t i = 0; i < out.size(); ++i) v[i] = sorted[static_cast<size_t>(out[i])];
  });
  const int64_t none[1] = {0};
  Tensor inverse_out = empty(inverse ? a.sizes() : IntArrayRef(none, 1), DType::Int64, kCPU);
  if (inverse) std::copy(inv.begin(), inv.end(), inverse_out->data_as<int64_t>());
  Tensor counts_out = empty({counts ? static_cast<int64_t>(cnt.size()) : 0}, DType::Int64, kCPU);
  if (counts) std::copy(cnt.begin(), cnt.end(), counts_out->data_as<int64_t>());
  f.outs[0] = to(values, a.device(), a.dtype());
  f.outs[1] = to(inverse_out, a.device(), DType::Int64);
  f.outs[2] = to(counts_out, a.device(), DType::Int64);
}

}  // namespace

void define_unique(Registry& r) {
  r.def("_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)")
      .composite(unique_kernel)
      .not_differentiable();
}

}  // namespace ct::ops
