// unique.cpp - _unique2: the distinct elements of a tensor, in ascending order, with each input
// element's position among them (inverse) and each one's count.
//
// How many elements come out depends on the values, so no meta function can know the sizes: the
// operator is a composite that computes on the cpu and refuses the meta device with a clear error.
#include <memory>

#include "dispatch/dispatcher.h"
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
  CT_CHECK(a.device().is_cpu(), CT_ERROR_NOT_IMPLEMENTED, "_unique2: only the cpu has a kernel, the input is on ", a.device());
  // PyTorch's cpu kernel fills the inverse whenever counts are asked for too (it counts with it).
  const bool counts = f.arg(3).to_bool(), inverse = f.arg(2).to_bool() || counts;
  const int64_t n = a.numel();
  const Tensor flat = contiguous(reshape(Tensor::borrow(&a), {n}));
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
    values = empty({static_cast<int64_t>(out.size())}, a.dtype(), a.device());
    T* v = values->data_as<T>();
    for (size_t i = 0; i < out.size(); ++i) v[i] = sorted[static_cast<size_t>(out[i])];
  });
  f.outs[0] = values;
  const int64_t none[1] = {0};
  f.outs[1] = empty(inverse ? a.sizes() : IntArrayRef(none, 1), DType::Int64, a.device());
  if (inverse) std::copy(inv.begin(), inv.end(), f.outs[1]->data_as<int64_t>());
  f.outs[2] = empty({counts ? static_cast<int64_t>(cnt.size()) : 0}, DType::Int64, a.device());
  if (counts) std::copy(cnt.begin(), cnt.end(), f.outs[2]->data_as<int64_t>());
}

}  // namespace

void define_unique(Registry& r) {
  r.def("_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)")
      .composite(unique_kernel)
      .not_differentiable();
}

}  // namespace ct::ops
