// state_io.cpp - Optimizer::save and Optimizer::load: the optimizer state format of
// ct_optimizer_state_save (the header documents it field by field).
//
// Loading treats the bytes as hostile: every read is bounds-checked, sizes are checked for overflow
// and against the bytes left before anything is allocated, and the new state is built aside and
// swapped in only when all of it is valid.
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "ops/functions.h"
#include "train/optimizer.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the optimizer state stores little-endian bytes");

namespace ct::train {
namespace {

constexpr char kMagic[8] = {'C', 'T', 'O', 'P', 'T', 'I', 'M', '\0'};
// Version 2 (0.9) added lr_decay, initial_accumulator_value, momentum_decay, rho, the decoupled
// flag and each parameter's mu_product; version 3 (0.9) ASGD's and Rprop's options and each
// parameter's eta and mu, LBFGS's options, flag and run state. Older bytes load with the defaults of
// what they lack.
constexpr uint32_t kVersion = 3;
constexpr uint32_t kFlagNesterov = 1, kFlagAmsgrad = 2, kFlagCentered = 4, kFlagMaximize = 8, kFlagDecoupled = 16,
                   kFlagStrongWolfe = 32;
constexpr uint32_t kKnownFlags[] = {0, 15, 31, 63};  // by version
constexpr uint32_t kKnownKinds[] = {0, 9, 9, kNumKinds};  // by version: ASGD and Rprop came with 3
const char* const kLoad = "ct_optimizer_state_load";

template <typename T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void put_tensor(std::string& out, const Tensor& t) {
  const Tensor host = ops::contiguous(t->device().is_cpu() ? t : ops::to(t, kCPU, t->dtype()));
  out.append(static_cast<const char*>(host->data()), static_cast<size_t>(host->numel()) * itemsize(host->dtype()));
}

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : p_(data), size_(size) {}
  template <typename T>
  T get(const char* what) {
    T v;
    std::memcpy(&v, bytes(sizeof v, what), sizeof v);
    return v;
  }
  const uint8_t* bytes(size_t n, const char* what) {
    CT_CHECK(n <= size_ - at_, CT_ERROR_FORMAT, kLoad, ": the data ends at byte ", size_, " while reading ", what,
             " (", n, " bytes at offset ", at_, "). Pass all the bytes ct_optimizer_state_save wrote");
    const uint8_t* r = p_ + at_;
    at_ += n;
    return r;
  }
  size_t offset() const { return at_; }
  size_t left() const { return size_ - at_; }

 private:
  const uint8_t* p_;
  size_t size_, at_ = 0;
};

}  // namespace

std::string Optimizer::save() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::string out(kMagic, sizeof kMagic);
  put<uint32_t>(out, kVersion);
  put<uint32_t>(out, static_cast<uint32_t>(h_.kind));
  put<uint32_t>(out, (h_.nesterov ? kFlagNesterov : 0) | (h_.amsgrad ? kFlagAmsgrad : 0) |
                         (h_.centered ? kFlagCentered : 0) | (h_.maximize ? kFlagMaximize : 0) |
                         (h_.decoupled_weight_decay ? kFlagDecoupled : 0) | (h_.strong_wolfe ? kFlagStrongWolfe : 0));
  put<uint32_t>(out, 0);
  for (double v : {h_.lr, h_.momentum, h_.dampening, h_.weight_decay, h_.beta1, h_.beta2, h_.eps, h_.alpha,
                   h_.lr_decay, h_.initial_accumulator_value, h_.momentum_decay, h_.rho, h_.lambd, h_.t0,
                   h_.etaminus, h_.etaplus, h_.step_size_min, h_.step_size_max, h_.tolerance_grad, h_.tolerance_change})
    put<double>(out, v);
  for (int64_t v : {h_.max_iter, h_.max_eval, h_.history_size}) put<int64_t>(out, v);
  put<uint64_t>(out, params_.size());
  for (const ParamState& s : params_) {
    const TensorImpl& p = *s.param;
    put<uint32_t>(out, static_cast<uint32_t>(p.dtype()));
    put<uint32_t>(out, static_cast<uint32_t>(p.dim()));
    for (int64_t d : p.sizes()) put<int64_t>(out, d);
    put<double>(out, s.step);
    put<double>(out, s.scalars.mu_product);
    put<double>(out, s.scalars.eta);
    put<double>(out, s.scalars.mu);
    uint32_t mask = 0;
    for (int k = 0; k < kSlots; ++k) mask |= s.slot[k].defined() ? 1u << k : 0u;
    put<uint32_t>(out, mask);
    put<uint32_t>(out, 0);
    for (const Tensor& slot : s.slot)
      if (slot.defined()) put_tensor(out, slot);
  }
  if (h_.kind == Kind::LBFGS) {
    const LbfgsState& l = lbfgs_;
    for (double v : {l.func_evals, l.n_iter, l.t, l.h_diag, l.prev_loss}) put<double>(out, v);
    put<uint32_t>(out, l.d.defined() ? 1 : 0);
    put<uint32_t>(out, static_cast<uint32_t>(l.old_dirs.size()));
    if (l.d.defined()) {
      put_tensor(out, l.d);
      put_tensor(out, l.prev_flat_grad);
    }
    for (size_t k = 0; k < l.old_dirs.size(); ++k) {
      put_tensor(out, l.old_dirs[k]);
      put_tensor(out, l.old_stps[k]);
      put<double>(out, l.ro[k]);
    }
  }
  return out;
}

