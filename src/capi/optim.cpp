// optim.cpp - ct_optimizer_* and ct_lr_scheduler_* through the C ABI.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "capi/handle.h"
#include "capi/tagged_handle.h"
#include "core/fault_injection.h"
#include "train/lr_scheduler.h"
#include "train/optimizer.h"

using namespace ct;
using train::Hyper;
using train::Kind;
using train::LrScheduler;
using train::Optimizer;

struct ct_optimizer {
  uint32_t tag;
  std::atomic<int32_t> refs{1};
  std::shared_ptr<Optimizer> opt;  // shared with the schedulers bound to it
};
struct ct_lr_scheduler {
  uint32_t tag;
  std::atomic<int32_t> refs{1};
  std::unique_ptr<LrScheduler> sched;
};

namespace {

constexpr uint32_t kOptimizerTag = 0x43544f50u;  // "CTOP"
constexpr uint32_t kSchedulerTag = 0x43544c52u;  // "CTLR"

Optimizer& opt_arg(const ct_optimizer* o, const char* fn) {
  return *capi::live_tagged(o, kOptimizerTag, fn, "opt").opt;
}
LrScheduler& sched_arg(const ct_lr_scheduler* s, const char* fn) {
  return *capi::live_tagged(s, kSchedulerTag, fn, "sched").sched;
}

// Each C field and the Hyper member behind it, listed once:
// both directions of the mapping walk the same lists, so a new option is one line per list.
constexpr std::pair<double Hyper::*, double ct_optimizer_options::*> kDoubleFields[] = {
    {&Hyper::lr, &ct_optimizer_options::lr},
    {&Hyper::momentum, &ct_optimizer_options::momentum},
    {&Hyper::dampening, &ct_optimizer_options::dampening},
    {&Hyper::weight_decay, &ct_optimizer_options::weight_decay},
    {&Hyper::beta1, &ct_optimizer_options::beta1},
    {&Hyper::beta2, &ct_optimizer_options::beta2},
    {&Hyper::eps, &ct_optimizer_options::eps},
    {&Hyper::alpha, &ct_optimizer_options::alpha},
    {&Hyper::lr_decay, &ct_optimizer_options::lr_decay},
    {&Hyper::initial_accumulator_value, &ct_optimizer_options::initial_accumulator_value},
    {&Hyper::momentum_decay, &ct_optimizer_options::momentum_decay},
    {&Hyper::rho, &ct_optimizer_options::rho},
    {&Hyper::lambd, &ct_optimizer_options::lambd},
    {&Hyper::t0, &ct_optimizer_options::t0},
    {&Hyper::etaminus, &ct_optimizer_options::etaminus},
    {&Hyper::etaplus, &ct_optimizer_options::etaplus},
    {&Hyper::step_size_min, &ct_optimizer_options::step_size_min},
    {&Hyper::step_size_max, &ct_optimizer_options::step_size_max},
    {&Hyper::tolerance_grad, &ct_optimizer_options::tolerance_grad},
    {&Hyper::tolerance_change, &ct_optimizer_options::tolerance_change},
};
constexpr std::pair<int64_t Hyper::*, int64_t ct_optimizer_options::*> kIntFields[] = {
    {&Hyper::max_iter, &ct_optimizer_options::max_iter},
    {&Hyper::max_eval, &ct_optimizer_options::max_eval},
    {&Hyper::history_size, &ct_optimizer_options::history_size},
};
constexpr std::pair<bool Hyper::*, int ct_optimizer_options::*> kFlagFields[] = {
    {&Hyper::nesterov, &ct_optimizer_options::nesterov},
    {&Hyper::amsgrad, &ct_optimizer_options::amsgrad},
    {&Hyper::centered, &ct_optimizer_options::centered},
    {&Hyper::maximize, &ct_optimizer_options::maximize},
    {&Hyper::decoupled_weight_decay, &ct_optimizer_options::decoupled_weight_decay},
    {&Hyper::strong_wolfe, &ct_optimizer_options::strong_wolfe},
};

Hyper hyper_from(const ct_optimizer_options& o) {
  Hyper h;
  h.kind = static_cast<Kind>(static_cast<uint32_t>(capi::raw_enum(o.kind)));
  for (const auto& [hyper, field] : kDoubleFields) h.*hyper = o.*field;
  for (const auto& [hyper, field] : kIntFields) h.*hyper = o.*field;
  for (const auto& [hyper, field] : kFlagFields) h.*hyper = o.*field != 0;
  return h;
}

void fill_options(const Hyper& h, ct_optimizer_options* o) {
  o->kind = static_cast<ct_optimizer_kind>(h.kind);
  for (const auto& [hyper, field] : kDoubleFields) o->*field = h.*hyper;
  for (const auto& [hyper, field] : kIntFields) o->*field = h.*hyper;
  for (const auto& [hyper, field] : kFlagFields) o->*field = h.*hyper ? 1 : 0;
}

Kind kind_arg(const ct_optimizer_kind& kind, const char* fn) {
  const int k = capi::raw_enum(kind);
  CT_CHECK(k >= 0 && static_cast<uint32_t>(k) < train::kNumKinds, CT_ERROR_INVALID_ARGUMENT, fn, ": kind ", k,
           " is unknown. Use a CT_OPTIMIZER_ value (SGD to LBFGS)");
  return static_cast<Kind>(k);
}

// Options structs are size-first: a caller built against a later header passes a larger struct, of
// which this library reads the fields it knows; one built against 0.8's ends at maximize, and one
// built against an earlier 0.9 header (before ASGD, Rprop and LBFGS) at decoupled_weight_decay.
constexpr size_t kOptimizerOptionsSize08 = offsetof(ct_optimizer_options, lr_decay);
constexpr size_t kOptimizerOptionsSizeBeforeAsgd = offsetof(ct_optimizer_options, lambd);

void check_options_size(const ct_optimizer_options* o, const char* fn, const char* name) {
  CT_CHECK(o, CT_ERROR_INVALID_ARGUMENT, fn, ": ", name, " is NULL. Pass options filled by ct_optimizer_options_default");
  CT_CHECK(o->struct_size == kOptimizerOptionsSize08 || o->struct_size == kOptimizerOptionsSizeBeforeAsgd ||
               o->struct_size >= sizeof(ct_optimizer_options),
           CT_ERROR_INVALID_ARGUMENT, fn, ": ", name, "->struct_size is ", o->struct_size, " but this library's struct has ",
           sizeof(ct_optimizer_options), " bytes (", kOptimizerOptionsSize08, " from a 0.8 header, ",
           kOptimizerOptionsSizeBeforeAsgd, " from one before ASGD). Set it to sizeof (ct_optimizer_options_default "
           "does)");
}

// The caller's options as this library's struct: an older struct's missing fields take the kind's
// defaults.
ct_optimizer_options options_arg(const ct_optimizer_options* o, const char* fn) {
  check_options_size(o, fn, "options");
  ct_optimizer_options full;
  std::memset(&full, 0, sizeof full);
  fill_options(train::default_hyper(kind_arg(o->kind, fn)), &full);
  std::memcpy(&full, o, std::min(o->struct_size, sizeof full));
  full.struct_size = sizeof full;
  return full;
}

}  // namespace

