//! `Sequential`: modules applied one after another.

use std::fmt;

use crate::error::Result;
use crate::nn::{Func, Module};
use crate::tensor::Tensor;

/// Modules applied in order (`torch.nn.Sequential`); its parameters are its children's, named
/// `"<position>.<name>"` as torch names them (`"0.weight"`, `"2.bias"`).
///
/// `Sequential::new().add(Linear::new(64, 64)?).add(ReLU).add_fn(|x| x.tanh())`
#[derive(Default)]
pub struct Sequential {
    layers: Vec<Box<dyn Module>>,
}

impl Sequential {
    /// An empty sequence (its forward returns its input).
    pub fn new() -> Sequential {
        Sequential::default()
    }

    /// Appends a module.
    #[allow(clippy::should_implement_trait)]
    pub fn add<M: Module + 'static>(mut self, module: M) -> Sequential {
        self.layers.push(Box::new(module));
        self
    }

    /// Appends a closure as a module without parameters.
    pub fn add_fn<F>(self, f: F) -> Sequential
    where
        F: Fn(&Tensor) -> Result<Tensor> + Send + Sync + 'static,
    {
        self.add(Func::new(f))
    }

    /// The number of modules.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// Whether there are no modules.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// The module at `index`, if any.
    pub fn get(&self, index: usize) -> Option<&dyn Module> {
        self.layers.get(index).map(|m| &**m)
    }
}

impl Module for Sequential {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let mut y = x.clone();
        for layer in &self.layers {
            y = layer.forward(&y)?;
        }
        Ok(y)
    }

    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        self.layers
            .iter()
            .enumerate()
            .flat_map(|(i, m)| m.named_parameters().into_iter().map(move |(n, t)| (format!("{i}.{n}"), t)))
            .collect()
    }
}

impl fmt::Debug for Sequential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sequential({} modules, {} parameters)", self.len(), self.named_parameters().len())
    }
}