namespace {

// LBFGS's run state: flat vectors of the parameters' total numel, dtype and device.
LbfgsState load_lbfgs(Reader& r, const Hyper& h, const std::vector<ParamState>& params) {
  LbfgsState l;
  for (double* f : {&l.func_evals, &l.n_iter, &l.t, &l.h_diag, &l.prev_loss}) *f = r.get<double>("LBFGS's state");
  for (double v : {l.func_evals, l.n_iter, l.t, l.h_diag, l.prev_loss})
    CT_CHECK(std::isfinite(v), CT_ERROR_FORMAT, kLoad, ": LBFGS's state holds ", v, " before offset ", r.offset(),
             "; its numbers are finite");
  const uint32_t has_vectors = r.get<uint32_t>("LBFGS's direction flag");
  const uint32_t k = r.get<uint32_t>("LBFGS's history count");
  CT_CHECK(has_vectors <= 1 && int64_t{k} <= h.history_size && (k == 0 || has_vectors), CT_ERROR_FORMAT, kLoad,
           ": LBFGS's state has direction flag ", has_vectors, " and ", k, " curvature pairs (history_size ",
           h.history_size, ") before offset ", r.offset());
  const TensorImpl& p0 = *params[0].param;
  int64_t n = 0;
  for (const ParamState& s : params) n += s.param->numel();  // the parameters exist: no overflow
  const size_t nbytes = static_cast<size_t>(n) * itemsize(p0.dtype());
  auto vector = [&](const char* what) {
    const uint8_t* src = r.bytes(nbytes, what);
    Tensor host = ops::empty({n}, p0.dtype(), kCPU);
    std::memcpy(host->data(), src, nbytes);
    return p0.device().is_cpu() ? host : ops::to(host, p0.device(), p0.dtype());
  };
  if (has_vectors) {
    l.d = vector("LBFGS's direction");
    l.prev_flat_grad = vector("LBFGS's previous gradient");
  }
  for (uint32_t i = 0; i < k; ++i) {
    l.old_dirs.push_back(vector("a curvature pair"));
    l.old_stps.push_back(vector("a curvature pair"));
    const double ro = r.get<double>("a curvature pair");
    CT_CHECK(std::isfinite(ro), CT_ERROR_FORMAT, kLoad, ": LBFGS's curvature pair ", i, " has 1 / y.s = ", ro,
             "; it is finite");
    l.ro.push_back(ro);
  }
  return l;
}

}  // namespace

