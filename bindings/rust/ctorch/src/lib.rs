//! ctorch for Rust: PyTorch's tensors, autograd and compiler over ctorch's C ABI.
//!
//! ```
//! use ctorch::{DType, Tensor};
//! # fn main() -> ctorch::Result<()> {
//! let x = Tensor::from_data(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
//! let w = Tensor::ones_with(&[2, 2], Some(DType::Float32), None)?;
//! let y = x.matmul(&w)?.relu()?;
//! let z = (&y + 1.0)?;
//! assert_eq!(z.to_vec::<f32>()?, vec![4.0, 4.0, 8.0, 8.0]);
//! # Ok(())
//! # }
//! ```
//!
//! - [`Tensor`] owns one reference to a C tensor: `Clone` adds one, `Drop` releases it.
//! - Every fallible call returns [`Result`]; [`Error`] carries the status kind and the library's
//!   message. Arithmetic operators return `Result<Tensor>` too: `(&a + &b)?`. [`TensorResult`]
//!   gives `Result<Tensor>` every method of `Tensor`, and the operators take one on either side,
//!   so an expression checks once: `(&x * x.sigmoid()).add_scalar(1.0).sum()?`.
//! - Every built-in operator is a method or associated function of [`Tensor`], generated from the
//!   operator registry (see `generated.rs` and docs/rust.md for the naming rules); [`ops::call`]
//!   reaches any operator by name, custom ones included.
//! - Training: [`optim`] (optimizers and learning-rate schedules), [`nn`] (the [`nn::Module`]
//!   trait, `Linear`, `Sequential`, activations, losses, initializers, gradient clipping) and
//!   [`checkpoint`] (safetensors files). The library computes every update and initializer.
//! - Several processes: [`distributed`] (process groups and collectives over gloo, MPI or NCCL).
//! - Closures given to the library (custom operators and autograd functions, hooks, compiled and
//!   exported functions, log and memory-pressure handlers) report their `Err` to the caller with its
//!   kind and message; a panic inside one never unwinds into C: it is caught and resumed on the
//!   calling thread when the library returns, or turned into an error on another thread.
#![warn(missing_docs)]

mod arith;
mod autograd;
mod callback;
mod device;
mod dtype;
mod error;
mod function;
mod generated;
mod handle;
mod index;
mod scalar;
mod tensor;
mod tensor_result;

pub mod checkpoint;
pub mod compile;
pub mod cuda;
pub mod distributed;
pub mod export;
pub mod library;
pub mod metrics;
pub mod nn;
pub mod ops;
pub mod optim;
pub mod profiler;
pub mod runtime;
pub mod symbolic;
pub mod torch_file;

pub use autograd::{
    backward, enable_grad, grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_mode, GradFlags,
    GradMode, GradModeGuard, HookId,
};
pub use compile::{compile, wait_kernels, CompileOptions, Compiled, Dynamic};
pub use device::{Device, DeviceType};
pub use dtype::{DType, Element};
pub use error::{Error, ErrorKind, Result};
pub use export::{export, DynamicShapes, Program};
pub use function::{Function, FunctionCtx};
pub use generated::GENERATED_OVERLOADS;
pub use index::{IndexOp, TensorIndexer};
pub use runtime::{autocast, AutocastGuard, Generator};
pub use scalar::Scalar;
pub use symbolic::{ShapeEnv, SymBool, SymFloat, SymInt};
pub use tensor::Tensor;
pub use tensor_result::TensorResult;

/// docs/rust.md, the crate's guide: compiled in doc tests only, so that every `rust` block in it
/// is a doc test, built and run by `cargo test` (the newcomer's program is `no_run` here: the
/// rust.consumer test runs it in a project of its own).
#[cfg(doctest)]
#[doc = include_str!("../../../../docs/rust.md")]
pub struct Guide;

/// The raw C declarations (the `ctorch-sys` crate).
pub use ctorch_sys as sys;

/// The library's version string, e.g. `"0.9.0"`.
pub fn version() -> &'static str {
    // SAFETY: ct_version returns a static string.
    unsafe { std::ffi::CStr::from_ptr(sys::ct_version()) }.to_str().unwrap_or("?")
}

/// Checks that the loaded library speaks this crate's ABI and registers the operators and
/// backends (loading plugins on `CTORCH_BACKEND_PATH`). Optional: every call initializes on
/// first use; this is the one place a version mismatch or a failed plugin is reported.
pub fn init() -> Result<()> {
    error::check(unsafe { sys::ct_init(sys::CT_ABI_VERSION) })
}

/// Whether this build and machine support a feature: "cpu", "openblas", "threads", "compile",
/// "cuda", "nvrtc".
pub fn has_feature(name: &str) -> bool {
    std::ffi::CString::new(name).is_ok_and(|n| unsafe { sys::ct_has_feature(n.as_ptr()) } != 0)
}