extern "C" {

ct_status ct_optimizer_options_default(ct_optimizer_kind kind, ct_optimizer_options* out) {
  return capi::guard([&] {
    const char* fn = "ct_optimizer_options_default";
    capi::require_out(out, fn, "out");
    const Kind k = kind_arg(kind, fn);
    std::memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    fill_options(train::default_hyper(k), out);
  });
}

ct_status ct_optimizer_create(const ct_tensor* const* params, size_t n, const ct_optimizer_options* options,
                              ct_optimizer** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const char* fn = "ct_optimizer_create";
    capi::require_out(out, fn, "out");
    const ct_optimizer_options o = options_arg(options, fn);
    auto opt = std::make_shared<Optimizer>(capi::tensor_list(params, n, fn, "params", false), hyper_from(o), fn);
    ct_optimizer* h = capi::new_tagged<ct_optimizer>(kOptimizerTag);
    h->opt = std::move(opt);
    *out = h;
  });
}

ct_status ct_optimizer_retain(ct_optimizer* opt) {
  return capi::guard([&] {
    capi::live_tagged(opt, kOptimizerTag, "ct_optimizer_retain", "opt").refs.fetch_add(1, std::memory_order_relaxed);
  });
}

void ct_optimizer_release(ct_optimizer* opt) { capi::release_tagged(opt, kOptimizerTag); }

