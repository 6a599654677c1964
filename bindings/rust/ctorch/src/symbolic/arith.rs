//! Arithmetic and comparisons of symbolic numbers. Operators return `Result` (operands of two
//! envs, a division by zero, an overflow), as tensor arithmetic does: `(&s0 * 4)?`. Integer `/`
//! is true division giving a [`SymFloat`], and `%` and [`SymInt::floordiv`] follow Python for
//! negatives (the remainder takes the divisor's sign), as in PyTorch.

use std::borrow::Cow;
use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Rem, Sub};

use ctorch_sys as sys;

use super::{SymBool, SymFloat, SymInt};
use crate::error::Result;

/// An operand of symbolic integer arithmetic: a [`SymInt`] (owned or borrowed) or an `i64`.
pub trait SymIntOperand {
    /// The operand as a handle: borrowed when it is one, else a new plain one (`InvalidArgument`
    /// error below -2^62).
    fn to_sym_int(&self) -> Result<Cow<'_, SymInt>>;
}

/// An operand of symbolic float arithmetic: a [`SymFloat`], a [`SymInt`] (converted without a
/// guard) or an `f64`.
pub trait SymFloatOperand {
    /// The operand as a float handle: borrowed when it is one, else a new one.
    fn to_sym_float(&self) -> Result<Cow<'_, SymFloat>>;
}

/// An operand of symbolic logic: a [`SymBool`] or a `bool`.
pub trait SymBoolOperand {
    /// The operand as a handle: borrowed when it is one, else a new plain one.
    fn to_sym_bool(&self) -> Result<Cow<'_, SymBool>>;
}

impl SymIntOperand for SymInt {
    fn to_sym_int(&self) -> Result<Cow<'_, SymInt>> {
        Ok(Cow::Borrowed(self))
    }
}
impl SymIntOperand for i64 {
    fn to_sym_int(&self) -> Result<Cow<'_, SymInt>> {
        SymInt::new(*self).map(Cow::Owned)
    }
}
impl<T: SymIntOperand + ?Sized> SymIntOperand for &T {
    fn to_sym_int(&self) -> Result<Cow<'_, SymInt>> {
        (**self).to_sym_int()
    }
}

impl SymFloatOperand for SymFloat {
    fn to_sym_float(&self) -> Result<Cow<'_, SymFloat>> {
        Ok(Cow::Borrowed(self))
    }
}
impl SymFloatOperand for SymInt {
    fn to_sym_float(&self) -> Result<Cow<'_, SymFloat>> {
        self.to_sym_float().map(Cow::Owned)
    }
}
impl SymFloatOperand for f64 {
    fn to_sym_float(&self) -> Result<Cow<'_, SymFloat>> {
        SymFloat::new(*self).map(Cow::Owned)
    }
}
impl<T: SymFloatOperand + ?Sized> SymFloatOperand for &T {
    fn to_sym_float(&self) -> Result<Cow<'_, SymFloat>> {
        (**self).to_sym_float()
    }
}

impl SymBoolOperand for SymBool {
    fn to_sym_bool(&self) -> Result<Cow<'_, SymBool>> {
        Ok(Cow::Borrowed(self))
    }
}
impl SymBoolOperand for bool {
    fn to_sym_bool(&self) -> Result<Cow<'_, SymBool>> {
        SymBool::new(*self).map(Cow::Owned)
    }
}
impl<T: SymBoolOperand + ?Sized> SymBoolOperand for &T {
    fn to_sym_bool(&self) -> Result<Cow<'_, SymBool>> {
        (**self).to_sym_bool()
    }
}

/// `lhs op rhs` through a C function of two handles.
macro_rules! binary {
    ($cfn:path, $out:ident, $lhs:expr, $rhs:expr) => {{
        let (lhs, rhs) = ($lhs, $rhs);
        $out::make(|out| unsafe { $cfn(lhs.as_ptr(), rhs.as_ptr(), out) })
    }};
}

/// One `std::ops` operator of `$ty` with any operand on the right and a number on the left.
macro_rules! operator {
    ($ty:ident, $operand:ident, $conv:ident, $prim:ty, $trait:ident, $method:ident, $cfn:path, $out:ident) => {
        impl<R: $operand> $trait<R> for &$ty {
            type Output = Result<$out>;
            fn $method(self, rhs: R) -> Result<$out> {
                binary!($cfn, $out, self, rhs.$conv()?)
            }
        }
        impl<R: $operand> $trait<R> for $ty {
            type Output = Result<$out>;
            fn $method(self, rhs: R) -> Result<$out> {
                binary!($cfn, $out, &self, rhs.$conv()?)
            }
        }
        impl $trait<&$ty> for $prim {
            type Output = Result<$out>;
            fn $method(self, rhs: &$ty) -> Result<$out> {
                binary!($cfn, $out, self.$conv()?, rhs)
            }
        }
        impl $trait<$ty> for $prim {
            type Output = Result<$out>;
            fn $method(self, rhs: $ty) -> Result<$out> {
                binary!($cfn, $out, self.$conv()?, &rhs)
            }
        }
    };
}

