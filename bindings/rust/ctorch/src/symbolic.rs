//! Symbolic shapes: the shape environment ([`ShapeEnv`]) and symbolic numbers ([`SymInt`],
//! [`SymFloat`], [`SymBool`]).
//!
//! A `ShapeEnv` owns size symbols (`s0`, `batch`: a range and a hint, the value in the run being
//! traced) and records **guards**, the facts a program relied on when it asked a symbolic value for
//! a concrete answer ([`SymInt::guard_int`], [`SymBool::guard_bool`]). Arithmetic builds simplified
//! expressions and records nothing; so do [`sym_max`], [`sym_min`], [`sym_sum`], [`sym_ite`] and
//! [`sym_not`], which shape code uses instead of branching. Operators return `Result`, as tensor
//! arithmetic does: `(&(&s0 * 4)? + 1)?` is `4*s0 + 1`.
//!
//! ```
//! use ctorch::symbolic::ShapeEnv;
//! use ctorch::{DType, Tensor};
//! # fn main() -> ctorch::Result<()> {
//! let env = ShapeEnv::new()?;
//! let s0 = env.create_symbol("", 8, 2, 64)?;
//! let x = Tensor::empty_symbolic(&[&s0, &ctorch::symbolic::SymInt::new(100)?], DType::Float32)?;
//! let w = Tensor::empty_with(&[50, 100], Some(DType::Float32), Some(ctorch::Device::META))?;
//! let y = Tensor::linear(&x, &w)?;
//! assert_eq!(y.sym_numel()?.to_string(), "50*s0");
//! assert_eq!(y.sym_numel()?.evaluate(&[16])?, 800);
//! # Ok(())
//! # }
//! ```
//!
//! Symbolic numbers of one env may be used from several threads (the env locks); combining
//! numbers of two envs is an `InvalidArgument` error.

use std::fmt;
use std::os::raw::c_char;
use std::ptr;

use ctorch_sys as sys;

use crate::dtype::DType;
use crate::error::{c_string, check, take_string, Result};
use crate::tensor::Tensor;

mod arith;

pub use arith::{SymBoolOperand, SymFloatOperand, SymIntOperand};