ct_status ct_optimizer_step(ct_optimizer* opt) {
  return capi::guard([&] { opt_arg(opt, "ct_optimizer_step").step(); });
}

ct_status ct_optimizer_step_closure(ct_optimizer* opt, ct_optimizer_closure closure, void* user_data, double* loss) {
  return capi::guard([&] {
    const char* fn = "ct_optimizer_step_closure";
    Optimizer& o = opt_arg(opt, fn);
    CT_CHECK(closure, CT_ERROR_INVALID_ARGUMENT, fn,
             ": closure is NULL. Pass a function that computes the loss and its grads (or call ct_optimizer_step)");
    const double first = o.step([&] {
      double value = 0;
      const ct_status s = closure(user_data, &value);
      CT_CHECK(s == CT_OK, s, fn, ": the closure failed: ", ct_last_error());
      return value;
    });
    if (loss) *loss = first;
  });
}

ct_status ct_optimizer_zero_grad(ct_optimizer* opt, int set_to_none) {
  return capi::guard([&] { opt_arg(opt, "ct_optimizer_zero_grad").zero_grad(set_to_none != 0); });
}

ct_status ct_optimizer_get_lr(const ct_optimizer* opt, double* out) {
  return capi::guard([&] {
    const Optimizer& o = opt_arg(opt, "ct_optimizer_get_lr");
    capi::require_out(out, "ct_optimizer_get_lr", "out");
    *out = o.lr();
  });
}

ct_status ct_optimizer_set_lr(ct_optimizer* opt, double lr) {
  return capi::guard([&] { opt_arg(opt, "ct_optimizer_set_lr").set_lr(lr, "ct_optimizer_set_lr"); });
}

ct_status ct_optimizer_get_options(const ct_optimizer* opt, ct_optimizer_options* out) {
  return capi::guard([&] {
    const char* fn = "ct_optimizer_get_options";
    const Optimizer& o = opt_arg(opt, fn);
    capi::require_out(out, fn, "out");
    check_options_size(out, fn, "out");
    ct_optimizer_options full;
    std::memset(&full, 0, sizeof full);
    fill_options(o.hyper(), &full);
    const size_t size = out->struct_size;  // a 0.8 struct gets the fields it has
    std::memcpy(reinterpret_cast<char*>(out) + sizeof size, reinterpret_cast<const char*>(&full) + sizeof size,
                std::min(size, sizeof full) - sizeof size);
  });
}

ct_status ct_optimizer_set_options(ct_optimizer* opt, const ct_optimizer_options* options) {
  return capi::guard([&] {
    const char* fn = "ct_optimizer_set_options";
    Optimizer& o = opt_arg(opt, fn);
    o.set_hyper(hyper_from(options_arg(options, fn)), fn);
  });
}

ct_status ct_optimizer_num_params(const ct_optimizer* opt, size_t* out) {
  return capi::guard([&] {
    const Optimizer& o = opt_arg(opt, "ct_optimizer_num_params");
    capi::require_out(out, "ct_optimizer_num_params", "out");
    *out = o.size();
  });
}

