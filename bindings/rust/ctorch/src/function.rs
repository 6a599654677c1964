//! Custom autograd functions from closures (`torch.autograd.Function`): a forward that computes
//! outputs and saves tensors, and a backward that turns output gradients into input gradients.

use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

use ctorch_sys as sys;

use crate::callback::{boxed, drop_boxed, enter, guard, unbox};
use crate::error::{c_string, check, Error, ErrorKind, Result};
use crate::ops::arg::handles;
use crate::tensor::Tensor;

/// What a function's forward and backward share: the tensors forward saved. It exists only for
/// the duration of one callback.
pub struct FunctionCtx {
    // Raw pointer: also keeps the ctx on the callback's thread (!Send, !Sync).
    ptr: *mut sys::ct_autograd_ctx,
}

impl FunctionCtx {
    /// In forward: keeps `t` for backward (an input, an output or any other tensor).
    /// `InvalidArgument` error outside forward.
    pub fn save_for_backward(&mut self, t: &Tensor) -> Result<()> {
        check(unsafe { sys::ct_autograd_ctx_save(self.ptr, t.as_ptr()) })
    }

    /// In backward: the tensors forward saved, in order. `InvalidArgument` error outside
    /// backward, when the graph was already freed, or when a saved tensor was changed in place
    /// since forward.
    pub fn saved_tensors(&self) -> Result<Vec<Tensor>> {
        let mut n = 0;
        check(unsafe { sys::ct_autograd_ctx_saved_count(self.ptr, &mut n) })?;
        (0..n).map(|i| Tensor::make(|out| unsafe { sys::ct_autograd_ctx_saved(self.ptr, i, out) })).collect()
    }
}

