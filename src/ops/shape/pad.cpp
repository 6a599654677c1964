// pad.cpp - padding: constant_pad_nd (any number of dims, negative pads crop), reflection_pad and
// replication_pad over the last 1, 2 or 3 dims, and pad, torch.nn.functional.pad's operator that
// picks one by mode (circular included). Every one is a composite of narrow, flip, expand, full
// and cat: one copy per padded dim, whatever the dtype, and derivatives that follow from theirs.
#include <cstring>
#include <string>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// pad lists pairs (before, after) from the last dim backwards, as torch's pad arguments do.
void check_pad_length(const char* op, IntArrayRef pad, size_t ndim) {
  CT_CHECK(pad.size() % 2 == 0, CT_ERROR_INVALID_ARGUMENT, op, ": pad ", pad, " has ", pad.size(),
           " entries. Give an even number: (before, after) per dim, from the last dim backwards");
  CT_CHECK(pad.size() / 2 <= ndim, CT_ERROR_INVALID_ARGUMENT, op, ": pad ", pad, " pads ", pad.size() / 2,
           " dims but the input has only ", ndim, ". Give at most two entries per dim");
}

Tensor join(std::initializer_list<Tensor> pieces, int64_t dim) {
  std::vector<const TensorImpl*> impls;
  for (const Tensor& p : pieces)
    if (p.defined()) impls.push_back(p.impl());
  return cat(impls, dim);
}

// constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor
void constant_pad_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  IntArrayRef pad = f.arg(1).int_list();
  const Scalar value = f.arg(2).to_scalar();
  check_pad_length("constant_pad_nd", pad, a.dim());
  Tensor x = Tensor::borrow(&a);
  bool copied = false;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = static_cast<int64_t>(a.dim() - 1 - i);
    const int64_t before = pad[2 * i], after = pad[2 * i + 1];
    const SymInt n = a.sym_size(d);
    CT_SYM_CHECK(n + (before + after) >= 0, CT_ERROR_SHAPE, "constant_pad_nd: dim ", d, " of size ", n,
                 " padded by (", before, ", ", after, ") would have a negative size (input ", a.sym_sizes(),
                 "). Crop less");
    if (before < 0) x = narrow_symint(x, d, -before, x->sym_size(d) + before);
    if (after < 0) x = narrow_symint(x, d, 0, x->sym_size(d) + after);
    if (before <= 0 && after <= 0) continue;
    auto filled = [&](int64_t len) {
      if (len <= 0) return Tensor();
      SymDimVector s(x->sym_sizes());
      s[d] = len;
      return full_symint(s, value, a.dtype(), a.device());
    };
    x = join({filled(before), x, filled(after)}, d);
    copied = true;
  }
  f.outs[0] = copied ? x : clone(x);
}

enum class Mode { Reflect, Replicate, Circular };

const char* mode_op(Mode m, int64_t k) {
  static const char* names[3][3] = {{"reflection_pad1d", "reflection_pad2d", "reflection_pad3d"},
                                    {"replication_pad1d", "replication_pad2d", "replication_pad3d"},
                                    {"pad (circular) 1d", "pad (circular) 2d", "pad (circular) 3d"}};
  return names[static_cast<int>(m)][k - 1];
}

// Pads the last k dims of a (k + 1 or k + 2 dims: unbatched or batched) by reflecting,
// replicating or wrapping around its edges.
Tensor pad_edges(const Tensor& a, IntArrayRef pad, Mode mode, int64_t k) {
  const char* op = mode_op(mode, k);
  const int64_t nd = static_cast<int64_t>(a->dim());
  CT_CHECK(nd == k + 1 || nd == k + 2, CT_ERROR_SHAPE, op, ": the input ", a->sym_sizes(), " has ", nd,
           " dims. Expected ", k + 1, " (unbatched) or ", k + 2, " (batched)");
  CT_CHECK(static_cast<int64_t>(pad.size()) == 2 * k, CT_ERROR_INVALID_ARGUMENT, op, ": padding ", pad, " has ",
           pad.size(), " entries. Expected ", 2 * k, ": (before, after) for each of the last ", k, " dims");
  for (int64_t d = nd == k + 2 ? 1 : 0; d < nd; ++d)
    CT_SYM_CHECK(a->sym_size(d) > 0, CT_ERROR_SHAPE, op, ": the input ", a->sym_sizes(), " has an empty dim ", d,
                 ". Only the batch dim may be empty");
  Tensor x = a;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i;
    const int64_t before = pad[2 * i], after = pad[2 * i + 1];
    const SymInt n = a->sym_size(d);
    CT_CHECK(before >= 0 && after >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": padding ", pad,
             " has a negative entry. Crop with narrow or constant padding instead");
    if (mode == Mode::Reflect)
      CT_SYM_CHECK(sym_all({n > before, n > after}), CT_ERROR_INVALID_ARGUMENT, op, ": padding (", before, ", ", after,
               ") of dim ", d, " must be less than its size ", n, " (input ", a->sym_sizes(), ")");
    if (mode == Mode::Circular)
      CT_SYM_CHECK(sym_all({n >= before, n >= after}), CT_ERROR_INVALID_ARGUMENT, op, ": padding (", before, ", ", after,
               ") of dim ", d, " must be at most its size ", n, " (input ", a->sym_sizes(), ")");
    Tensor lo, hi;
    SymDimVector s(x->sym_sizes());
    if (before > 0) {
      if (mode == Mode::Reflect) {
        lo = flip(narrow(x, d, 1, before), {d});
      } else if (mode == Mode::Replicate) {
        s[d] = before;
        lo = expand_symint(narrow(x, d, 0, 1), s);
      } else {
        lo = narrow_symint(x, d, n - before, before);
      }
    }
    if (after > 0) {
      if (mode == Mode::Reflect) {
        hi = flip(narrow_symint(x, d, n - (1 + after), after), {d});
      } else if (mode == Mode::Replicate) {
        s[d] = after;
        hi = expand_symint(narrow_symint(x, d, n - 1, 1), s);
      } else {
        hi = narrow(x, d, 0, after);
      }
    }
    if (lo.defined() || hi.defined()) x = join({lo, x, hi}, d);
  }
  return x.impl() == a.impl() ? clone(x) : x;
}

