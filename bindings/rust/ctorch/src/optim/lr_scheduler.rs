//! `LrScheduler`: one `ct_lr_scheduler`, a learning-rate schedule bound to an optimizer.

use ctorch_sys as sys;

use crate::error::{check, Result};
use crate::optim::Optimizer;

/// A learning-rate schedule (`torch.optim.lr_scheduler`), with torch's recursive formulas
/// (ctorch.h, `ct_lr_scheduler_create`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Schedule {
    /// `StepLR`: the lr is multiplied by `gamma` every `step_size` steps (`step_size` >= 1,
    /// `gamma` >= 0; torch's default gamma is 0.1).
    Step {
        /// Steps between two decays.
        step_size: i64,
        /// The decay factor.
        gamma: f64,
    },
    /// `CosineAnnealingLR`: from the initial lr down to `eta_min` over `t_max` steps (`t_max` >=
    /// 1, `eta_min` >= 0; torch's default eta_min is 0).
    CosineAnnealing {
        /// Steps of a half period.
        t_max: i64,
        /// The lowest lr.
        eta_min: f64,
    },
    /// `LinearLR`: the lr's factor goes from `start_factor` to `end_factor` over `total_iters`
    /// steps (a linear warm-up; torch's defaults 1/3, 1 and 5).
    Linear {
        /// The factor at creation, in (0, 1].
        start_factor: f64,
        /// The factor after `total_iters` steps, in [0, 1].
        end_factor: f64,
        /// Steps from one factor to the other, >= 0.
        total_iters: i64,
    },
    /// `ExponentialLR`: the lr is multiplied by `gamma` every step.
    Exponential {
        /// The decay factor, >= 0.
        gamma: f64,
    },
    /// `MultiStepLR`: the lr is multiplied by `gamma` at each milestone (twice at one listed twice;
    /// torch's default gamma is 0.1).
    MultiStep {
        /// The steps at which the lr decays.
        milestones: Vec<i64>,
        /// The decay factor, >= 0.
        gamma: f64,
    },
    /// `ConstantLR`: the lr is multiplied by `factor` until `total_iters` steps have passed
    /// (torch's defaults 1/3 and 5).
    Constant {
        /// The factor, in (0, 1].
        factor: f64,
        /// Steps the factor lasts, >= 0.
        total_iters: i64,
    },
    /// `PolynomialLR`: the lr decays as `(1 - step / total_iters)^power` to 0 at `total_iters`
    /// (torch's defaults 5 and 1).
    Polynomial {
        /// Steps of the decay, >= 0.
        total_iters: i64,
        /// The exponent.
        power: f64,
    },
    /// `CosineAnnealingWarmRestarts`: a cosine from the base lr to `eta_min` over `t_0` steps,
    /// then again over periods `t_mult` times longer each (torch's defaults t_mult 1, eta_min 0).
    CosineAnnealingWarmRestarts {
        /// Steps of the first period, >= 1.
        t_0: i64,
        /// The factor of each next period, >= 1.
        t_mult: i64,
        /// The lowest lr.
        eta_min: f64,
    },
}

impl Schedule {
    /// The C options: the kind's defaults from the library, then this schedule's fields (the
    /// milestones borrowed from self, which the library copies).
    fn to_c(&self) -> sys::ct_lr_scheduler_options {
        let kind = match self {
            Schedule::Step { .. } => sys::CT_LR_SCHEDULER_STEP,
            Schedule::CosineAnnealing { .. } => sys::CT_LR_SCHEDULER_COSINE,
            Schedule::Linear { .. } => sys::CT_LR_SCHEDULER_LINEAR,
            Schedule::Exponential { .. } => sys::CT_LR_SCHEDULER_EXPONENTIAL,
            Schedule::MultiStep { .. } => sys::CT_LR_SCHEDULER_MULTISTEP,
            Schedule::Constant { .. } => sys::CT_LR_SCHEDULER_CONSTANT,
            Schedule::Polynomial { .. } => sys::CT_LR_SCHEDULER_POLYNOMIAL,
            Schedule::CosineAnnealingWarmRestarts { .. } => sys::CT_LR_SCHEDULER_COSINE_WARM_RESTARTS,
        };
        // SAFETY: plain data, filled by the library for a known kind.
        let mut raw: sys::ct_lr_scheduler_options = unsafe { std::mem::zeroed() };
        let status = unsafe { sys::ct_lr_scheduler_options_default(kind, &mut raw) };
        debug_assert_eq!(status, sys::CT_OK);
        match *self {
            Schedule::Step { step_size, gamma } => {
                raw.step_size = step_size;
                raw.gamma = gamma;
            }
            Schedule::CosineAnnealing { t_max, eta_min } => {
                raw.t_max = t_max;
                raw.eta_min = eta_min;
            }
            Schedule::Linear { start_factor, end_factor, total_iters } => {
                raw.start_factor = start_factor;
                raw.end_factor = end_factor;
                raw.total_iters = total_iters;
            }
            Schedule::Exponential { gamma } => raw.gamma = gamma,
            Schedule::MultiStep { ref milestones, gamma } => {
                raw.milestones = milestones.as_ptr();
                raw.num_milestones = milestones.len();
                raw.gamma = gamma;
            }
            Schedule::Constant { factor, total_iters } => {
                raw.factor = factor;
                raw.total_iters = total_iters;
            }
            Schedule::Polynomial { total_iters, power } => {
                raw.total_iters = total_iters;
                raw.power = power;
            }
            Schedule::CosineAnnealingWarmRestarts { t_0, t_mult, eta_min } => {
                raw.t_0 = t_0;
                raw.t_mult = t_mult;
                raw.eta_min = eta_min;
            }
        }
        raw
    }
}