type ForwardFn = dyn Fn(&mut FunctionCtx, &[Tensor]) -> Result<Vec<Tensor>> + Send + Sync;
type BackwardFn = dyn Fn(&FunctionCtx, &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync;

struct Callbacks {
    forward: Box<ForwardFn>,
    backward: Box<BackwardFn>,
}

/// A differentiable function given by closures. Each [`Function::apply`] records a node named
/// `name + "Backward"` when an input requires grad and grad mode is on; the closures live as
/// long as the `Function` or any node recorded from it, and are dropped with the last of them.
///
/// ```
/// use ctorch::{Function, Tensor};
/// let square = Function::new(
///     "Square",
///     |ctx, x| {
///         ctx.save_for_backward(&x[0])?;
///         Ok(vec![x[0].mul(&x[0])?])
///     },
///     |ctx, g| {
///         let x = &ctx.saved_tensors()?[0];
///         Ok(vec![Some(g[0].mul(x)?.mul_scalar(2.0)?)])
///     },
/// );
/// let x = Tensor::from_slice(&[3.0f32]).set_requires_grad(true).unwrap();
/// square.apply(&[&x], 1).unwrap()[0].sum().unwrap().backward().unwrap();
/// assert_eq!(x.grad().unwrap().to_vec::<f32>().unwrap(), vec![6.0]);
/// ```
#[derive(Clone)]
pub struct Function {
    name: String,
    callbacks: Arc<Callbacks>,
}

impl Function {
    /// A function named `name` (the node is `name + "Backward"`).
    ///
    /// `forward` gets the inputs (run with grad mode off) and returns the outputs; it may save
    /// tensors with [`FunctionCtx::save_for_backward`]. `backward` gets one gradient per output
    /// (zeros for an output no gradient reached) and returns one per input, `None` for an input
    /// that gets none; a gradient may have the broadcast sizes of its input. Under `create_graph`
    /// the operators backward calls are recorded, giving second derivatives. Backward may run
    /// later and on another thread, hence `Send + Sync + 'static`.
    pub fn new<F, B>(name: impl Into<String>, forward: F, backward: B) -> Function
    where
        F: Fn(&mut FunctionCtx, &[Tensor]) -> Result<Vec<Tensor>> + Send + Sync + 'static,
        B: Fn(&FunctionCtx, &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
    {
        Function { name: name.into(), callbacks: Arc::new(Callbacks { forward: Box::new(forward), backward: Box::new(backward) }) }
    }

    /// The name given to [`Function::new`].
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs forward on `inputs`, which must return `n_outputs` tensors, and records the node.
    ///
    /// Errors: what forward returned, with its kind and its message nested under the name
    /// (`"Square (forward): ..."`); `InvalidArgument` when forward returns another number of
    /// tensors than `n_outputs`, or for a name holding a NUL byte. A panic in forward resumes here.
    pub fn apply<T: AsRef<Tensor>>(&self, inputs: &[T], n_outputs: usize) -> Result<Vec<Tensor>> {
        let name = c_string("Function::apply", &self.name)?;
        let ins = handles(inputs);
        let mut outs = vec![ptr::null_mut(); n_outputs];
        let user_data = boxed(Arc::clone(&self.callbacks));
        // The library runs drop_boxed on user_data when the node goes, or before returning.
        check(enter(|| unsafe {
            sys::ct_autograd_function_apply(
                name.as_ptr(),
                Some(forward_trampoline),
                Some(backward_trampoline),
                user_data,
                Some(drop_boxed::<Arc<Callbacks>>),
                ins.as_ptr(),
                ins.len(),
                outs.as_mut_ptr(),
                n_outputs,
            )
        }))?;
        outs.into_iter().map(Tensor::adopt).collect()
    }
}

/// Owned references to `n` tensors the library lends a callback.
///
/// # Safety
/// `ptrs` must hold `n` live handles (or be anything when `n` is 0).
unsafe fn borrowed(ptrs: *const *const sys::ct_tensor, n: usize) -> Result<Vec<Tensor>> {
    (0..n).map(|i| Tensor::retain_borrowed(unsafe { *ptrs.add(i) })).collect()
}

fn count_mismatch(what: &str, got: usize, expected: usize, unit: &str) -> Error {
    Error::new(ErrorKind::InvalidArgument, format!("{what} returned {got} tensors for {expected} {unit}: return exactly one per {}", unit.trim_end_matches('s')))
}

unsafe extern "C" fn forward_trampoline(
    user_data: *mut c_void,
    ctx: *mut sys::ct_autograd_ctx,
    inputs: *const *const sys::ct_tensor,
    n_inputs: usize,
    outputs: *mut *mut sys::ct_tensor,
    n_outputs: usize,
) -> sys::ct_status {
    guard("the forward closure", || {
        // SAFETY: user_data is the Arc apply boxed, alive for the call.
        let callbacks = unsafe { unbox::<Arc<Callbacks>>(user_data) };
        let inputs = unsafe { borrowed(inputs, n_inputs) }?;
        let results = (callbacks.forward)(&mut FunctionCtx { ptr: ctx }, &inputs)?;
        if results.len() != n_outputs {
            return Err(count_mismatch("forward", results.len(), n_outputs, "outputs"));
        }
        for (i, t) in results.into_iter().enumerate() {
            // SAFETY: outputs holds n_outputs slots; the library takes over each reference.
            unsafe { *outputs.add(i) = t.into_raw() };
        }
        Ok(())
    })
}

unsafe extern "C" fn backward_trampoline(
    user_data: *mut c_void,
    ctx: *mut sys::ct_autograd_ctx,
    grad_outputs: *const *const sys::ct_tensor,
    n_outputs: usize,
    grad_inputs: *mut *mut sys::ct_tensor,
    n_inputs: usize,
) -> sys::ct_status {
    guard("the backward closure", || {
        // SAFETY: user_data is the Arc apply boxed, alive as long as the node.
        let callbacks = unsafe { unbox::<Arc<Callbacks>>(user_data) };
        let grads = unsafe { borrowed(grad_outputs, n_outputs) }?;
        let results = (callbacks.backward)(&FunctionCtx { ptr: ctx }, &grads)?;
        if results.len() != n_inputs {
            return Err(count_mismatch("backward", results.len(), n_inputs, "inputs"));
        }
        for (i, t) in results.into_iter().enumerate() {
            if let Some(t) = t {
                // SAFETY: grad_inputs holds n_inputs slots; the library takes over each reference.
                unsafe { *grad_inputs.add(i) = t.into_raw() };
            }
        }
        Ok(())
    })
}
