// lr_scheduler.cpp - the recursive ("chainable") formulas of torch.optim.lr_scheduler, computed in
// double in the order torch's Python computes them, so the lr sequence is torch's to the bit.
#include "train/lr_scheduler.h"

#include <cmath>

#include "core/error.h"

namespace ct::train {
namespace {

constexpr double kPi = 3.141592653589793;  // math.pi

void check_schedule(const Schedule& s, const char* fn) {
  CT_CHECK(static_cast<uint32_t>(s.kind) < kNumScheduleKinds, CT_ERROR_INVALID_ARGUMENT, fn, ": kind ",
           static_cast<uint32_t>(s.kind), " is unknown. Use CT_LR_SCHEDULER_STEP, _COSINE or _LINEAR");
  switch (s.kind) {
    case ScheduleKind::Step:
      CT_CHECK(s.step_size >= 1, CT_ERROR_INVALID_ARGUMENT, fn, ": step_size is ", s.step_size, ". Pass 1 or more");
      CT_CHECK(std::isfinite(s.gamma) && s.gamma >= 0, CT_ERROR_INVALID_ARGUMENT, fn, ": gamma is ", s.gamma,
               ". Pass a finite value >= 0");
      break;
    case ScheduleKind::Cosine:
      CT_CHECK(s.t_max >= 1, CT_ERROR_INVALID_ARGUMENT, fn, ": t_max is ", s.t_max, ". Pass 1 or more");
      CT_CHECK(std::isfinite(s.eta_min) && s.eta_min >= 0, CT_ERROR_INVALID_ARGUMENT, fn, ": eta_min is ", s.eta_min,
               ". Pass a finite value >= 0");
      break;
    case ScheduleKind::Linear:
      // start_factor 0 would divide by zero on the first step (torch 2 refuses it too).
      CT_CHECK(s.start_factor > 0 && s.start_factor <= 1, CT_ERROR_INVALID_ARGUMENT, fn, ": start_factor is ",
               s.start_factor, ". Pass a value in (0, 1]");
      CT_CHECK(s.end_factor >= 0 && s.end_factor <= 1, CT_ERROR_INVALID_ARGUMENT, fn, ": end_factor is ",
               s.end_factor, ". Pass a value in [0, 1]");
      CT_CHECK(s.total_iters >= 0, CT_ERROR_INVALID_ARGUMENT, fn, ": total_iters is ", s.total_iters,
               ". Pass 0 or more");
      break;
    case ScheduleKind::Exponential:
    case ScheduleKind::MultiStep:
      CT_CHECK(std::isfinite(s.gamma) && s.gamma >= 0, CT_ERROR_INVALID_ARGUMENT, fn, ": gamma is ", s.gamma,
               ". Pass a finite value >= 0");
      break;
    case ScheduleKind::Constant:
      // factor 0 would divide by zero at total_iters (torch raises ZeroDivisionError there).
      CT_CHECK(s.factor > 0 && s.factor <= 1, CT_ERROR_INVALID_ARGUMENT, fn, ": factor is ", s.factor,
               ". Pass a value in (0, 1]");
      CT_CHECK(s.total_iters >= 0, CT_ERROR_INVALID_ARGUMENT, fn, ": total_iters is ", s.total_iters,
               ". Pass 0 or more");
      break;
    case ScheduleKind::Polynomial:
      CT_CHECK(s.total_iters >= 0, CT_ERROR_INVALID_ARGUMENT, fn, ": total_iters is ", s.total_iters,
               ". Pass 0 or more");
      CT_CHECK(std::isfinite(s.power), CT_ERROR_INVALID_ARGUMENT, fn, ": power is ", s.power, ". Pass a finite value");
      break;
    case ScheduleKind::CosineWarmRestarts:
      CT_CHECK(s.t_0 >= 1, CT_ERROR_INVALID_ARGUMENT, fn, ": t_0 is ", s.t_0, ". Pass 1 or more");
      CT_CHECK(s.t_mult >= 1, CT_ERROR_INVALID_ARGUMENT, fn, ": t_mult is ", s.t_mult, ". Pass 1 or more");
      CT_CHECK(std::isfinite(s.eta_min) && s.eta_min >= 0, CT_ERROR_INVALID_ARGUMENT, fn, ": eta_min is ", s.eta_min,
               ". Pass a finite value >= 0");
      break;
  }
}

// Python's % for a positive divisor: the result takes the divisor's sign.
int64_t py_mod(int64_t a, int64_t m) {
  const int64_t r = a % m;
  return r < 0 ? r + m : r;
}

}  // namespace

LrScheduler::LrScheduler(std::shared_ptr<Optimizer> opt, const Schedule& s, const char* fn)
    : opt_(std::move(opt)), s_(s) {
  check_schedule(s, fn);
  CT_CHECK(std::isfinite(s.base_lr) && s.base_lr >= 0, CT_ERROR_INVALID_ARGUMENT, fn, ": base_lr is ", s.base_lr,
           ". Pass a finite value > 0, or 0 for the optimizer's lr");
  base_lr_ = s.base_lr > 0 ? s.base_lr : opt_->lr();  // torch: group.setdefault("initial_lr", group["lr"])
  step();                                            // torch: _initial_step()
}

double LrScheduler::next_lr(double lr) const {
  const int64_t e = last_epoch_;
  switch (s_.kind) {
    case ScheduleKind::Step:
      if (e == 0 || e % s_.step_size != 0) return lr;
      return lr * s_.gamma;
    case ScheduleKind::Cosine: {
      const double t = static_cast<double>(s_.t_max), ed = static_cast<double>(e);
      if (e == 0) return lr;
      if (step_count_ == 1 && e > 0)
        return s_.eta_min + (base_lr_ - s_.eta_min) * (1 + std::cos(ed * kPi / t)) / 2;
      if (py_mod(e - 1 - s_.t_max, 2 * s_.t_max) == 0)
        return lr + (base_lr_ - s_.eta_min) * (1 - std::cos(kPi / t)) / 2;
      return (1 + std::cos(kPi * ed / t)) / (1 + std::cos(kPi * (ed - 1) / t)) * (lr - s_.eta_min) + s_.eta_min;
    }
    case ScheduleKind::Linear: {
      if (e == 0) return lr * s_.start_factor;
      if (e > s_.total_iters) return lr;
      const double span = s_.end_factor - s_.start_factor;
      return lr * (1. + span / (static_cast<double>(s_.total_iters) * s_.start_factor +
                                static_cast<double>(e - 1) * span));
    }
    case ScheduleKind::Exponential:
      return e == 0 ? lr : lr * s_.gamma;
    case ScheduleKind::MultiStep: {
      int64_t times = 0;  // torch's Counter(milestones)[e]
      for (int64_t m : s_.milestones) times += m == e;
      return times == 0 ? lr : lr * std::pow(s_.gamma, static_cast<double>(times));
    }
    case ScheduleKind::Constant:
      if (e == 0) return lr * s_.factor;
      return e != s_.total_iters ? lr : lr * (1.0 / s_.factor);
    case ScheduleKind::Polynomial: {
      if (e == 0 || e > s_.total_iters) return lr;
      const double t = static_cast<double>(s_.total_iters), ed = static_cast<double>(e);
      return lr * std::pow((1.0 - ed / t) / (1.0 - (ed - 1) / t), s_.power);
    }
    case ScheduleKind::CosineWarmRestarts:  // not recursive: from the period's position alone
      return s_.eta_min + (base_lr_ - s_.eta_min) *
                              (1 + std::cos(kPi * static_cast<double>(t_cur_) / static_cast<double>(t_i_))) / 2;
  }
  return lr;
}

void LrScheduler::step() {
  std::lock_guard<std::mutex> lock(mu_);
  step_locked();
}

void LrScheduler::restart() {
  std::lock_guard<std::mutex> lock(mu_);
  last_epoch_ = -1;
  t_cur_ = -1;
  opt_->set_lr(base_lr_, "ct_lr_scheduler_restart");
  step_locked();  // step 0 from the base lr: each kind's closed form at 0
}

void LrScheduler::step_locked() {
  ++step_count_;
  ++last_epoch_;
  if (s_.kind == ScheduleKind::CosineWarmRestarts) {  // torch's T_cur and T_i (T_cur 0 at creation)
    if (t_cur_ < 0) {
      t_cur_ = 0, t_i_ = s_.t_0;
    } else if (++t_cur_ >= t_i_) {
      t_cur_ -= t_i_;
      t_i_ *= s_.t_mult;
    }
  }
  double lr = next_lr(opt_->lr());
  // A formula can leave the optimizer's range only through rounding below zero (cosine near
  // eta_min = 0); torch would store it, the optimizer refuses it, so it is clamped to 0.
  if (!(lr >= 0)) lr = std::isnan(lr) ? lr : 0.0;
  opt_->set_lr(lr, "ct_lr_scheduler_step");
  last_lr_ = lr;
}

double LrScheduler::last_lr() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_lr_;
}

int64_t LrScheduler::last_epoch() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_epoch_;
}

}  // namespace ct::train
