//! `Linear`: `y = x W^T + b`, initialized as `torch.nn.Linear` is.

use crate::dtype::DType;
use crate::error::Result;
use crate::nn::{init, Module};
use crate::runtime::Generator;
use crate::tensor::Tensor;

/// A fully connected layer (`torch.nn.Linear`): `weight` `[out, in]` and an optional `bias` `[out]`,
/// both requiring grad, made with `empty` and filled by [`init::linear_`] (torch's defaults:
/// U(-1/sqrt(in), 1/sqrt(in)), the weight's draws first).
#[derive(Clone, Debug)]
pub struct Linear {
    /// `[out_features, in_features]`.
    pub weight: Tensor,
    /// `[out_features]`, or `None` for a layer without bias.
    pub bias: Option<Tensor>,
}

impl Linear {
    /// A layer with bias, in the default dtype, drawn from the default generator.
    pub fn new(in_features: i64, out_features: i64) -> Result<Linear> {
        Linear::new_with(in_features, out_features, true, None, None)
    }

    /// A layer with every choice: `bias`, the dtype (default: the default dtype) and the
    /// generator to draw from (default: the CPU default generator). `Shape` error for a negative
    /// size; `DType` for an integral dtype.
    pub fn new_with(in_features: i64, out_features: i64, bias: bool, dtype: Option<DType>, generator: Option<&Generator>) -> Result<Linear> {
        let weight = Tensor::empty_with(&[out_features, in_features], dtype, None)?;
        let bias = if bias { Some(Tensor::empty_with(&[out_features], dtype, None)?) } else { None };
        init::linear_(&weight, bias.as_ref(), generator)?;
        weight.set_requires_grad(true)?;
        if let Some(b) = &bias {
            b.set_requires_grad(true)?;
        }
        Ok(Linear { weight, bias })
    }

    /// A layer over existing tensors (not re-initialized; they are used as given).
    pub fn from_parts(weight: Tensor, bias: Option<Tensor>) -> Linear {
        Linear { weight, bias }
    }
}

impl Module for Linear {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        Tensor::linear_with(x, &self.weight, self.bias.as_ref())
    }

    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        let mut p = vec![("weight".to_string(), self.weight.clone())];
        p.extend(self.bias.iter().map(|b| ("bias".to_string(), b.clone())));
        p
    }
}
