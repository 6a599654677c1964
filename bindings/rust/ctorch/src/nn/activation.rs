//! Activations as modules without parameters, and `Func`, any closure as a module.

use std::fmt;

use crate::error::Result;
use crate::nn::Module;
use crate::tensor::Tensor;

/// `torch.nn.ReLU`: `max(x, 0)`.
#[derive(Copy, Clone, Debug, Default)]
pub struct ReLU;

/// `torch.nn.GELU` (the exact, erf-based form).
#[derive(Copy, Clone, Debug, Default)]
#[allow(clippy::upper_case_acronyms)]
pub struct GELU;

/// `torch.nn.Tanh`.
#[derive(Copy, Clone, Debug, Default)]
pub struct Tanh;

/// `torch.nn.Sigmoid`.
#[derive(Copy, Clone, Debug, Default)]
pub struct Sigmoid;

impl Module for ReLU {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        x.relu()
    }
}

impl Module for GELU {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        x.gelu()
    }
}

impl Module for Tanh {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        x.tanh()
    }
}

impl Module for Sigmoid {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        x.sigmoid()
    }
}

type ForwardFn = dyn Fn(&Tensor) -> Result<Tensor> + Send + Sync;

/// A closure as a module without parameters: `Func::new(|x| x.softmax(-1))`.
pub struct Func {
    f: Box<ForwardFn>,
}

impl Func {
    /// Wraps `f` as a module.
    pub fn new<F>(f: F) -> Func
    where
        F: Fn(&Tensor) -> Result<Tensor> + Send + Sync + 'static,
    {
        Func { f: Box::new(f) }
    }
}

impl Module for Func {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        (self.f)(x)
    }
}

impl fmt::Debug for Func {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Func(..)")
    }
}