ct_status ct_optimizer_param(const ct_optimizer* opt, size_t i, ct_tensor** out) {
  return capi::tensor_result(out, "ct_optimizer_param", [&] {
    const Optimizer& o = opt_arg(opt, "ct_optimizer_param");
    CT_CHECK(i < o.size(), CT_ERROR_INDEX, "ct_optimizer_param: index ", i, " is out of range for ", o.size(),
             " parameters");
    return o.param(i);
  });
}

ct_status ct_optimizer_state_name(ct_optimizer_kind kind, size_t j, const char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const char* fn = "ct_optimizer_state_name";
    capi::require_out(out, fn, "out");
    const char* const* names = train::state_names(kind_arg(kind, fn));
    size_t n = 0;
    while (names[n]) ++n;
    CT_CHECK(j < n, CT_ERROR_INDEX, fn, ": index ", j, " is out of range: ", train::kind_name(kind_arg(kind, fn)),
             " has ", n, " state names");
    *out = names[j];
  });
}

ct_status ct_optimizer_state_get(const ct_optimizer* opt, size_t i, const char* name, ct_tensor** out) {
  return capi::tensor_result(out, "ct_optimizer_state_get", [&] {
    const char* fn = "ct_optimizer_state_get";
    const Optimizer& o = opt_arg(opt, fn);
    CT_CHECK(name, CT_ERROR_INVALID_ARGUMENT, fn, ": name is NULL. Pass a state name (ct_optimizer_state_name)");
    return o.state(i, name, fn);
  });
}

ct_status ct_optimizer_state_save(const ct_optimizer* opt, char** data, size_t* size) {
  if (data) *data = nullptr;
  if (size) *size = 0;
  return capi::guard([&] {
    const char* fn = "ct_optimizer_state_save";
    const Optimizer& o = opt_arg(opt, fn);
    capi::require_out(data, fn, "data");
    capi::require_out(size, fn, "size");
    const std::string bytes = o.save();
    char* p = static_cast<char*>(ct::fault::malloc(bytes.size() ? bytes.size() : 1));  // freed by ct_string_release
    if (!p) throw std::bad_alloc();
    std::memcpy(p, bytes.data(), bytes.size());
    *data = p;
    *size = bytes.size();
  });
}

ct_status ct_optimizer_state_load(ct_optimizer* opt, const void* data, size_t size) {
  return capi::guard([&] {
    const char* fn = "ct_optimizer_state_load";
    Optimizer& o = opt_arg(opt, fn);
    CT_CHECK(data || size == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": data is NULL but size is ", size);
    o.load(static_cast<const uint8_t*>(data), size);
  });
}

ct_status ct_lr_scheduler_options_default(ct_lr_scheduler_kind kind, ct_lr_scheduler_options* out) {
  return capi::guard([&] {
    const char* fn = "ct_lr_scheduler_options_default";
    capi::require_out(out, fn, "out");
    const int k = capi::raw_enum(kind);
    CT_CHECK(k >= 0 && static_cast<uint32_t>(k) < train::kNumScheduleKinds, CT_ERROR_INVALID_ARGUMENT, fn, ": kind ",
             k, " is unknown. Use a CT_LR_SCHEDULER_ value");
    const train::Schedule s;
    std::memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->kind = kind;
    out->step_size = s.step_size;
    out->gamma = s.gamma;
    out->t_max = s.t_max;
    out->eta_min = s.eta_min;
    out->start_factor = s.start_factor;
    out->end_factor = s.end_factor;
    out->total_iters = s.total_iters;
    out->milestones = nullptr;
    out->num_milestones = 0;
    out->factor = s.factor;
    out->power = s.power;
    out->t_0 = s.t_0;
    out->t_mult = s.t_mult;
    out->base_lr = s.base_lr;
  });
}

// 0.8's ct_lr_scheduler_options ended at total_iters; a caller built against it passes that size,
// and the fields added since take their defaults.
constexpr size_t kSchedulerOptionsSize08 = offsetof(ct_lr_scheduler_options, milestones);