crate::handle::ref_counted!(
    /// A learning-rate scheduler bound to one optimizer, which it retains: one reference to a
    /// `ct_lr_scheduler`. `Clone` adds a reference to the same scheduler. Call
    /// [`step`](Self::step) after each [`Optimizer::step`] (or each epoch, as your schedule counts).
    LrScheduler, sys::ct_lr_scheduler, sys::ct_lr_scheduler_retain, sys::ct_lr_scheduler_release
);

impl std::fmt::Debug for LrScheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LrScheduler(last_epoch={}, last_lr={})", self.last_epoch(), self.last_lr())
    }
}

impl LrScheduler {
    /// A schedule over `optimizer`'s lr (torch's constructor with `last_epoch=-1`): the current
    /// lr becomes the base lr and step 0 applies at once (`Linear` multiplies the lr by
    /// `start_factor`). `InvalidArgument` error for a setting out of range (the message names it).
    pub fn new(optimizer: &Optimizer, schedule: Schedule) -> Result<LrScheduler> {
        let raw = schedule.to_c(); // borrows schedule's milestones until the call has copied them
        LrScheduler::make(|out| unsafe { sys::ct_lr_scheduler_create(optimizer.as_ptr(), &raw, out) })
    }

    /// `StepLR(optimizer, step_size, gamma)`.
    pub fn step_lr(optimizer: &Optimizer, step_size: i64, gamma: f64) -> Result<LrScheduler> {
        LrScheduler::new(optimizer, Schedule::Step { step_size, gamma })
    }

    /// `CosineAnnealingLR(optimizer, t_max, eta_min)`.
    pub fn cosine_annealing_lr(optimizer: &Optimizer, t_max: i64, eta_min: f64) -> Result<LrScheduler> {
        LrScheduler::new(optimizer, Schedule::CosineAnnealing { t_max, eta_min })
    }

    /// `LinearLR(optimizer, start_factor, end_factor, total_iters)`.
    pub fn linear_lr(optimizer: &Optimizer, start_factor: f64, end_factor: f64, total_iters: i64) -> Result<LrScheduler> {
        LrScheduler::new(optimizer, Schedule::Linear { start_factor, end_factor, total_iters })
    }

    /// `MultiStepLR(optimizer, milestones, gamma)`.
    pub fn multi_step_lr(optimizer: &Optimizer, milestones: &[i64], gamma: f64) -> Result<LrScheduler> {
        LrScheduler::new(optimizer, Schedule::MultiStep { milestones: milestones.to_vec(), gamma })
    }

    /// `ExponentialLR(optimizer, gamma)`.
    pub fn exponential_lr(optimizer: &Optimizer, gamma: f64) -> Result<LrScheduler> {
        LrScheduler::new(optimizer, Schedule::Exponential { gamma })
    }

    /// `CosineAnnealingWarmRestarts(optimizer, t_0, t_mult, eta_min)`.
    pub fn cosine_annealing_warm_restarts(optimizer: &Optimizer, t_0: i64, t_mult: i64, eta_min: f64) -> Result<LrScheduler> {
        LrScheduler::new(optimizer, Schedule::CosineAnnealingWarmRestarts { t_0, t_mult, eta_min })
    }

    /// Advances one step and sets the optimizer's lr (`scheduler.step()`). Never fails on a live
    /// scheduler; returns the library's status.
    pub fn step(&self) -> Result<()> {
        check(unsafe { sys::ct_lr_scheduler_step(self.as_ptr()) })
    }

    /// Starts the schedule again from its base lr (`scheduler.step(0)`, what torch's SequentialLR
    /// does at a milestone): the step count becomes 0 and the lr the schedule's value at step 0.
    pub fn restart(&self) -> Result<()> {
        check(unsafe { sys::ct_lr_scheduler_restart(self.as_ptr()) })
    }

    /// The lr the last step (or the creation) set (`scheduler.get_last_lr()[0]`).
    pub fn last_lr(&self) -> f64 {
        let mut lr = 0.0;
        // SAFETY: self is live and out valid, so the call cannot fail.
        unsafe { sys::ct_lr_scheduler_get_last_lr(self.as_ptr(), &mut lr) };
        lr
    }

    /// The step count (`scheduler.last_epoch`; 0 right after creation).
    pub fn last_epoch(&self) -> i64 {
        let mut e = 0;
        // SAFETY: self is live and out valid, so the call cannot fail.
        unsafe { sys::ct_lr_scheduler_get_last_epoch(self.as_ptr(), &mut e) };
        e
    }
}
