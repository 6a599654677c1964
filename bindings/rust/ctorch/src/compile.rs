//! Compilation (`torch.compile`): [`compile`] wraps a closure computing tensors with ctorch
//! operators; calling the result traces the closure once per input signature into a graph,
//! optimizes and fuses it, and replays that graph on every later call whose inputs pass its guards.
//!
//! ```
//! use ctorch::compile::{compile, CompileOptions};
//! use ctorch::Tensor;
//! # fn main() -> ctorch::Result<()> {
//! let gelu_ish = compile(
//!     |xs: &[Tensor]| Ok(vec![((&xs[0] * xs[0].mul_scalar(1.702)?.sigmoid()?)? + &xs[1])?]),
//!     1,
//!     &CompileOptions::new(),
//! )?;
//! let (x, y) = (Tensor::from_slice(&[1.0f32, -2.0]), Tensor::from_slice(&[0.5f32, 0.5]));
//! let out = gelu_ish.call(&[&x, &y])?;
//! assert_eq!(out.len(), 1);
//! assert!(gelu_ish.graph(0)?.contains("fused"));
//! # Ok(())
//! # }
//! ```
//!
//! The closure runs while tracing, on proxies (meta tensors without data: reading their elements
//! is a graph break), and eagerly on real inputs after a graph break; it must not rely on side
//! effects. It returns exactly the number of outputs given to [`compile`] (the C call needs the
//! count before the closure runs); another count is an `InvalidArgument` error.

use std::ffi::c_void;
use std::ptr::{self, NonNull};

use ctorch_sys as sys;

use crate::callback::{self, enter};
use crate::error::{c_string, check, take_string, Error, ErrorKind, Result};
use crate::ops::arg;
use crate::tensor::Tensor;

/// Which sizes a trace keeps symbolic (`ct_dynamic`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Dynamic {
    /// Every size is static: a new size is a new trace.
    Off,
    /// Every size >= 2 is symbolic from the first trace.
    On,
    /// The first trace is static; a size that changes on a later call becomes symbolic (PyTorch's
    /// default).
    #[default]
    Automatic,
}

/// Options of [`compile`], with `torch.compile`'s defaults. Values are checked by [`compile`],
/// whose `InvalidArgument` error names a bad one and lists the known ones.
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    backend: Option<String>,
    mode: Option<String>,
    options: Vec<(String, String)>,
    dynamic: Dynamic,
    fullgraph: bool,
    recompile_limit: Option<i64>,
    name: Option<String>,
    disable: bool,
}

impl CompileOptions {
    /// The defaults: backend "fused", mode "default", dynamic automatic, fullgraph off, recompile
    /// limit 8, enabled.
    pub fn new() -> CompileOptions {
        CompileOptions::default()
    }

    /// `"fused"` (pointwise chains become one kernel) or `"eager"` (the graph replays through
    /// the dispatcher).
    pub fn backend(mut self, backend: &str) -> CompileOptions {
        self.backend = Some(backend.to_owned());
        self
    }

    /// `"default"`, `"reduce-overhead"` or `"max-autotune"` (cpu kernels built as C++ by the system
    /// compiler while compiling: the option `"cpp_kernels"` true); not together with [`Self::option`].
    pub fn mode(mut self, mode: &str) -> CompileOptions {
        self.mode = Some(mode.to_owned());
        self
    }

    /// One backend option: `"fusion"`, `"cse"`, `"dce"`, `"constant_folding"` (booleans, all true
    /// by default), `"cpp_kernels"` (`"auto"` by default: a cpu kernel is built as C++ by the system
    /// compiler in the background once it has run its loops for `"cpp_kernels_hot_ms"`, 20 by
    /// default, see [`wait_kernels`]; `true`: all of them while compiling; `false`: never).
    pub fn option(mut self, key: &str, value: impl ToString) -> CompileOptions {
        self.options.push((key.to_owned(), value.to_string()));
        self
    }

    /// Which sizes traces keep symbolic.
    pub fn dynamic(mut self, dynamic: Dynamic) -> CompileOptions {
        self.dynamic = dynamic;
        self
    }

    /// `true`: a graph break is a `GraphBreak` error instead of an eager fallback.
    pub fn fullgraph(mut self, fullgraph: bool) -> CompileOptions {
        self.fullgraph = fullgraph;
        self
    }

    /// Cache entries before calls that miss run eagerly (>= 1; under fullgraph they fail with
    /// `RecompileLimit`).
    pub fn recompile_limit(mut self, limit: i64) -> CompileOptions {
        self.recompile_limit = Some(limit);
        self
    }

    /// The name used in messages and metrics.
    pub fn name(mut self, name: &str) -> CompileOptions {
        self.name = Some(name.to_owned());
        self
    }