operator!(SymInt, SymIntOperand, to_sym_int, i64, Add, add, sys::ct_symint_add, SymInt);
operator!(SymInt, SymIntOperand, to_sym_int, i64, Sub, sub, sys::ct_symint_sub, SymInt);
operator!(SymInt, SymIntOperand, to_sym_int, i64, Mul, mul, sys::ct_symint_mul, SymInt);
operator!(SymInt, SymIntOperand, to_sym_int, i64, Rem, rem, sys::ct_symint_mod, SymInt);
operator!(SymInt, SymIntOperand, to_sym_int, i64, Div, div, sys::ct_symint_truediv, SymFloat);
operator!(SymFloat, SymFloatOperand, to_sym_float, f64, Add, add, sys::ct_symfloat_add, SymFloat);
operator!(SymFloat, SymFloatOperand, to_sym_float, f64, Sub, sub, sys::ct_symfloat_sub, SymFloat);
operator!(SymFloat, SymFloatOperand, to_sym_float, f64, Mul, mul, sys::ct_symfloat_mul, SymFloat);
operator!(SymFloat, SymFloatOperand, to_sym_float, f64, Rem, rem, sys::ct_symfloat_mod, SymFloat);
operator!(SymFloat, SymFloatOperand, to_sym_float, f64, Div, div, sys::ct_symfloat_truediv, SymFloat);
operator!(SymBool, SymBoolOperand, to_sym_bool, bool, BitAnd, bitand, sys::ct_symbool_and, SymBool);
operator!(SymBool, SymBoolOperand, to_sym_bool, bool, BitOr, bitor, sys::ct_symbool_or, SymBool);

/// Methods of `$ty` over one operand: comparisons and the operators Rust has no symbol for.
macro_rules! methods {
    ($ty:ident, $operand:ident, $conv:ident, $($(#[$doc:meta])* $name:ident => $cfn:path, $out:ident;)*) => {
        impl $ty {
            $(
                $(#[$doc])*
                pub fn $name(&self, other: impl $operand) -> Result<$out> {
                    binary!($cfn, $out, self, other.$conv()?)
                }
            )*
        }
    };
}

methods!(SymInt, SymIntOperand, to_sym_int,
    /// `self // other`: floor division (Python's, toward negative infinity); `(4*s0)//4` is `s0`.
    floordiv => sys::ct_symint_floordiv, SymInt;
    /// `self ** other` for a non-negative exponent (`InvalidArgument` error for a negative constant).
    pow => sys::ct_symint_pow, SymInt;
    /// The smaller of the two, as an expression (no guard).
    min => sys::ct_symint_min, SymInt;
    /// The larger of the two, as an expression (no guard): `max(s0, 1)` is `s0` when `s0 >= 1`.
    max => sys::ct_symint_max, SymInt;
    /// `self == other` (a plain bool when the ranges decide it; no guard until asked).
    sym_eq => sys::ct_symint_eq, SymBool;
    /// `self != other`.
    sym_ne => sys::ct_symint_ne, SymBool;
    /// `self < other`.
    lt => sys::ct_symint_lt, SymBool;
    /// `self <= other`.
    le => sys::ct_symint_le, SymBool;
    /// `self > other`.
    gt => sys::ct_symint_gt, SymBool;
    /// `self >= other`.
    ge => sys::ct_symint_ge, SymBool;
);

methods!(SymFloat, SymFloatOperand, to_sym_float,
    /// `self // other` (Python's floor division).
    floordiv => sys::ct_symfloat_floordiv, SymFloat;
    /// `self ** other`.
    pow => sys::ct_symfloat_pow, SymFloat;
    /// The smaller of the two, as an expression (no guard).
    min => sys::ct_symfloat_min, SymFloat;
    /// The larger of the two, as an expression (no guard).
    max => sys::ct_symfloat_max, SymFloat;
    /// `self == other`.
    sym_eq => sys::ct_symfloat_eq, SymBool;
    /// `self != other`.
    sym_ne => sys::ct_symfloat_ne, SymBool;
    /// `self < other`.
    lt => sys::ct_symfloat_lt, SymBool;
    /// `self <= other`.
    le => sys::ct_symfloat_le, SymBool;
    /// `self > other`.
    gt => sys::ct_symfloat_gt, SymBool;
    /// `self >= other`.
    ge => sys::ct_symfloat_ge, SymBool;
);

impl Neg for &SymInt {
    type Output = Result<SymInt>;
    fn neg(self) -> Result<SymInt> {
        SymInt::make(|out| unsafe { sys::ct_symint_neg(self.as_ptr(), out) })
    }
}
impl Neg for SymInt {
    type Output = Result<SymInt>;
    fn neg(self) -> Result<SymInt> {
        -&self
    }
}

/// `-x` as `-1.0 * x`, which keeps the sign of zero (the C API has no float negation).
impl Neg for &SymFloat {
    type Output = Result<SymFloat>;
    fn neg(self) -> Result<SymFloat> {
        -1.0 * self
    }
}
impl Neg for SymFloat {
    type Output = Result<SymFloat>;
    fn neg(self) -> Result<SymFloat> {
        -&self
    }
}

/// `!b`: logical not, as [`super::sym_not`] (no guard).
impl Not for &SymBool {
    type Output = Result<SymBool>;
    fn not(self) -> Result<SymBool> {
        super::sym_not(self)
    }
}
impl Not for SymBool {
    type Output = Result<SymBool>;
    fn not(self) -> Result<SymBool> {
        super::sym_not(&self)
    }
}
