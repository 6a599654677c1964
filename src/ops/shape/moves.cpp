// moves.cpp - views that move, split or broadcast dims: movedim (moveaxis), unflatten, expand_as
// and broadcast_to. All are composites of permute, view and expand, so they share their inputs'
// storage and their derivatives are those of the views they call.
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)
// movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)
// Each source dim goes to its destination; the other dims keep their order in the places left.
void movedim_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const int64_t n = static_cast<int64_t>(a.dim());
  int64_t one_src = 0, one_dst = 0;
  IntArrayRef src, dst;
  if (f.arg(1).kind() == Value::Kind::Int) {
    one_src = f.arg(1).to_int();
    one_dst = f.arg(2).to_int();
    src = IntArrayRef(&one_src, 1);
    dst = IntArrayRef(&one_dst, 1);
  } else {
    src = f.arg(1).int_list();
    dst = f.arg(2).int_list();
  }
  CT_CHECK(src.size() == dst.size(), CT_ERROR_INVALID_ARGUMENT, "movedim: source ", src, " and destination ", dst,
           " have different lengths. Give one destination per source dim");
  if (n == 0) {  // a 0-dim tensor: dims 0 and -1 name the tensor itself and nothing moves
    for (size_t i = 0; i < src.size(); ++i) {
      wrap_dim("movedim", src[i], n);
      wrap_dim("movedim", dst[i], n);
    }
    f.outs[0] = permute(Tensor::borrow(&a), {});
    return;
  }
  DimVector perm;
  perm.resize(n);
  for (int64_t i = 0; i < n; ++i) perm[i] = -1;
  uint64_t used_src[kMaxDims / 64 + 1] = {};
  for (size_t i = 0; i < src.size(); ++i) {
    const int64_t s = wrap_dim("movedim", src[i], n), d = wrap_dim("movedim", dst[i], n);
    CT_CHECK(!(used_src[s / 64] >> (s % 64) & 1), CT_ERROR_INVALID_ARGUMENT, "movedim: dim ", s,
             " repeats in source ", src, ". List each dim once");
    CT_CHECK(perm[d] < 0, CT_ERROR_INVALID_ARGUMENT, "movedim: dim ", d, " repeats in destination ", dst,
             ". List each dim once");
    used_src[s / 64] |= uint64_t(1) << (s % 64);
    perm[d] = s;
  }
  int64_t next = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (perm[i] >= 0) continue;
    while (used_src[next / 64] >> (next % 64) & 1) ++next;
    perm[i] = next++;
  }
  f.outs[0] = permute(Tensor::borrow(&a), perm);
}

// unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)
void unflatten_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(a.dim() > 0, CT_ERROR_INDEX, "unflatten: cannot unflatten a 0-dim tensor. Reshape it to 1-D first");
  const int64_t d = wrap_dim("unflatten", f.arg(1).to_int(), a.dim());
  const SymIntArrayRef sizes = f.arg(2).sym_int_list();
  CT_CHECK(!sizes.empty(), CT_ERROR_INVALID_ARGUMENT, "unflatten: sizes is empty. Give the sizes dim ", d,
           " splits into");
  SymDimVector parts(sizes);
  SymInt known = 1;
  int infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i].maybe_int() == -1) {
      CT_CHECK(infer < 0, CT_ERROR_SHAPE, "unflatten: only one size can be -1, got ", sizes);
      infer = static_cast<int>(i);
      continue;
    }
    CT_SYM_CHECK(sizes[i] >= 0, CT_ERROR_SHAPE, "unflatten: invalid size ", sizes[i], " in ", sizes,
                 ". Sizes must be >= 0, or -1 to infer one");
    known = known * sizes[i];
  }
  const SymInt have = a.sym_size(d);
  if (infer >= 0) {
    CT_SYM_CHECK(sym_all({known != 0, have % sym_max(known, 1) == 0}), CT_ERROR_SHAPE, "unflatten: sizes ", sizes, " cannot split dim ", d,
             " of size ", have, " (input ", a.sym_sizes(), ")");
    parts[infer] = have / known;
  } else {
    CT_SYM_CHECK(known == have, CT_ERROR_SHAPE, "unflatten: sizes ", sizes, " multiply to ", known, " but dim ", d,
             " of the input ", a.sym_sizes(), " has size ", have, ". Give sizes whose product is ", have);
  }
  SymDimVector out;
  for (int64_t i = 0; i < d; ++i) out.push_back(a.sym_size(i));
  for (SymInt s : parts) out.push_back(s);
  for (int64_t i = d + 1; i < static_cast<int64_t>(a.dim()); ++i) out.push_back(a.sym_size(i));
  f.outs[0] = view_symint(Tensor::borrow(&a), out);
}

// expand_as(Tensor(a) self, Tensor other) -> Tensor(a)
void expand_as_kernel(void*, Frame& f) {
  f.outs[0] = expand_symint(Tensor::borrow(&f.tensor(0)), f.tensor(1).sym_sizes());
}

// broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)
void broadcast_to_kernel(void*, Frame& f) {
  f.outs[0] = expand_symint(Tensor::borrow(&f.tensor(0)), f.arg(1).sym_int_list());
}

}  // namespace

void define_moves(Registry& r) {
  r.def("movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)").composite(movedim_kernel);
  r.def("movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)").composite(movedim_kernel);
  r.def("moveaxis.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)").composite(movedim_kernel);
  r.def("moveaxis.int(Tensor(a) self, int source, int destination) -> Tensor(a)").composite(movedim_kernel);
  r.def("unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)").composite(unflatten_kernel);
  r.def("expand_as(Tensor(a) self, Tensor other) -> Tensor(a)").composite(expand_as_kernel);
  r.def("broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)").composite(broadcast_to_kernel);
}

}  // namespace ct::ops
