//! Optimizers and learning-rate schedules with `torch.optim`'s update rules (ctorch.h, "Training";
//! docs/training.md). The library computes every update; this module owns the handles.
//!
//! ```
//! use ctorch::optim::{LrScheduler, Optimizer, OptimizerOptions};
//! use ctorch::Tensor;
//! # fn main() -> ctorch::Result<()> {
//! let w = Tensor::from_slice(&[1.0f32, -2.0]).set_requires_grad(true)?;
//! let opt = Optimizer::new(&[&w], &OptimizerOptions::sgd().lr(0.1).momentum(0.9))?;
//! let sched = LrScheduler::step_lr(&opt, 10, 0.5)?;
//! for _ in 0..3 {
//!     opt.zero_grad(true)?;
//!     (&w * &w)?.sum()?.backward()?;
//!     opt.step()?;
//!     sched.step()?;
//! }
//! assert!(w.to_vec::<f32>()?[0].abs() < 1.0);
//! # Ok(())
//! # }
//! ```

mod lr_scheduler;
mod optimizer;

pub use lr_scheduler::{LrScheduler, Schedule};
pub use optimizer::{Optimizer, OptimizerKind, OptimizerOptions};
