//! Functions of `torch.nn.functional` that models and training loops use most, thin over the
//! registry's operators (every other one is a [`Tensor`] method): `use ctorch::nn::functional as F;`.

use crate::error::Result;
use crate::tensor::Tensor;

/// How a loss reduces its per-element values (torch's `reduction=`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Reduction {
    /// `"none"`: one value per element (or per sample).
    None,
    /// `"mean"` (the default).
    #[default]
    Mean,
    /// `"sum"`.
    Sum,
}

impl Reduction {
    /// The operators' integer code: 0 none, 1 mean, 2 sum.
    pub fn code(self) -> i64 {
        match self {
            Reduction::None => 0,
            Reduction::Mean => 1,
            Reduction::Sum => 2,
        }
    }
}

/// `F.relu(x)`.
pub fn relu(x: &Tensor) -> Result<Tensor> {
    x.relu()
}

/// `F.gelu(x)` (the exact, erf-based form).
pub fn gelu(x: &Tensor) -> Result<Tensor> {
    x.gelu()
}

/// `F.linear(x, weight, bias)`: `x @ weight^T + bias`.
pub fn linear(x: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    Tensor::linear_with(x, weight, bias)
}

/// `F.cross_entropy(input, target)`: the mean over the batch of `-log_softmax(input)[target]`,
/// for logits `[N, C]` (or `[N, C, ...]`) and int64 class indices `[N]` (or class probabilities of
/// input's shape); targets equal to -100 are ignored. The operator is `cross_entropy_loss`.
pub fn cross_entropy(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    input.cross_entropy_loss(target)
}

/// `F.cross_entropy` with every argument: per-class `weight`, `reduction`, `ignore_index` and
/// `label_smoothing` (torch's defaults: `None`, mean, -100, 0.0).
pub fn cross_entropy_with(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: Reduction,
    ignore_index: i64,
    label_smoothing: f64,
) -> Result<Tensor> {
    input.cross_entropy_loss_with(target, weight, reduction.code(), ignore_index, label_smoothing)
}

/// `F.mse_loss(input, target)`: the mean of `(input - target)^2`.
pub fn mse_loss(input: &Tensor, target: &Tensor) -> Result<Tensor> {
    input.mse_loss(target)
}

/// `F.mse_loss(input, target, reduction=...)`.
pub fn mse_loss_with(input: &Tensor, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
    input.mse_loss_with(target, reduction.code())
}