/// Makes a symbolic number type: a reference-counted handle whose `Display` is the C text.
macro_rules! sym_handle {
    ($(#[$doc:meta])* $name:ident, $raw:ty, $retain:path, $release:path, $to_string:path) => {
        crate::handle::ref_counted!($(#[$doc])* $name, $raw, $retain, $release);

        impl $name {
            fn text(&self) -> Result<String> {
                let mut s: *mut c_char = ptr::null_mut();
                check(unsafe { $to_string(self.as_ptr(), &mut s) })?;
                Ok(take_string(s))
            }
        }

        /// Python-style text: `2*s0 + 1`, `s0 >= 2`, or the plain number.
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.text() {
                    Ok(s) => f.write_str(&s),
                    Err(e) => write!(f, concat!("<", stringify!($name), ": {}>"), e),
                }
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }
    };
}

sym_handle!(
    /// A symbolic integer: a plain value or an expression over a [`ShapeEnv`]'s symbols
    /// (`2*s0 + 1`), like `torch.SymInt`. `Clone` adds a reference to the same number.
    SymInt, sys::ct_symint, sys::ct_symint_retain, sys::ct_symint_release, sys::ct_symint_to_string
);
sym_handle!(
    /// A symbolic float (`s0 / 2`, [`SymInt::to_sym_float`]), like `torch.SymFloat`.
    SymFloat, sys::ct_symfloat, sys::ct_symfloat_retain, sys::ct_symfloat_release, sys::ct_symfloat_to_string
);
sym_handle!(
    /// A symbolic bool (`s0 >= 2`), like `torch.SymBool`: what comparisons give.
    SymBool, sys::ct_symbool, sys::ct_symbool_retain, sys::ct_symbool_release, sys::ct_symbool_to_string
);

/// Reads a flag the C function writes; the functions using it cannot fail on a live handle.
fn flag(f: impl FnOnce(*mut i32) -> sys::ct_status) -> bool {
    let mut v = 0;
    f(&mut v);
    v != 0
}

impl SymInt {
    /// A plain integer as a handle (to mix with symbolic ones, or to size a symbolic tensor).
    /// `InvalidArgument` error below -2^62, a range reserved for expressions.
    pub fn new(value: i64) -> Result<SymInt> {
        SymInt::make(|out| unsafe { sys::ct_symint_from_int(value, out) })
    }

    /// Whether this is an expression (false for a plain number, or one that simplified to it).
    pub fn is_symbolic(&self) -> bool {
        flag(|v| unsafe { sys::ct_symint_is_symbolic(self.as_ptr(), v) })
    }

    /// The value when it is plain; `None` for an expression. Records no guard.
    pub fn maybe_int(&self) -> Option<i64> {
        let (mut value, mut concrete) = (0, 0);
        unsafe { sys::ct_symint_maybe_int(self.as_ptr(), &mut value, &mut concrete) };
        (concrete != 0).then_some(value)
    }

    /// The concrete value, as `int(s)` in Python: answered from the symbols' hints, recording the
    /// guard `s == value`. `Guard` error when it depends on an unbacked symbol (no hint).
    pub fn guard_int(&self) -> Result<i64> {
        let mut v = 0;
        check(unsafe { sys::ct_symint_guard_int(self.as_ptr(), &mut v) })?;
        Ok(v)
    }

    /// The value under a binding of the env's symbols (one per symbol, in creation order; a plain
    /// number ignores it). Records nothing. `InvalidArgument` error for a binding of the wrong
    /// length, or a division by zero or overflow under it.
    pub fn evaluate(&self, values: &[i64]) -> Result<i64> {
        let mut v = 0;
        check(unsafe { sys::ct_symint_evaluate(self.as_ptr(), values.as_ptr(), values.len(), &mut v) })?;
        Ok(v)
    }

    /// The value as a float, without a guard (`sym_float`).
    pub fn to_sym_float(&self) -> Result<SymFloat> {
        SymFloat::make(|out| unsafe { sys::ct_sym_float(self.as_ptr(), out) })
    }
}

impl SymFloat {
    /// A plain float as a handle.
    pub fn new(value: f64) -> Result<SymFloat> {
        SymFloat::make(|out| unsafe { sys::ct_symfloat_from_double(value, out) })
    }

    /// Whether this is an expression (false for a plain number).
    pub fn is_symbolic(&self) -> bool {
        flag(|v| unsafe { sys::ct_symfloat_is_symbolic(self.as_ptr(), v) })
    }

    /// The value when it is plain; `None` for an expression. Records no guard.
    pub fn maybe_float(&self) -> Option<f64> {
        let (mut value, mut concrete) = (0.0, 0);
        unsafe { sys::ct_symfloat_maybe_double(self.as_ptr(), &mut value, &mut concrete) };
        (concrete != 0).then_some(value)
    }

    /// The concrete value, recording a guard; `Guard` error when it depends on an unbacked symbol.
    pub fn guard_float(&self) -> Result<f64> {
        let mut v = 0.0;
        check(unsafe { sys::ct_symfloat_guard_float(self.as_ptr(), &mut v) })?;
        Ok(v)
    }

    /// The value under a binding of the env's symbols (as [`SymInt::evaluate`]).
    pub fn evaluate(&self, values: &[i64]) -> Result<f64> {
        let mut v = 0.0;
        check(unsafe { sys::ct_symfloat_evaluate(self.as_ptr(), values.as_ptr(), values.len(), &mut v) })?;
        Ok(v)
    }

    /// The value truncated toward zero, without a guard (`sym_int`); `InvalidArgument` error for a
    /// plain float that does not fit an `i64`.
    pub fn to_sym_int(&self) -> Result<SymInt> {
        SymInt::make(|out| unsafe { sys::ct_sym_int(self.as_ptr(), out) })
    }
}

impl SymBool {
    /// A plain bool as a handle.
    pub fn new(value: bool) -> Result<SymBool> {
        SymBool::make(|out| unsafe { sys::ct_symbool_from_bool(value as i32, out) })
    }

    /// Whether this is an expression (false for a plain bool, or a comparison the ranges decide).
    pub fn is_symbolic(&self) -> bool {
        flag(|v| unsafe { sys::ct_symbool_is_symbolic(self.as_ptr(), v) })
    }

    /// The value when it is plain; `None` for an expression. Records no guard.
    pub fn maybe_bool(&self) -> Option<bool> {
        let (mut value, mut concrete) = (0, 0);
        unsafe { sys::ct_symbool_maybe_bool(self.as_ptr(), &mut value, &mut concrete) };
        (concrete != 0).then_some(value != 0)
    }

    /// The concrete value, as `if b:` needs it: answered from the hints, recording the fact relied
    /// on (`s0 >= 2` or its negation). `Guard` error when it depends on an unbacked symbol: build
    /// the result with [`sym_ite`] or [`sym_max`] instead of branching.
    pub fn guard_bool(&self) -> Result<bool> {
        let mut v = 0;
        check(unsafe { sys::ct_symbool_guard_bool(self.as_ptr(), &mut v) })?;
        Ok(v != 0)
    }

    /// The value under a binding of the env's symbols (as [`SymInt::evaluate`]).
    pub fn evaluate(&self, values: &[i64]) -> Result<bool> {
        let mut v = 0;
        check(unsafe { sys::ct_symbool_evaluate(self.as_ptr(), values.as_ptr(), values.len(), &mut v) })?;
        Ok(v != 0)
    }
}

crate::handle::ref_counted!(
    /// Symbols with ranges and hints, and the guards recorded on them (`ct_shape_env`). `Clone` adds
    /// a reference to the same env; symbolic numbers keep their env alive. The env locks, so its
    /// numbers may be used from several threads.
    ShapeEnv, sys::ct_shape_env, sys::ct_shape_env_retain, sys::ct_shape_env_release
);

impl fmt::Debug for ShapeEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ShapeEnv({} symbols, {} guards)", self.num_symbols(), self.num_guards())
    }
}

