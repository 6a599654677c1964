// lr_scheduler.h - LrScheduler: torch.optim.lr_scheduler's StepLR, CosineAnnealingLR and LinearLR
// over one Optimizer's learning rate.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "train/optimizer.h"

namespace ct::train {

// ct_lr_scheduler_kind values
enum class ScheduleKind : uint32_t {
  Step = 0, Cosine = 1, Linear = 2, Exponential = 3, MultiStep = 4, Constant = 5, Polynomial = 6,
  CosineWarmRestarts = 7
};
constexpr uint32_t kNumScheduleKinds = 8;

struct Schedule {
  ScheduleKind kind = ScheduleKind::Step;
  int64_t step_size = 1;
  double gamma = 0.1;
  int64_t t_max = 1;
  double eta_min = 0;
  double start_factor = 1.0 / 3, end_factor = 1.0;
  int64_t total_iters = 5;
  std::vector<int64_t> milestones;
  double factor = 1.0 / 3, power = 1.0;
  int64_t t_0 = 1, t_mult = 1;
  double base_lr = 0;  // > 0: the base lr; 0: the optimizer's lr at creation
};

class LrScheduler {
 public:
  /// Checks the schedule (raising naming fn), takes the optimizer's lr as the base and applies step 0,
  /// as torch's constructor does.
  LrScheduler(std::shared_ptr<Optimizer> opt, const Schedule& s, const char* fn);
  /// scheduler.step(): last_epoch + 1, then the lr from torch's recursive formula.
  void step();
  /// scheduler.step(0): the step count back to 0, and the lr the schedule gives at 0 from the base lr.
  void restart();
  double last_lr() const;
  int64_t last_epoch() const;

 private:
  /// torch's get_lr() for last_epoch_, from the optimizer's current lr.
  double next_lr(double lr) const;
  void step_locked();  // step() with mu_ held

  mutable std::mutex mu_;
  std::shared_ptr<Optimizer> opt_;
  Schedule s_;
  double base_lr_;
  int64_t last_epoch_ = -1;  // guarded by mu_
  int64_t step_count_ = 0;   // guarded by mu_; torch's _step_count (CosineAnnealingLR reads it)
  int64_t t_cur_ = -1, t_i_ = 0;  // guarded by mu_; CosineAnnealingWarmRestarts' T_cur and T_i
  double last_lr_ = 0;       // guarded by mu_
};

}  // namespace ct::train