ct_status ct_lr_scheduler_create(ct_optimizer* opt, const ct_lr_scheduler_options* options, ct_lr_scheduler** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const char* fn = "ct_lr_scheduler_create";
    capi::require_out(out, fn, "out");
    ct_optimizer& o = capi::live_tagged(opt, kOptimizerTag, fn, "opt");
    CT_CHECK(options, CT_ERROR_INVALID_ARGUMENT, fn, ": options is NULL. Pass options filled by "
             "ct_lr_scheduler_options_default");
    CT_CHECK(options->struct_size == kSchedulerOptionsSize08 || options->struct_size >= sizeof(ct_lr_scheduler_options),
             CT_ERROR_INVALID_ARGUMENT, fn, ": options->struct_size is ", options->struct_size, " but this library's struct has ",
             sizeof(ct_lr_scheduler_options), " bytes. Set it to sizeof (ct_lr_scheduler_options_default does)");
    ct_lr_scheduler_options given;
    CT_CHECK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_STEP, &given) == CT_OK, CT_ERROR_INTERNAL, fn,
             ": the default options failed");
    std::memcpy(&given, options, std::min(options->struct_size, sizeof given));
    given.struct_size = sizeof given;
    train::Schedule s;
    s.kind = static_cast<train::ScheduleKind>(static_cast<uint32_t>(capi::raw_enum(given.kind)));
    s.step_size = given.step_size;
    s.gamma = given.gamma;
    s.t_max = given.t_max;
    s.eta_min = given.eta_min;
    s.start_factor = given.start_factor;
    s.end_factor = given.end_factor;
    s.total_iters = given.total_iters;
    CT_CHECK(given.milestones || given.num_milestones == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": options->milestones is "
             "NULL with num_milestones ", given.num_milestones, ". Pass the milestones, or 0");
    if (given.num_milestones > 0) s.milestones.assign(given.milestones, given.milestones + given.num_milestones);
    s.factor = given.factor;
    s.power = given.power;
    s.t_0 = given.t_0;
    s.t_mult = given.t_mult;
    s.base_lr = given.base_lr;
    auto sched = std::make_unique<LrScheduler>(o.opt, s, fn);  // shares (retains) the optimizer
    ct_lr_scheduler* h = capi::new_tagged<ct_lr_scheduler>(kSchedulerTag);
    h->sched = std::move(sched);
    *out = h;
  });
}

ct_status ct_lr_scheduler_retain(ct_lr_scheduler* sched) {
  return capi::guard([&] {
    capi::live_tagged(sched, kSchedulerTag, "ct_lr_scheduler_retain", "sched")
        .refs.fetch_add(1, std::memory_order_relaxed);
  });
}

void ct_lr_scheduler_release(ct_lr_scheduler* sched) { capi::release_tagged(sched, kSchedulerTag); }

ct_status ct_lr_scheduler_step(ct_lr_scheduler* sched) {
  return capi::guard([&] { sched_arg(sched, "ct_lr_scheduler_step").step(); });
}

ct_status ct_lr_scheduler_restart(ct_lr_scheduler* sched) {
  return capi::guard([&] { sched_arg(sched, "ct_lr_scheduler_restart").restart(); });
}

ct_status ct_lr_scheduler_get_last_lr(const ct_lr_scheduler* sched, double* out) {
  return capi::guard([&] {
    const LrScheduler& s = sched_arg(sched, "ct_lr_scheduler_get_last_lr");
    capi::require_out(out, "ct_lr_scheduler_get_last_lr", "out");
    *out = s.last_lr();
  });
}

ct_status ct_lr_scheduler_get_last_epoch(const ct_lr_scheduler* sched, int64_t* out) {
  return capi::guard([&] {
    const LrScheduler& s = sched_arg(sched, "ct_lr_scheduler_get_last_epoch");
    capi::require_out(out, "ct_lr_scheduler_get_last_epoch", "out");
    *out = s.last_epoch();
  });
}

}  // extern "C"