impl ShapeEnv {
    /// A new, empty env. `OutOfMemory` error when it cannot be allocated.
    pub fn new() -> Result<ShapeEnv> {
        ShapeEnv::make(|out| unsafe { sys::ct_shape_env_create(out) })
    }

    /// A new size symbol named `name` (`""` gives `s<k>`) known to lie in `[min, max]` (`i64::MAX`
    /// for no upper end), traced at `hint`. `InvalidArgument` error for `min > max`, a hint outside
    /// the range, or a name with a NUL byte.
    pub fn create_symbol(&self, name: &str, hint: i64, min: i64, max: i64) -> Result<SymInt> {
        let cname = c_string("ShapeEnv::create_symbol", name)?;
        SymInt::make(|out| unsafe { sys::ct_shape_env_create_symbol(self.as_ptr(), cname.as_ptr(), hint, min, max, out) })
    }

    /// A new unbacked symbol (`u<k>`): a value known only at run time, so asking for its value is
    /// a `Guard` error and requirements on it become runtime assertions.
    pub fn create_unbacked(&self) -> Result<SymInt> {
        SymInt::make(|out| unsafe { sys::ct_shape_env_create_unbacked(self.as_ptr(), out) })
    }

    /// How many symbols (backed and unbacked): the length of a binding.
    pub fn num_symbols(&self) -> usize {
        let mut n = 0;
        unsafe { sys::ct_shape_env_num_symbols(self.as_ptr(), &mut n) };
        n
    }

    /// How many distinct guards were recorded.
    pub fn num_guards(&self) -> usize {
        let mut n = 0;
        unsafe { sys::ct_shape_env_num_guards(self.as_ptr(), &mut n) };
        n
    }

    /// How many times a concrete answer was asked that the recorded facts did not already decide
    /// (before deduplication).
    pub fn guard_requests(&self) -> u64 {
        let mut n = 0;
        unsafe { sys::ct_shape_env_guard_requests(self.as_ptr(), &mut n) };
        n
    }

    /// The symbols, guards and runtime assertions as one JSON document:
    /// `{"symbols": [...], "guards": ["s0 >= 2", ...], "runtime_asserts": [...]}`.
    pub fn guards_json(&self) -> Result<String> {
        let mut s = ptr::null_mut();
        check(unsafe { sys::ct_shape_env_guards_json(self.as_ptr(), &mut s) })?;
        Ok(take_string(s))
    }

    /// Evaluates every guard and runtime assertion under a binding (one value per symbol, in
    /// creation order): `None` when all hold, else the index of the first that fails (guards
    /// first, then assertions, as [`ShapeEnv::guards_json`] lists them). Records nothing.
    /// `InvalidArgument` error for a binding of the wrong length, or a division by zero or
    /// overflow under it.
    pub fn check_guards(&self, values: &[i64]) -> Result<Option<usize>> {
        let mut failing = -1;
        check(unsafe { sys::ct_shape_env_check_guards(self.as_ptr(), values.as_ptr(), values.len(), &mut failing) })?;
        Ok(usize::try_from(failing).ok())
    }
}

/// Handles of a list of symbolic ints, for the C functions taking arrays.
fn handles<S: AsRef<SymInt>>(xs: &[S]) -> Vec<*const sys::ct_symint> {
    xs.iter().map(|s| s.as_ref().as_ptr() as *const _).collect()
}

/// `max(xs...)` as one expression, recording no guard (comparing and picking would guard).
/// `InvalidArgument` error for no operand or operands of two envs.
pub fn sym_max<S: AsRef<SymInt>>(xs: &[S]) -> Result<SymInt> {
    let h = handles(xs);
    SymInt::make(|out| unsafe { sys::ct_sym_max(h.as_ptr(), h.len(), out) })
}

