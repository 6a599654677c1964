//! Gradient clipping (`torch.nn.utils.clip_grad_norm_`, `clip_grad_value_`), computed by the
//! library. Parameters without a grad are skipped.

use ctorch_sys as sys;

use crate::error::{check, Result};
use crate::ops::arg;
use crate::tensor::Tensor;

/// Scales the grads of `params` in place so that their combined `norm_type`-norm (`f64::INFINITY`:
/// the largest absolute value) is at most `max_norm`, and returns that norm before clipping
/// (0 when no parameter has a grad). Grads already within the bound are left as they are.
/// `InvalidArgument` error for a negative or NaN `max_norm` or `norm_type`; `DType` or `Device`
/// for grads of mixed dtypes or devices.
pub fn clip_grad_norm<T: AsRef<Tensor>>(params: &[T], max_norm: f64, norm_type: f64) -> Result<f64> {
    let handles = arg::handles(params);
    let mut total = 0.0;
    check(unsafe { sys::ct_clip_grad_norm(handles.as_ptr(), handles.len(), max_norm, norm_type, &mut total) })?;
    Ok(total)
}

/// Clamps every element of the grads of `params` into `[-clip_value, clip_value]`, in place.
/// `InvalidArgument` error for a negative or NaN `clip_value`.
pub fn clip_grad_value<T: AsRef<Tensor>>(params: &[T], clip_value: f64) -> Result<()> {
    let handles = arg::handles(params);
    check(unsafe { sys::ct_clip_grad_value(handles.as_ptr(), handles.len(), clip_value) })
}
