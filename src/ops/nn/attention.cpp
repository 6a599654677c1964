// attention.cpp - scaled_dot_product_attention: softmax(q k^T * scale + mask) v, with dropout on
// the attention weights.
//
// Two paths with one meaning. When nothing needs a gradient, the inputs are float32 without mask
// or dropout, each batch runs as one BLAS product into a scores buffer, the fused softmax in place
// (scale and causal masking folded in) and a second BLAS product: no intermediate tensors. Otherwise
// the same steps run as operators (matmul, where/add, softmax, dropout, matmul), whose derivatives
// give the gradient.
#include <cmath>
#include <limits>
#include <vector>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_mode.h"
#include "ops/cpu/gemm.h"
#include "ops/functions.h"
#include "ops/nn/nn.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

Tensor fused(const Tensor& q0, const Tensor& k0, const Tensor& v0, double scale, bool causal) {
  const Tensor q = expect_contiguous(q0), k = expect_contiguous(k0), v = expect_contiguous(v0);
  const size_t nd = q->dim();
  const int64_t L = q->size(nd - 2), S = k->size(nd - 2), E = q->size(nd - 1), Ev = v->size(nd - 1);
  DimVector out_sizes(q->sizes());
  out_sizes[nd - 1] = Ev;
  Tensor out = empty(out_sizes, DType::Float32, q->device());
  const int64_t batches = q->numel() / (L * E);
  const float* qp = q->data_as<float>();
  const float* kp = k->data_as<float>();
  const float* vp = v->data_as<float>();
  float* op = out->data_as<float>();
  std::vector<float> scores(static_cast<size_t>(L * S));
  for (int64_t b = 0; b < batches; ++b) {
    cpu::gemm(DType::Float32, L, S, E, Scalar(scale), {qp + b * L * E, E, 1}, {kp + b * S * E, 1, E}, Scalar(0.0),
              scores.data(), S);
    softmax_rows_f32(scores.data(), L, S, causal, 0);
    cpu::gemm(DType::Float32, L, Ev, S, Scalar(1.0), {scores.data(), S, 1}, {vp + b * S * Ev, Ev, 1}, Scalar(0.0),
              op + b * L * Ev, Ev);
  }
  return out;
}

// scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None,
//     float dropout_p=0.0, bool is_causal=False, *, float? scale=None, Generator? generator=None)
// [L, S], true where key j may be attended from query i (j <= i). A meta query has no values to
// mask, so its mask is a value-free bool tensor of those sizes.
Tensor causal_mask(SymInt L, SymInt S, Device dev) {
  if (dev.is_meta()) return empty_symint({L, S}, DType::Bool, dev);
  const int64_t l = L.expect_int(), s = S.expect_int();
  const Tensor rows = reshape(arange(0, static_cast<double>(l), 1, DType::Int64, dev), DimVector{l, 1});
  return ge(rows, arange(0, static_cast<double>(s), 1, DType::Int64, dev));
}

void sdpa_kernel(void*, Frame& f) {
  const char* op = "scaled_dot_product_attention";
  const Tensor q = Tensor::borrow(&f.tensor(0)), k = Tensor::borrow(&f.tensor(1)), v = Tensor::borrow(&f.tensor(2));
  const Tensor mask = f.arg(3).is_none() ? Tensor() : Tensor::borrow(&f.tensor(3));
  const double p = f.arg(4).to_double();
  const bool causal = f.arg(5).to_bool();
  CT_CHECK(q->dim() >= 2 && k->dim() >= 2 && v->dim() >= 2, CT_ERROR_SHAPE, op, ": query ", q->sym_sizes(), ", key ",
           k->sym_sizes(), " and value ", v->sym_sizes(), " need at least 2 dims [..., L, E]");
  CT_CHECK(is_floating(q->dtype()) && k->dtype() == q->dtype() && v->dtype() == q->dtype(), CT_ERROR_DTYPE, op,
           ": query, key and value must share one floating dtype, got ", q->dtype(), ", ", k->dtype(), " and ",
           v->dtype(), ". Convert them");
  const size_t nq = q->dim(), nk = k->dim(), nv = v->dim();
  // The embedding size sets the default scale, so a symbolic one is specialized (a guard); the batch
  // and sequence lengths may stay symbolic.
  const SymInt L = q->sym_size(nq - 2), S = k->sym_size(nk - 2);
  const int64_t E = q->sym_size(nq - 1).guard_int();
  CT_CHECK(k->sym_size(nk - 1) == E, CT_ERROR_SHAPE, op, ": query ", q->sym_sizes(), " and key ", k->sym_sizes(),
           " differ in the last dim. Give them one embedding size");
  CT_CHECK(v->sym_size(nv - 2) == S, CT_ERROR_SHAPE, op, ": key ", k->sym_sizes(), " and value ", v->sym_sizes(),
           " differ in the sequence dim (-2). Give them one length");
  CT_CHECK(p >= 0 && p <= 1, CT_ERROR_INVALID_ARGUMENT, op, ": dropout_p is ", p, ". Pass a probability in [0, 1]");
  CT_CHECK(!(causal && mask.defined()), CT_ERROR_INVALID_ARGUMENT, op,
           ": attn_mask and is_causal=true were both given. Pass one of them");
  CT_CHECK(!mask.defined() || mask->dtype() == DType::Bool || mask->dtype() == q->dtype(), CT_ERROR_DTYPE, op,
           ": attn_mask is ", mask.defined() ? mask->dtype() : DType::Bool, "; it must be bool or the query's dtype ",
           q->dtype());
  const double scale = f.arg(6).is_none() ? 1.0 / std::sqrt(static_cast<double>(E)) : f.arg(6).to_double();
  const bool needs_grad = autograd::grad_enabled() && (q->requires_grad() || k->requires_grad() || v->requires_grad());
  const auto batch = [](const Tensor& t) { return SymIntArrayRef(t->sym_sizes().data(), t->dim() - 2); };
  const bool same_batch = nq == nk && nq == nv && identical(batch(q), batch(k)) && identical(batch(q), batch(v));
  if (!needs_grad && !mask.defined() && p == 0 && q->dtype() == DType::Float32 && same_batch &&
      q->device().type == DeviceType::CPU && q->numel() > 0 && S.expect_int() > 0 && v->numel() > 0) {
    f.outs[0] = fused(q, k, v, scale, causal);
    return;
  }
  Tensor attn = mul(matmul(q, transpose(k, static_cast<int64_t>(nk) - 2, static_cast<int64_t>(nk) - 1)), Scalar(scale));
  const Tensor minus_inf = full({}, Scalar(-std::numeric_limits<double>::infinity()), attn->dtype(), attn->device());
  if (causal) {
    attn = where(causal_mask(L, S, q->device()), attn, minus_inf);
  } else if (mask.defined()) {
    attn = mask->dtype() == DType::Bool ? where(mask, attn, minus_inf) : add(attn, mask);
  }
  attn = softmax(attn, -1);
  if (p > 0) {
    attn = dropout(attn, p, true, f.arg(7).generator());
  }
  f.outs[0] = matmul(attn, v);
}

}  // namespace

void define_attention(Registry& r) {
  r.def("scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
        "float dropout_p=0.0, bool is_causal=False, *, float? scale=None, Generator? generator=None) -> Tensor")
      .composite(sdpa_kernel);
}

}  // namespace ct::ops
