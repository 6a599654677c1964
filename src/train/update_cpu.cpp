// update_cpu.cpp - the fused CPU loops: one pass over a parameter's elements per step.
//
// Each element's update reads param, grad and the state slots once and writes them once, with every
// intermediate in registers (torch's single-tensor path makes about ten passes over memory). The
// formula is the shared one (see Note [One formula, two engines]); the loop is compiled twice, for
// the baseline ISA and for AVX2, as the elementwise engine is (Note [CPU capability dispatch]), and
// without contraction both give the same bits.
#include "ops/cpu/isa.h"
#include "ops/cpu/parallel.h"
#include "train/update.h"

namespace ct::train {
namespace {

// The loops take the kernel by value: its pointers and coefficients are then locals the stores
// through the pointers cannot alias, so they stay in registers and the loop vectorizes.
template <typename K>
void range_baseline(const K k, int64_t b, int64_t e) {
  for (int64_t i = b; i < e; ++i) k(i);
}
#if CT_HAVE_AVX2_KERNELS
template <typename K>
CT_TARGET_AVX2 void range_avx2(const K k, int64_t b, int64_t e) {
  for (int64_t i = b; i < e; ++i) k(i);
}
#endif

template <typename K>
void run(const K& k, int64_t n) {
  // Elements are independent, so how the range is split never changes a result.
  cpu::parallel_for(0, n, cpu::kElementwiseGrain, [&k](int64_t b, int64_t e) {
#if CT_HAVE_AVX2_KERNELS
    if (cpu::has_avx2()) return range_avx2(k, b, e);
#endif
    range_baseline(k, b, e);
  });
}

template <typename T>
T* ptr(const Tensor& t) {
  return t.defined() ? t->data_as<T>() : nullptr;
}

// Each kernel loads what its flags say exists; an absent slot is a register that is never stored.
// kRead: the momentum buffer holds a value; kWrite: momentum is on (the first step only writes it).
template <typename T, bool kRead, bool kWrite>
struct Sgd {
  Coefs<T> c;
  T* p;
  const T* g;
  T* buf;
  void operator()(int64_t i) const {
    T pi = p[i], b = kRead ? buf[i] : T(0);
    sgd_update(c, pi, g[i], b);
    p[i] = pi;
    if (kWrite) buf[i] = b;
  }
};

template <typename T, bool kAmsgrad>
struct Adam {
  Coefs<T> c;
  bool decoupled;
  T* p;
  const T* g;
  T *m, *v, *vmax;
  void operator()(int64_t i) const {
    T pi = p[i], mi = m[i], vi = v[i], xi = kAmsgrad ? vmax[i] : T(0);
    adam_update(c, decoupled, pi, g[i], mi, vi, xi);
    p[i] = pi;
    m[i] = mi;
    v[i] = vi;
    if (kAmsgrad) vmax[i] = xi;
  }
};

template <typename T, bool kMomentum, bool kCentered>
struct Rmsprop {
  Coefs<T> c;
  T* p;
  const T* g;
  T *sq, *buf, *gavg;
  void operator()(int64_t i) const {
    T pi = p[i], si = sq[i], bi = kMomentum ? buf[i] : T(0), ai = kCentered ? gavg[i] : T(0);
    rmsprop_update(c, pi, g[i], si, bi, ai);
    p[i] = pi;
    sq[i] = si;
    if (kMomentum) buf[i] = bi;
    if (kCentered) gavg[i] = ai;
  }
};

// Adagrad, ASGD, Adamax, NAdam, RAdam, Adadelta and Rprop: one or two state slots, always present.
template <typename T, void (*Update)(const Coefs<T>&, T&, T, T&)>
struct OneSlot {
  Coefs<T> c;
  T* p;
  const T* g;
  T* s0;
  void operator()(int64_t i) const {
    T pi = p[i], a = s0[i];
    Update(c, pi, g[i], a);
    p[i] = pi;
    s0[i] = a;
  }
};

template <typename T, void (*Update)(const Coefs<T>&, T&, T, T&, T&)>
struct TwoSlots {
  Coefs<T> c;
  T* p;
  const T* g;
  T *s0, *s1;
  void operator()(int64_t i) const {
    T pi = p[i], a = s0[i], b = s1[i];
    Update(c, pi, g[i], a, b);
    p[i] = pi;
    s0[i] = a;
    s1[i] = b;
  }
};

template <typename T>
void update_typed(Kind kind, const StepCoefs& sc, const StepTensors& t) {
  const Coefs<T> c(sc);
  T* p = ptr<T>(t.param);
  const T* g = ptr<T>(t.grad);
  T *s0 = ptr<T>(t.slot[0]), *s1 = ptr<T>(t.slot[1]), *s2 = ptr<T>(t.slot[2]);
  const int64_t n = t.param->numel();
  switch (kind) {
    case Kind::SGD:
      if (!c.use_momentum) return run(Sgd<T, false, false>{c, p, g, s0}, n);
      if (c.has_momentum_buffer) return run(Sgd<T, true, true>{c, p, g, s0}, n);
      return run(Sgd<T, false, true>{c, p, g, s0}, n);
    case Kind::Adam:
    case Kind::AdamW: {
      const bool decoupled = kind == Kind::AdamW;
      if (c.amsgrad) return run(Adam<T, true>{c, decoupled, p, g, s0, s1, s2}, n);
      return run(Adam<T, false>{c, decoupled, p, g, s0, s1, s2}, n);
    }
    case Kind::RMSprop:
      if (c.use_momentum && c.centered) return run(Rmsprop<T, true, true>{c, p, g, s0, s1, s2}, n);
      if (c.use_momentum) return run(Rmsprop<T, true, false>{c, p, g, s0, s1, s2}, n);
      if (c.centered) return run(Rmsprop<T, false, true>{c, p, g, s0, s1, s2}, n);
      return run(Rmsprop<T, false, false>{c, p, g, s0, s1, s2}, n);
    case Kind::Adagrad: return run(OneSlot<T, adagrad_update<T, T>>{c, p, g, s0}, n);
    case Kind::Adamax: return run(TwoSlots<T, adamax_update<T, T>>{c, p, g, s0, s1}, n);
    case Kind::NAdam: return run(TwoSlots<T, nadam_update<T, T>>{c, p, g, s0, s1}, n);
    case Kind::RAdam: return run(TwoSlots<T, radam_update<T, T>>{c, p, g, s0, s1}, n);
    case Kind::Adadelta: return run(TwoSlots<T, adadelta_update<T, T>>{c, p, g, s0, s1}, n);
    case Kind::ASGD: return run(OneSlot<T, asgd_update<T, T>>{c, p, g, s0}, n);
    case Kind::Rprop: return run(TwoSlots<T, rprop_update<T, T>>{c, p, g, s0, s1}, n);
    case Kind::LBFGS: return;  // steps in lbfgs.cpp, never here
  }
}

}  // namespace

bool fusable(const StepTensors& t) {
  const DType d = t.param->dtype();
  return t.param->device().is_cpu() && (d == DType::Float32 || d == DType::Float64) && t.param->is_contiguous();
}

void update_fused(Kind kind, const StepCoefs& c, const StepTensors& t) {
  if (t.param->dtype() == DType::Float32) update_typed<float>(kind, c, t);
  else update_typed<double>(kind, c, t);
  // As an in-place operator does (see Note [Saved tensor versions]): a graph that saved the old
  // parameter now refuses to run backward.
  t.param->storage()->bump_version();
  for (const Tensor& s : t.slot)
    if (s.defined()) s->storage()->bump_version();
}

}  // namespace ct::train
