//! Neural-network building blocks: the [`Module`] trait, [`Linear`], [`Sequential`],
//! activations, losses ([`functional`]), initializers ([`init`]) and gradient clipping
//! ([`utils`]). The numerics are the library's operators and initializers; this module only
//! composes them.
//!
//! ```
//! use ctorch::nn::{self, functional as F, Module};
//! use ctorch::optim::Optimizer;
//! use ctorch::Tensor;
//! # fn main() -> ctorch::Result<()> {
//! let model = nn::Sequential::new().add(nn::Linear::new(4, 8)?).add(nn::ReLU).add(nn::Linear::new(8, 3)?);
//! let opt = Optimizer::adam(&model.parameters(), 1e-2)?;
//! let (x, y) = (Tensor::randn(&[16, 4])?, Tensor::from_slice(&[0i64, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]));
//! let loss = F::cross_entropy(&model.forward(&x)?, &y)?;
//! opt.zero_grad(true)?;
//! loss.backward()?;
//! opt.step()?;
//! assert_eq!(model.named_parameters()[0].0, "0.weight");
//! # Ok(())
//! # }
//! ```

mod activation;
pub mod functional;
pub mod init;
mod linear;
mod module;
mod sequential;
pub mod utils;

pub use activation::{Func, Sigmoid, Tanh, GELU, ReLU};
pub use linear::Linear;
pub use module::Module;
pub use sequential::Sequential;