    /// `true`: calls run the closure eagerly.
    pub fn disable(mut self, disable: bool) -> CompileOptions {
        self.disable = disable;
        self
    }

    /// The C options object, every value checked by its setter.
    fn to_c(&self) -> Result<COptions> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::ct_compile_options_create(&mut out) })?;
        let o = COptions(out);
        let what = "CompileOptions";
        if let Some(b) = &self.backend {
            check(unsafe { sys::ct_compile_options_set_backend(o.0, c_string(what, b)?.as_ptr()) })?;
        }
        if let Some(m) = &self.mode {
            check(unsafe { sys::ct_compile_options_set_mode(o.0, c_string(what, m)?.as_ptr()) })?;
        }
        for (k, v) in &self.options {
            let (k, v) = (c_string(what, k)?, c_string(what, v)?);
            check(unsafe { sys::ct_compile_options_set_option(o.0, k.as_ptr(), v.as_ptr()) })?;
        }
        let dynamic = match self.dynamic {
            Dynamic::Off => sys::CT_DYNAMIC_OFF,
            Dynamic::On => sys::CT_DYNAMIC_ON,
            Dynamic::Automatic => sys::CT_DYNAMIC_AUTOMATIC,
        };
        check(unsafe { sys::ct_compile_options_set_dynamic(o.0, dynamic) })?;
        check(unsafe { sys::ct_compile_options_set_fullgraph(o.0, self.fullgraph as i32) })?;
        if let Some(limit) = self.recompile_limit {
            check(unsafe { sys::ct_compile_options_set_recompile_limit(o.0, limit) })?;
        }
        if let Some(n) = &self.name {
            check(unsafe { sys::ct_compile_options_set_name(o.0, c_string(what, n)?.as_ptr()) })?;
        }
        check(unsafe { sys::ct_compile_options_set_disable(o.0, self.disable as i32) })?;
        Ok(o)
    }
}

/// Owns a `ct_compile_options` for the length of [`compile`].
struct COptions(*mut sys::ct_compile_options);

impl Drop for COptions {
    fn drop(&mut self) {
        unsafe { sys::ct_compile_options_release(self.0) }
    }
}

/// Runs `f` for the C library: borrows the inputs, checks the output count, hands the outputs over.
///
/// # Safety
/// `inputs` holds `n_inputs` live handles and `outputs` room for `n_outputs`.
pub(crate) unsafe fn run_traced(
    what: &str,
    f: impl FnOnce(&[Tensor]) -> Result<Vec<Tensor>>,
    inputs: *const *const sys::ct_tensor,
    n_inputs: usize,
    outputs: *mut *mut sys::ct_tensor,
    n_outputs: usize,
) -> sys::ct_status {
    callback::guard(what, || {
        let handles = if n_inputs == 0 { &[][..] } else { std::slice::from_raw_parts(inputs, n_inputs) };
        let inputs = handles.iter().map(|&h| Tensor::retain_borrowed(h)).collect::<Result<Vec<_>>>()?;
        let results = f(&inputs)?;
        if results.len() != n_outputs {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "{what}: the closure returned {} tensor(s) where {n_outputs} were declared; return \
                     exactly {n_outputs} on every call, or declare the count it returns",
                    results.len()
                ),
            ));
        }
        for (i, t) in results.into_iter().enumerate() {
            *outputs.add(i) = t.into_raw();
        }
        Ok(())
    })
}

unsafe extern "C" fn compiled_trampoline<F>(
    user_data: *mut c_void,
    inputs: *const *const sys::ct_tensor,
    n_inputs: usize,
    outputs: *mut *mut sys::ct_tensor,
    n_outputs: usize,
) -> sys::ct_status
where
    F: Fn(&[Tensor]) -> Result<Vec<Tensor>> + Send + Sync + 'static,
{
    let f = callback::unbox::<F>(user_data);
    run_traced("compiled function", f, inputs, n_inputs, outputs, n_outputs)
}

/// A compiled function: one reference to a `ct_compiled`. `Clone` adds a reference to the same
/// function and cache; the closure is dropped with the last one. It may be called from several
/// threads at once.
pub struct Compiled {
    ptr: NonNull<sys::ct_compiled>,
    n_outputs: usize,
}

// SAFETY: the C ABI's contract: a compiled function may be called from several threads at once,
// and its closure is Send + Sync.
unsafe impl Send for Compiled {}
unsafe impl Sync for Compiled {}

impl Drop for Compiled {
    fn drop(&mut self) {
        // The last release drops the closure (callback::drop_boxed keeps a panic there from C).
        unsafe { sys::ct_compiled_release(self.ptr.as_ptr()) }
    }
}