/// `min(xs...)` as one expression, recording no guard. Errors as [`sym_max`].
pub fn sym_min<S: AsRef<SymInt>>(xs: &[S]) -> Result<SymInt> {
    let h = handles(xs);
    SymInt::make(|out| unsafe { sys::ct_sym_min(h.as_ptr(), h.len(), out) })
}

/// The sum of `xs` as one n-ary expression (0 for none). `InvalidArgument` error for operands of
/// two envs or an overflow.
pub fn sym_sum<S: AsRef<SymInt>>(xs: &[S]) -> Result<SymInt> {
    let h = handles(xs);
    SymInt::make(|out| unsafe { sys::ct_sym_sum(h.as_ptr(), h.len(), out) })
}

/// `if c { a } else { b }` as an expression, recording no guard. `InvalidArgument` error for
/// operands of two envs.
pub fn sym_ite(c: &SymBool, a: impl SymIntOperand, b: impl SymIntOperand) -> Result<SymInt> {
    let (a, b) = (a.to_sym_int()?, b.to_sym_int()?);
    SymInt::make(|out| unsafe { sys::ct_sym_ite(c.as_ptr(), a.as_ptr(), b.as_ptr(), out) })
}

/// [`sym_ite`] for floats.
pub fn sym_ite_float(c: &SymBool, a: impl SymFloatOperand, b: impl SymFloatOperand) -> Result<SymFloat> {
    let (a, b) = (a.to_sym_float()?, b.to_sym_float()?);
    SymFloat::make(|out| unsafe { sys::ct_sym_ite_float(c.as_ptr(), a.as_ptr(), b.as_ptr(), out) })
}

/// `not b` as an expression, recording no guard (also `!&b`).
pub fn sym_not(b: &SymBool) -> Result<SymBool> {
    SymBool::make(|out| unsafe { sys::ct_sym_not(b.as_ptr(), out) })
}

/// Symbolic sizes of tensors: meta tensors whose sizes are expressions.
impl Tensor {
    /// A contiguous meta tensor (no data) of `dtype` whose sizes may be symbolic: operators on it
    /// compute symbolic output sizes, recording the guards their shape rules need in the symbols'
    /// env. `InvalidArgument` error for sizes of two envs, a negative size or more than 64 dims.
    pub fn empty_symbolic<S: AsRef<SymInt>>(sizes: &[S], dtype: DType) -> Result<Tensor> {
        let h = handles(sizes);
        Tensor::make(|out| unsafe { sys::ct_tensor_empty_symbolic(h.as_ptr(), h.len(), dtype.to_c(), out) })
    }

    /// Whether a size, stride, element count or offset is symbolic; such a tensor answers
    /// [`Tensor::size_of`] with a `Guard` error: read it with the `sym_` methods.
    pub fn is_symbolic(&self) -> bool {
        flag(|v| unsafe { sys::ct_tensor_is_symbolic(self.as_ptr(), v) })
    }

    /// The size of `dim` (negative counts from the end), symbolic or plain; `Index` error out of range.
    pub fn sym_size(&self, dim: i64) -> Result<SymInt> {
        SymInt::make(|out| unsafe { sys::ct_tensor_sym_size(self.as_ptr(), dim, out) })
    }

    /// Every size, symbolic or plain.
    pub fn sym_sizes(&self) -> Result<Vec<SymInt>> {
        (0..self.dim() as i64).map(|d| self.sym_size(d)).collect()
    }

    /// The stride of `dim`, symbolic or plain; `Index` error out of range.
    pub fn sym_stride(&self, dim: i64) -> Result<SymInt> {
        SymInt::make(|out| unsafe { sys::ct_tensor_sym_stride(self.as_ptr(), dim, out) })
    }

    /// Every stride, symbolic or plain.
    pub fn sym_strides(&self) -> Result<Vec<SymInt>> {
        (0..self.dim() as i64).map(|d| self.sym_stride(d)).collect()
    }

    /// The element count, symbolic or plain.
    pub fn sym_numel(&self) -> Result<SymInt> {
        SymInt::make(|out| unsafe { sys::ct_tensor_sym_numel(self.as_ptr(), out) })
    }

    /// The value of a one-element integer or bool meta tensor of a ShapeEnv: a new unbacked symbol
    /// (`u<k>`), the value it will hold when the program runs. `DType` error for a floating
    /// tensor, `Device` error for a tensor that is not a meta tensor of a ShapeEnv (use
    /// [`Tensor::item`] for data), `InvalidArgument` error for more than one element.
    pub fn sym_item(&self) -> Result<SymInt> {
        SymInt::make(|out| unsafe { sys::ct_tensor_sym_item(self.as_ptr(), out) })
    }
}
