//! Expressions that check once. Every operation on tensors can fail (shapes, dtypes, devices), so
//! each returns `Result<Tensor>`; [`TensorResult`] gives a `Result<Tensor>` the methods of
//! [`Tensor`], and the arithmetic operators take a `Result<Tensor>` on either side, so a chain
//! carries the first error to its end and one `?` checks it:
//!
//! ```
//! use ctorch::{Tensor, TensorResult};
//! # fn main() -> ctorch::Result<()> {
//! let x = Tensor::from_slice(&[-1.0f32, 0.0, 2.0]);
//! let y = (&x * x.sigmoid()).add_scalar(1.0).sum()?;   // silu(x) + 1, summed
//! # assert!((y.double_value()? - 4.4927).abs() < 1e-3);
//! # Ok(())
//! # }
//! ```
//!
//! Rust lets a crate define an operator only where one side is its own type, so a number meets a
//! pending result through a method (`add_scalar`, `mul_scalar`, `sub_scalar`, `div_scalar`,
//! `pow_scalar`, ...), and two pending results through a method too (`a.mul(&b?)`, or bind one
//! first). Operators between a `Tensor` (owned or borrowed) and a `Result<Tensor>` work both ways.

// The generated methods name these types where the macro expands.
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::generated::tensor_result_methods;
use crate::index::IndexOp;
use crate::scalar::Scalar;
use crate::tensor::Tensor;

/// The methods of [`Tensor`] on a `Result<Tensor>`: each runs on the tensor, or passes the error
/// on without running. Bring it into scope with `use ctorch::TensorResult;`.
pub trait TensorResult: Sized {
    /// The tensor, or the chain's first error.
    fn tensor(self) -> Result<Tensor>;

    /// [`Tensor::to_vec`] of the tensor, or the chain's first error.
    fn to_vec<T: Element>(self) -> Result<Vec<T>> {
        self.tensor()?.to_vec()
    }
    /// [`Tensor::item`] of the tensor, or the chain's first error.
    fn item(self) -> Result<Scalar> {
        self.tensor()?.item()
    }
    /// [`Tensor::double_value`] of the tensor, or the chain's first error.
    fn double_value(self) -> Result<f64> {
        self.tensor()?.double_value()
    }
    /// [`Tensor::int64_value`] of the tensor, or the chain's first error.
    fn int64_value(self) -> Result<i64> {
        self.tensor()?.int64_value()
    }
    /// [`Tensor::size`] of the tensor, or the chain's first error.
    fn size(self) -> Result<Vec<i64>> {
        Ok(self.tensor()?.size())
    }
    /// [`Tensor::backward`] from the tensor, or the chain's first error.
    fn backward(self) -> Result<()> {
        self.tensor()?.backward()
    }
    /// [`Tensor::detach`] of the tensor, or the chain's first error.
    fn detach(self) -> Result<Tensor> {
        self.tensor()?.detach()
    }
    /// [`Tensor::set_requires_grad`] of the tensor, or the chain's first error.
    fn set_requires_grad(self, requires_grad: bool) -> Result<Tensor> {
        self.tensor()?.set_requires_grad(requires_grad)
    }
    /// [`IndexOp::i`] of the tensor, or the chain's first error.
    fn i<I>(self, index: I) -> Result<Tensor>
    where
        Tensor: IndexOp<I>,
    {
        self.tensor()?.i(index)
    }
    tensor_result_methods!();
}

impl TensorResult for Result<Tensor> {
    fn tensor(self) -> Result<Tensor> {
        self
    }
}
