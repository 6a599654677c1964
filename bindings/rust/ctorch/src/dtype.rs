//! Element types, and the Rust types that hold them.

use std::ffi::CStr;
use std::fmt;

use ctorch_sys as sys;

use crate::error::{Error, ErrorKind, Result};

/// A tensor's element type (`ct_dtype`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// `bool`, one byte per element.
    Bool,
    /// `u8`.
    UInt8,
    /// `i8`.
    Int8,
    /// `i16`.
    Int16,
    /// `i32`.
    Int32,
    /// `i64`, the dtype of indices.
    Int64,
    /// IEEE half precision (no Rust type: read it as `f32` after [`Tensor::to`](crate::Tensor::to)).
    Float16,
    /// bfloat16 (likewise).
    BFloat16,
    /// `f32`, the default floating dtype.
    Float32,
    /// `f64`.
    Float64,
    /// (real, imaginary) pairs of `f32`, C's `float _Complex` layout. No Rust type holds it: read
    /// it as `f32` pairs through `view_as_real`.
    Complex64,
    /// (real, imaginary) pairs of `f64` (likewise).
    Complex128,
}

impl DType {
    /// The C value.
    pub fn to_c(self) -> sys::ct_dtype {
        match self {
            DType::Bool => sys::CT_BOOL,
            DType::UInt8 => sys::CT_UINT8,
            DType::Int8 => sys::CT_INT8,
            DType::Int16 => sys::CT_INT16,
            DType::Int32 => sys::CT_INT32,
            DType::Int64 => sys::CT_INT64,
            DType::Float16 => sys::CT_FLOAT16,
            DType::BFloat16 => sys::CT_BFLOAT16,
            DType::Float32 => sys::CT_FLOAT32,
            DType::Float64 => sys::CT_FLOAT64,
            DType::Complex64 => sys::CT_COMPLEX64,
            DType::Complex128 => sys::CT_COMPLEX128,
        }
    }

    /// The dtype of a C value; a value this crate does not know is an `Internal` error.
    pub fn from_c(value: sys::ct_dtype) -> Result<DType> {
        Ok(match value {
            sys::CT_BOOL => DType::Bool,
            sys::CT_UINT8 => DType::UInt8,
            sys::CT_INT8 => DType::Int8,
            sys::CT_INT16 => DType::Int16,
            sys::CT_INT32 => DType::Int32,
            sys::CT_INT64 => DType::Int64,
            sys::CT_FLOAT16 => DType::Float16,
            sys::CT_BFLOAT16 => DType::BFloat16,
            sys::CT_FLOAT32 => DType::Float32,
            sys::CT_FLOAT64 => DType::Float64,
            sys::CT_COMPLEX64 => DType::Complex64,
            sys::CT_COMPLEX128 => DType::Complex128,
            other => return Err(Error::new(ErrorKind::Internal, format!("unknown ct_dtype {other}: update the ctorch crate"))),
        })
    }

    /// The dtype tensors of `self` and `other` combine to (`torch.promote_types`): uint8 with int8
    /// is int16, float16 with bfloat16 is float32, complex64 with float64 is complex128.
    pub fn promote(self, other: DType) -> DType {
        let mut out = sys::CT_FLOAT32;
        // Both are valid dtypes, so the call cannot fail.
        let _ = unsafe { sys::ct_promote_types(self.to_c(), other.to_c(), &mut out) };
        DType::from_c(out).expect("ct_promote_types gives a dtype")
    }

    /// Whether an operator may write a result of dtype `self` into a tensor of dtype `to`
    /// (`torch.can_cast`): not complex into real, not floating into integral or bool, not integral
    /// into bool.
    pub fn can_cast(self, to: DType) -> bool {
        let mut out = 0;
        let _ = unsafe { sys::ct_can_cast(self.to_c(), to.to_c(), &mut out) };
        out != 0
    }

    /// Bytes per element.
    pub fn itemsize(self) -> usize {
        // SAFETY: any value is accepted.
        unsafe { sys::ct_dtype_itemsize(self.to_c()) }
    }

    /// Whether the dtype is a real floating type (complex ones are not, as in torch).
    pub fn is_floating_point(self) -> bool {
        matches!(self, DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64)
    }

    /// Whether the dtype is complex64 or complex128.
    pub fn is_complex(self) -> bool {
        matches!(self, DType::Complex64 | DType::Complex128)
    }

    /// The name ctorch prints: `"float32"`, `"int64"`, ...
    pub fn name(self) -> &'static str {
        // SAFETY: returns a static string for any value.
        unsafe { CStr::from_ptr(sys::ct_dtype_name(self.to_c())) }.to_str().unwrap_or("unknown")
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Rust type whose values are elements of one [`DType`]: the types tensors convert from and to.
pub trait Element: Copy + Default + Send + Sync + 'static {
    /// The dtype of tensors holding this type.
    const DTYPE: DType;
}

macro_rules! element {
    ($($t:ty => $d:ident),*) => {$(
        impl Element for $t {
            const DTYPE: DType = DType::$d;
        }
    )*};
}
element!(bool => Bool, u8 => UInt8, i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64, f32 => Float32,
         f64 => Float64);