impl Clone for Compiled {
    fn clone(&self) -> Compiled {
        let status = unsafe { sys::ct_compiled_retain(self.ptr.as_ptr()) };
        assert_eq!(status, sys::CT_OK, "ct_compiled_retain failed on a live compiled function");
        Compiled { ptr: self.ptr, n_outputs: self.n_outputs }
    }
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Compiled({} entries, {} outputs)", self.num_entries(), self.n_outputs)
    }
}

/// Blocks until the background builder has built (or failed to build) every C++ kernel asked of it
/// so far (`ct_compile_wait_kernels`); from then on those kernels run as C++, with the same bits.
/// Programs never need to wait; a benchmark of the steady state, or a test of it, does.
pub fn wait_kernels() {
    unsafe { sys::ct_compile_wait_kernels() }
}

/// Compiles `f`, a function of its input tensors returning exactly `n_outputs` tensors. Nothing is
/// traced until the first call. `InvalidArgument` error for a bad option (naming it), or a mode
/// given together with options.
pub fn compile<F>(f: F, n_outputs: usize, options: &CompileOptions) -> Result<Compiled>
where
    F: Fn(&[Tensor]) -> Result<Vec<Tensor>> + Send + Sync + 'static,
{
    let options = options.to_c()?;
    let mut out = ptr::null_mut();
    let user_data = callback::boxed(f);
    // On failure ct_compile runs destroy itself, so the box is never freed twice.
    check(enter(|| unsafe {
        sys::ct_compile(Some(compiled_trampoline::<F>), user_data, Some(callback::drop_boxed::<F>), options.0, &mut out)
    }))?;
    let ptr = NonNull::new(out).ok_or_else(|| Error::new(ErrorKind::Internal, "ct_compile returned NULL"))?;
    Ok(Compiled { ptr, n_outputs })
}

impl Compiled {
    /// The raw handle, borrowed for as long as `self` lives.
    pub fn as_ptr(&self) -> *mut sys::ct_compiled {
        self.ptr.as_ptr()
    }

    /// How many tensors a call returns (as given to [`compile`]).
    pub fn num_outputs(&self) -> usize {
        self.n_outputs
    }

    /// Runs the function on `inputs` through a cached graph, tracing on a miss. Errors: whatever
    /// the closure or an operator reports (kind and message); `GraphBreak` under fullgraph when
    /// the closure cannot be traced; `RecompileLimit` under fullgraph past the limit;
    /// `InvalidArgument` for an input with symbolic sizes or a closure returning another number of
    /// tensors. A panic in the closure resumes here.
    pub fn call<T: AsRef<Tensor>>(&self, inputs: &[T]) -> Result<Vec<Tensor>> {
        let handles = arg::handles(inputs);
        let mut outs = vec![ptr::null_mut(); self.n_outputs];
        check(enter(|| unsafe {
            sys::ct_compiled_call(self.as_ptr(), handles.as_ptr(), handles.len(), outs.as_mut_ptr(), outs.len())
        }))?;
        outs.into_iter().map(Tensor::adopt).collect()
    }

    /// [`Compiled::call`] of a function with one output, which it returns:
    /// `let y = f.call1(&[&x])?;`. `InvalidArgument` when the function has another number of
    /// outputs (use `call`).
    pub fn call1<T: AsRef<Tensor>>(&self, inputs: &[T]) -> Result<Tensor> {
        if self.n_outputs != 1 {
            let what = format!("call1: the compiled function returns {} tensors; use call", self.n_outputs);
            return Err(Error::new(ErrorKind::InvalidArgument, what));
        }
        Ok(self.call(inputs)?.remove(0))
    }

    /// The graph of cache entry `entry` (0 = the first compiled) as text, one node per line, or a
    /// line saying the entry runs eagerly and why. `Index` error when the entry does not exist.
    pub fn graph(&self, entry: usize) -> Result<String> {
        let mut s = ptr::null_mut();
        check(unsafe { sys::ct_compiled_graph(self.as_ptr(), entry, &mut s) })?;
        Ok(take_string(s))
    }

    /// How many cache entries (traced graphs, or eager fallbacks) there are.
    pub fn num_entries(&self) -> usize {
        let mut n = 0;
        unsafe { sys::ct_compiled_num_entries(self.as_ptr(), &mut n) };
        n
    }

    /// This function's counters as JSON: `{"calls", "compiles", "recompiles", "graph_breaks",
    /// "eager_calls", "guard_misses", "guards", "compile_latency_p50_us", "compile_latency_p95_us"}`.
    pub fn metrics_json(&self) -> Result<String> {
        let mut s = ptr::null_mut();
        check(unsafe { sys::ct_compiled_metrics_json(self.as_ptr(), &mut s) })?;
        Ok(take_string(s))
    }
}