void Optimizer::load(const uint8_t* data, size_t size) {
  Reader r(data, size);
  CT_CHECK(size >= sizeof kMagic && std::memcmp(data, kMagic, sizeof kMagic) == 0, CT_ERROR_FORMAT, kLoad,
           ": these bytes are not optimizer state (no CTOPTIM magic at offset 0). Pass what ct_optimizer_state_save "
           "wrote");
  r.bytes(sizeof kMagic, "the magic");
  const uint32_t version = r.get<uint32_t>("the version");
  CT_CHECK(version >= 1 && version <= kVersion, CT_ERROR_FORMAT, kLoad, ": state format version ", version,
           " is not one this ctorch reads (1 to ", kVersion, "). Save it with this version of ctorch");
  const uint32_t kind = r.get<uint32_t>("the kind");
  CT_CHECK(kind < kKnownKinds[version], CT_ERROR_FORMAT, kLoad, ": unknown optimizer kind ", kind,
           " at offset 12 for state format version ", version);
  const uint32_t flags = r.get<uint32_t>("the flags");
  CT_CHECK((flags & ~kKnownFlags[version]) == 0, CT_ERROR_FORMAT, kLoad, ": unknown flag bits in ", flags,
           " at offset 16");
  r.get<uint32_t>("padding");
  Hyper h;
  h.kind = static_cast<Kind>(kind);
  h.nesterov = flags & kFlagNesterov;
  h.amsgrad = flags & kFlagAmsgrad;
  h.centered = flags & kFlagCentered;
  h.maximize = flags & kFlagMaximize;
  h.decoupled_weight_decay = flags & kFlagDecoupled;
  h.strong_wolfe = flags & kFlagStrongWolfe;
  for (double* f : {&h.lr, &h.momentum, &h.dampening, &h.weight_decay, &h.beta1, &h.beta2, &h.eps, &h.alpha})
    *f = r.get<double>("the options");
  if (version >= 2) {
    for (double* f : {&h.lr_decay, &h.initial_accumulator_value, &h.momentum_decay, &h.rho})
      *f = r.get<double>("the options");
  }
  if (version >= 3) {
    for (double* f : {&h.lambd, &h.t0, &h.etaminus, &h.etaplus, &h.step_size_min, &h.step_size_max,
                      &h.tolerance_grad, &h.tolerance_change})
      *f = r.get<double>("the options");
    for (int64_t* f : {&h.max_iter, &h.max_eval, &h.history_size}) *f = r.get<int64_t>("the options");
  }
  check_hyper(h, kLoad, CT_ERROR_FORMAT);
  const uint64_t n = r.get<uint64_t>("the parameter count");

  std::lock_guard<std::recursive_mutex> lock(mu_);
  check_not_in_closure(kLoad);
  CT_CHECK(h.kind == h_.kind, CT_ERROR_INVALID_ARGUMENT, kLoad, ": the state is ", kind_name(h.kind),
           "'s but the optimizer is ", kind_name(h_.kind), ". Load it into a ", kind_name(h.kind), " optimizer");
  CT_CHECK(n == params_.size(), CT_ERROR_INVALID_ARGUMENT, kLoad, ": the state has ", n,
           " parameters but the optimizer ", params_.size(), ". Create the optimizer over the same parameters");
  std::vector<ParamState> loaded(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    const TensorImpl& p = *params_[i].param;
    const uint32_t dtype = r.get<uint32_t>("a dtype");
    CT_CHECK(dtype == static_cast<uint32_t>(p.dtype()), CT_ERROR_INVALID_ARGUMENT, kLoad, ": parameter ", i,
             " is ", p.dtype(), " but its state was saved for ",
             dtype < static_cast<uint32_t>(kNumDTypes) ? dtype_name(static_cast<DType>(dtype)) : "an unknown dtype",
             ". Load state saved for these parameters");
    const uint32_t ndim = r.get<uint32_t>("a dim count");
    CT_CHECK(ndim <= kMaxDims, CT_ERROR_FORMAT, kLoad, ": parameter ", i, " has ", ndim, " dims at offset ",
             r.offset() - 4, ", more than ", kMaxDims);
    DimVector sizes;
    for (uint32_t d = 0; d < ndim; ++d) sizes.push_back(r.get<int64_t>("sizes"));
    CT_CHECK(sizes.ref().equals(p.sizes()), CT_ERROR_INVALID_ARGUMENT, kLoad, ": parameter ", i, " has sizes ",
             p.sizes(), " but its state was saved for sizes ", sizes.ref(), ". Load state saved for these parameters");
    const double step = r.get<double>("a step count");
    CT_CHECK(std::isfinite(step) && step >= 0 && step == std::floor(step) && step <= 9007199254740992.0,
             CT_ERROR_FORMAT, kLoad, ": parameter ", i, " has step count ", step, " at offset ", r.offset() - 8,
             "; a step count is a whole number >= 0");
    ScalarState scalars;
    if (version >= 2) scalars.mu_product = r.get<double>("a mu_product");
    if (version >= 3) {
      scalars.eta = r.get<double>("an eta");
      scalars.mu = r.get<double>("a mu");
    }
    for (double v : {scalars.mu_product, scalars.eta, scalars.mu})
      CT_CHECK(std::isfinite(v), CT_ERROR_FORMAT, kLoad, ": parameter ", i, " has scalar state ", v,
               " (mu_product, eta or mu) before offset ", r.offset(), "; each is a finite number");
    const uint32_t mask = r.get<uint32_t>("a buffer mask");
    const uint32_t allowed = h.kind == Kind::SGD || h.kind == Kind::Adagrad || h.kind == Kind::ASGD ? 1u
                             : h.kind == Kind::Adam || h.kind == Kind::AdamW || h.kind == Kind::RMSprop ? 7u
                                                                                                        : 3u;
    CT_CHECK((mask & ~allowed) == 0, CT_ERROR_FORMAT, kLoad, ": parameter ", i, " has buffer mask ", mask,
             " at offset ", r.offset() - 4, "; ", kind_name(h.kind), " has buffers ", allowed);
    r.get<uint32_t>("padding");
    loaded[i].param = params_[i].param;
    loaded[i].step = step;
    loaded[i].scalars = scalars;
    const size_t nbytes = static_cast<size_t>(p.numel()) * itemsize(p.dtype());  // sizes equal p's: no overflow
    for (int k = 0; k < kSlots; ++k) {
      if (!(mask & (1u << k))) continue;
      const uint8_t* src = r.bytes(nbytes, "a state buffer");
      Tensor host = ops::empty(p.sizes(), p.dtype(), kCPU);
      std::memcpy(host->data(), src, nbytes);
      loaded[i].slot[k] = p.device().is_cpu() ? std::move(host) : ops::to(host, p.device(), p.dtype());
    }
  }
  LbfgsState lbfgs;
  if (h.kind == Kind::LBFGS) lbfgs = load_lbfgs(r, h, params_);
  CT_CHECK(r.left() == 0, CT_ERROR_FORMAT, kLoad, ": ", r.left(), " bytes follow the state at offset ", r.offset(),
           ". Pass exactly the bytes ct_optimizer_state_save wrote");
  h_ = h;
  params_ = std::move(loaded);
  lbfgs_ = std::move(lbfgs);
}

}  // namespace ct::train