// reflection_pad{1,2,3}d(Tensor self, SymInt[2k] padding) -> Tensor, replication_pad likewise.
template <Mode M, int K>
void edge_pad_kernel(void*, Frame& f) {
  f.outs[0] = pad_edges(Tensor::borrow(&f.tensor(0)), f.arg(1).int_list(), M, K);
}

// pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) -> Tensor
void pad_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  IntArrayRef pad = f.arg(1).int_list();
  const std::string mode = f.arg(2).str();
  const Tensor self = Tensor::borrow(&a);
  if (mode == "constant") {
    const Scalar value = f.arg(3).is_none() ? Scalar(int64_t(0)) : Scalar(f.arg(3).to_double());
    f.outs[0] = constant_pad_nd(self, pad, value);
    return;
  }
  Mode m;
  if (mode == "reflect") m = Mode::Reflect;
  else if (mode == "replicate") m = Mode::Replicate;
  else if (mode == "circular") m = Mode::Circular;
  else
    fail(CT_ERROR_INVALID_ARGUMENT,
         str("pad: unknown mode '", mode, "'. Use 'constant', 'reflect', 'replicate' or 'circular'"));
  CT_CHECK(f.arg(3).is_none(), CT_ERROR_INVALID_ARGUMENT, "pad: mode '", mode,
           "' takes no value argument. Pass value only with mode 'constant'");
  check_pad_length("pad", pad, a.dim());
  const int64_t k = static_cast<int64_t>(pad.size() / 2);
  CT_CHECK(k >= 1 && k <= 3 && (static_cast<int64_t>(a.dim()) == k + 1 || static_cast<int64_t>(a.dim()) == k + 2),
           CT_ERROR_INVALID_ARGUMENT, "pad: mode '", mode, "' pads the last 1, 2 or 3 dims of a 2-D or 3-D, 3-D or 4-D, "
           "4-D or 5-D input; got pad ", pad, " for an input ", a.sym_sizes());
  if (m == Mode::Circular) {
    f.outs[0] = pad_edges(self, pad, m, k);
    return;
  }
  Tensor (*const edge_pads[2][3])(const Tensor&, IntArrayRef) = {
      {reflection_pad1d, reflection_pad2d, reflection_pad3d}, {replication_pad1d, replication_pad2d, replication_pad3d}};
  f.outs[0] = edge_pads[static_cast<int>(m)][k - 1](self, pad);
}

}  // namespace

void define_pad(Registry& r) {
  r.def("constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor").composite(constant_pad_kernel);
  r.def("reflection_pad1d(Tensor self, SymInt[2] padding) -> Tensor").composite(edge_pad_kernel<Mode::Reflect, 1>);
  r.def("reflection_pad2d(Tensor self, SymInt[4] padding) -> Tensor").composite(edge_pad_kernel<Mode::Reflect, 2>);
  r.def("reflection_pad3d(Tensor self, SymInt[6] padding) -> Tensor").composite(edge_pad_kernel<Mode::Reflect, 3>);
  r.def("replication_pad1d(Tensor self, SymInt[2] padding) -> Tensor").composite(edge_pad_kernel<Mode::Replicate, 1>);
  r.def("replication_pad2d(Tensor self, SymInt[4] padding) -> Tensor").composite(edge_pad_kernel<Mode::Replicate, 2>);
  r.def("replication_pad3d(Tensor self, SymInt[6] padding) -> Tensor").composite(edge_pad_kernel<Mode::Replicate, 3>);
  r.def("pad(Tensor self, SymInt[] pad, str mode='constant', float? value=None) -> Tensor").composite(pad_kernel);
}

}  // namespace ct::ops
