// update_ops.cpp - the update through the dispatcher's operators, for parameters the fused loop does
// not take (another device, a non-contiguous layout, float16 or bfloat16).
//
// OpValue gives a Tensor the arithmetic operators the shared formulas use (Note [One formula, two
// engines]); each becomes one out-of-place operator call, as each of torch's in-place calls is one
// kernel. The results are copied back into the parameter and the state slots at the end.
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "train/update.h"

namespace ct::train {
namespace {

struct OpValue {
  Tensor t;
};

OpValue operator+(const OpValue& a, const OpValue& b) { return {ops::add(a.t, b.t)}; }
OpValue operator-(const OpValue& a, const OpValue& b) { return {ops::sub(a.t, b.t)}; }
OpValue operator/(const OpValue& a, const OpValue& b) { return {ops::div(a.t, b.t)}; }
OpValue operator*(const OpValue& a, const OpValue& b) { return {ops::mul(a.t, b.t)}; }
OpValue operator-(const OpValue& a) { return {ops::neg(a.t)}; }
// A double operand is a Python float: a wrapped number that keeps the tensor's dtype.
OpValue operator+(const OpValue& a, double s) { return {ops::add(a.t, ops::wrap_scalar(Scalar(s)))}; }
OpValue operator*(const OpValue& a, double s) { return {ops::mul(a.t, Scalar(s))}; }
OpValue operator/(const OpValue& a, double s) { return {ops::div(a.t, Scalar(s))}; }
OpValue sqrt(const OpValue& a) { return {ops::sqrt(a.t)}; }
OpValue abs(const OpValue& a) { return {ops::abs(a.t)}; }
OpValue reciprocal(const OpValue& a) { return {ops::reciprocal(a.t)}; }
OpValue axpy(const OpValue& a, const OpValue& b, double s) { return {ops::add(a.t, b.t, Scalar(s))}; }
OpValue addcmul(const OpValue& a, const OpValue& t1, const OpValue& t2, double s) {
  return {ops::addcmul(a.t, t1.t, t2.t, s)};
}
OpValue maximum(const OpValue& a, const OpValue& b) { return {ops::maximum(a.t, b.t)}; }
OpValue sign(const OpValue& a) { return {ops::sign(a.t)}; }
OpValue clamp(const OpValue& a, double lo, double hi) { return {ops::clamp(a.t, Scalar(lo), Scalar(hi))}; }
// torch's three masked assignments, in its order (the values never meet a later mask: 0 < etaminus < 1 < etaplus).
OpValue rprop_factor(const OpValue& s, double etaplus, double etaminus) {
  Tensor f = ops::masked_fill(s.t, ops::gt(s.t, Scalar(0.)), Scalar(etaplus));
  f = ops::masked_fill(f, ops::lt(f, Scalar(0.)), Scalar(etaminus));
  return {ops::masked_fill(f, ops::eq(f, Scalar(0.)), Scalar(1.))};
}
OpValue zero_where_equal(const OpValue& a, const OpValue& f, double v) {
  return {ops::masked_fill(a.t, ops::eq(f.t, Scalar(v)), Scalar(0.))};
}

void write_back(const Tensor& dst, const OpValue& v) {
  if (dst.defined() && v.t.defined() && v.t.impl() != dst.impl()) ops::copy_(dst, v.t);
}

}  // namespace

void update_ops(Kind kind, const StepCoefs& sc, const StepTensors& t) {
  const Coefs<double> c(sc);
  OpValue p{t.param}, g{t.grad}, s[kSlots];
  for (int i = 0; i < kSlots; ++i) s[i].t = t.slot[i];
  switch (kind) {
    case Kind::SGD: sgd_update(c, p, g, s[0]); break;
    case Kind::Adam:
    case Kind::AdamW: adam_update(c, kind == Kind::AdamW, p, g, s[0], s[1], s[2]); break;
    case Kind::RMSprop: rmsprop_update(c, p, g, s[0], s[1], s[2]); break;
    case Kind::Adagrad: adagrad_update(c, p, g, s[0]); break;
    case Kind::Adamax: adamax_update(c, p, g, s[0], s[1]); break;
    case Kind::NAdam: nadam_update(c, p, g, s[0], s[1]); break;
    case Kind::RAdam: radam_update(c, p, g, s[0], s[1]); break;
    case Kind::Adadelta: adadelta_update(c, p, g, s[0], s[1]); break;
    case Kind::ASGD: asgd_update(c, p, g, s[0]); break;
    case Kind::Rprop: rprop_update(c, p, g, s[0], s[1]); break;
    case Kind::LBFGS: return;  // steps in lbfgs.cpp, never here
  }
  // The state first: a slot may hold the grad itself (SGD's first buffer is a copy of g).
  for (int i = 0; i < kSlots; ++i) write_back(t.slot[i], s[i]);
  write_back(t.param, p);
}

}  // namespace ct::train
