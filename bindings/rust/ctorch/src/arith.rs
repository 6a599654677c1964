//! Arithmetic operators: `&a + &b`, `&a * 2.0`, `1.0 - &a`, `-&a`, `&m & &n`. Each returns
//! `Result<Tensor>` (shapes and dtypes may not fit), so write `(&a + &b)?`. Both sides may be owned
//! or borrowed, and between tensors either side may be a pending `Result<Tensor>`, whose error
//! passes on (`&a * b.sigmoid()`: see [`crate::TensorResult`]); numbers promote by Python's rule
//! (an integer keeps an integer tensor integral).

use std::ops::{Add, BitAnd, BitOr, BitXor, Div, Mul, Neg, Not, Rem, Sub};

use ctorch_sys as sys;

use crate::callback::enter;
use crate::error::Result;
use crate::scalar::Scalar;
use crate::tensor::Tensor;

type TensorFn = unsafe extern "C" fn(*const sys::ct_tensor, *const sys::ct_tensor, *mut *mut sys::ct_tensor) -> sys::ct_status;
type ScalarFn = unsafe extern "C" fn(*const sys::ct_tensor, *const sys::ct_scalar, *mut *mut sys::ct_tensor) -> sys::ct_status;

#[inline]
fn binary(f: TensorFn, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    Tensor::make(|out| enter(|| unsafe { f(a.as_ptr(), b.as_ptr(), out) }))
}

#[inline]
fn with_scalar(f: ScalarFn, a: &Tensor, s: Scalar) -> Result<Tensor> {
    let s = s.to_c();
    Tensor::make(|out| enter(|| unsafe { f(a.as_ptr(), &s, out) }))
}

macro_rules! tensor_op {
    ($trait:ident, $method:ident, $cfn:path) => {
        impl $trait<&Tensor> for &Tensor {
            type Output = Result<Tensor>;
            #[inline]
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                binary($cfn, self, rhs)
            }
        }
        impl $trait<Tensor> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Tensor) -> Result<Tensor> {
                binary($cfn, self, &rhs)
            }
        }
        impl $trait<&Tensor> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                binary($cfn, &self, rhs)
            }
        }
        impl $trait<Tensor> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Tensor) -> Result<Tensor> {
                binary($cfn, &self, &rhs)
            }
        }
        // A pending result on either side: its error passes on (see TensorResult).
        impl $trait<Result<Tensor>> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Result<Tensor>) -> Result<Tensor> {
                binary($cfn, self, &rhs?)
            }
        }
        impl $trait<Result<Tensor>> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Result<Tensor>) -> Result<Tensor> {
                binary($cfn, &self, &rhs?)
            }
        }
        impl $trait<&Tensor> for Result<Tensor> {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                binary($cfn, &self?, rhs)
            }
        }
        impl $trait<Tensor> for Result<Tensor> {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Tensor) -> Result<Tensor> {
                binary($cfn, &self?, &rhs)
            }
        }
    };
}

tensor_op!(Add, add, sys::ct_tensor_add);
tensor_op!(Sub, sub, sys::ct_tensor_sub);
tensor_op!(Mul, mul, sys::ct_tensor_mul);
tensor_op!(Div, div, sys::ct_tensor_div);
tensor_op!(Rem, rem, sys::ct_tensor_remainder);
tensor_op!(BitAnd, bitand, sys::ct_tensor_bitwise_and);
tensor_op!(BitOr, bitor, sys::ct_tensor_bitwise_or);
tensor_op!(BitXor, bitxor, sys::ct_tensor_bitwise_xor);

/// `number - tensor` and `number / tensor`, which have no C function of their own.
fn scalar_sub(s: Scalar, t: &Tensor) -> Result<Tensor> {
    t.rsub(s)
}
fn scalar_div(s: Scalar, t: &Tensor) -> Result<Tensor> {
    t.reciprocal()?.mul_scalar(s)
}
fn scalar_rem(s: Scalar, t: &Tensor) -> Result<Tensor> {
    // A 0-dim tensor promotes like the number it holds.
    let s = match s {
        Scalar::Bool(b) => Tensor::scalar(b),
        Scalar::Int(i) => Tensor::scalar(i),
        Scalar::Float(f) => Tensor::scalar(f),
    };
    s.remainder(t)
}

macro_rules! scalar_ops {
    ($($t:ty),*) => {$(
        scalar_op!($t, Add, add, sys::ct_tensor_add_scalar, |s, t: &Tensor| with_scalar(sys::ct_tensor_add_scalar, t, s));
        scalar_op!($t, Sub, sub, sys::ct_tensor_sub_scalar, scalar_sub);
        scalar_op!($t, Mul, mul, sys::ct_tensor_mul_scalar, |s, t: &Tensor| with_scalar(sys::ct_tensor_mul_scalar, t, s));
        scalar_op!($t, Div, div, sys::ct_tensor_div_scalar, scalar_div);
        scalar_op!($t, Rem, rem, sys::ct_tensor_remainder_scalar, scalar_rem);
    )*};
}

macro_rules! scalar_op {
    ($t:ty, $trait:ident, $method:ident, $cfn:path, $reversed:expr) => {
        impl $trait<$t> for &Tensor {
            type Output = Result<Tensor>;
            #[inline]
            fn $method(self, rhs: $t) -> Result<Tensor> {
                with_scalar($cfn, self, Scalar::from(rhs))
            }
        }
        impl $trait<$t> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: $t) -> Result<Tensor> {
                with_scalar($cfn, &self, Scalar::from(rhs))
            }
        }
        impl $trait<&Tensor> for $t {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                ($reversed)(Scalar::from(self), rhs)
            }
        }
        impl $trait<Tensor> for $t {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Tensor) -> Result<Tensor> {
                ($reversed)(Scalar::from(self), &rhs)
            }
        }
    };
}

scalar_ops!(f64, i64);

impl Neg for &Tensor {
    type Output = Result<Tensor>;
    fn neg(self) -> Result<Tensor> {
        Tensor::make(|out| enter(|| unsafe { sys::ct_tensor_neg(self.as_ptr(), out) }))
    }
}
impl Neg for Tensor {
    type Output = Result<Tensor>;
    fn neg(self) -> Result<Tensor> {
        -&self
    }
}

/// `!t`: logical not for bool tensors, bitwise not for integers (PyTorch's `~`).
impl Not for &Tensor {
    type Output = Result<Tensor>;
    fn not(self) -> Result<Tensor> {
        Tensor::make(|out| enter(|| unsafe { sys::ct_tensor_bitwise_not(self.as_ptr(), out) }))
    }
}
impl Not for Tensor {
    type Output = Result<Tensor>;
    fn not(self) -> Result<Tensor> {
        !&self
    }
}
