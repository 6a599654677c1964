//! Numbers passed to operators (`ct_scalar`): Python's promotion rule applies, so an integer keeps an
//! integer tensor integral and a float makes it floating.

use ctorch_sys as sys;

/// A number argument: a bool, an integer or a float.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Scalar {
    /// A bool.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
}

impl Scalar {
    pub(crate) fn to_c(self) -> sys::ct_scalar {
        match self {
            Scalar::Bool(b) => sys::ct_scalar { kind: sys::CT_SCALAR_BOOL, i: b as i64, f: 0.0 },
            Scalar::Int(i) => sys::ct_scalar { kind: sys::CT_SCALAR_INT, i, f: 0.0 },
            Scalar::Float(f) => sys::ct_scalar { kind: sys::CT_SCALAR_FLOAT, i: 0, f },
        }
    }

    pub(crate) fn from_c(s: &sys::ct_scalar) -> Scalar {
        match s.kind {
            sys::CT_SCALAR_BOOL => Scalar::Bool(s.i != 0),
            sys::CT_SCALAR_INT => Scalar::Int(s.i),
            _ => Scalar::Float(s.f),
        }
    }

    /// The value as a float.
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as i64 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }

    /// The value as an integer (floats truncate toward zero).
    pub fn to_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(f) => f as i64,
        }
    }
}

macro_rules! scalar_from {
    ($variant:ident: $($t:ty),*) => {$(
        impl From<$t> for Scalar {
            fn from(v: $t) -> Scalar {
                Scalar::$variant(v.into())
            }
        }
    )*};
}
scalar_from!(Int: i8, i16, i32, i64, u8, u16, u32);
scalar_from!(Float: f32, f64);
scalar_from!(Bool: bool);
