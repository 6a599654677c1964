// extrema.cpp - max and min in torch's three forms (of every element; along a dim with the
// indices; of two tensors) and aminmax. Each form is a composite of the operators that compute it
// (amax/amin, argmax/argmin with gather, maximum/minimum), so the kernels on every device and the
// derivatives are theirs: the gradient of max() is shared by the tied elements as amax's is, and
// max.dim's goes to the element its index names, through gather's.
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

template <bool Max>
constexpr const char* name() {
  return Max ? "max" : "min";
}

// max(Tensor self) -> Tensor
template <bool Max>
void all_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  CT_SYM_CHECK(a.sym_numel() > 0, CT_ERROR_SHAPE, name<Max>(), ": the input is empty (sizes ", a.sym_sizes(),
               ") and has no ", Max ? "largest" : "smallest", " element. Pass dim to reduce a non-empty dim, or check the input");
  const Tensor x = Tensor::borrow(&a);
  f.outs[0] = Max ? amax(x) : amin(x);
}

// max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices): the index is
// the first extremum's (the first NaN's when there is one), as torch's cpu kernels answer.
template <bool Max>
void dim_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const int64_t nd = static_cast<int64_t>(a.dim());
  const int64_t dim = wrap_dim(name<Max>(), f.arg(1).to_int(), nd);
  const bool keepdim = f.arg(2).to_bool();
  CT_SYM_CHECK(nd == 0 || a.sym_size(dim) > 0, CT_ERROR_INDEX, name<Max>(), ": dim ", dim, " of the input (sizes ",
               a.sym_sizes(), ") has size 0, so it has no ", Max ? "largest" : "smallest",
               " element. Reduce over a non-empty dim");
  const Tensor x = Tensor::borrow(&a);
  const Tensor indices = Max ? argmax(x, dim, true) : argmin(x, dim, true);
  const Tensor values = gather(x, dim, indices);
  f.outs[0] = keepdim || nd == 0 ? values : squeeze(values, dim);
  f.outs[1] = keepdim || nd == 0 ? indices : squeeze(indices, dim);
}

// max.other(Tensor self, Tensor other) -> Tensor
template <bool Max>
void other_kernel(void*, Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0)), y = Tensor::borrow(&f.tensor(1));
  f.outs[0] = Max ? maximum(x, y) : minimum(x, y);
}

// aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)
void aminmax_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const int64_t nd = static_cast<int64_t>(a.dim());
  const bool keepdim = f.arg(2).to_bool();
  const Tensor x = Tensor::borrow(&a);
  if (f.arg(1).is_none()) {
    CT_SYM_CHECK(a.sym_numel() > 0, CT_ERROR_SHAPE, "aminmax: the input is empty (sizes ", a.sym_sizes(),
                 ") and has no smallest or largest element. Check the input");
    f.outs[0] = amin(x, std::nullopt, keepdim);
    f.outs[1] = amax(x, std::nullopt, keepdim);
    return;
  }
  const int64_t dim = wrap_dim("aminmax", f.arg(1).to_int(), nd);
  CT_SYM_CHECK(nd == 0 || a.sym_size(dim) > 0, CT_ERROR_INDEX, "aminmax: dim ", dim, " of the input (sizes ",
               a.sym_sizes(), ") has size 0, so it has no smallest or largest element. Reduce over a non-empty dim");
  const std::vector<int64_t> dims = nd == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{dim};
  f.outs[0] = amin(x, dims, keepdim);
  f.outs[1] = amax(x, dims, keepdim);
}

template <bool Max>
void define_extremum(Registry& r) {
  const std::string n = name<Max>();
  r.def(n + "(Tensor self) -> Tensor").composite(all_kernel<Max>);
  r.def(n + ".dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
      .composite(dim_kernel<Max>);
  r.def(n + ".other(Tensor self, Tensor other) -> Tensor").composite(other_kernel<Max>);
}

}  // namespace

void define_extrema(Registry& r) {
  define_extremum<true>(r);
  define_extremum<false>(r);
  r.def("aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)").composite(aminmax_kernel);
}

}  // namespace ct::ops
