//! Autograd: marking leaves, running backward, gradients returned by [`grad`], grad modes as
//! scoped guards, and tensor hooks. See docs/autograd.md for the rules the library follows.

use std::ffi::c_void;
use std::marker::PhantomData;
use std::os::raw::c_int;
use std::ptr;

use ctorch_sys as sys;

use crate::callback::{boxed, drop_boxed, enter, guard, unbox};
use crate::error::{check, take_string, Error, ErrorKind, Result};
use crate::ops::arg::handles;
use crate::tensor::Tensor;

/// Options of [`Tensor::backward_with`], [`backward`] and [`grad`]. `GradFlags::default()` is
/// none of them.
///
/// ```
/// let flags = ctorch::GradFlags::default().create_graph(true);
/// assert!(flags.create_graph && !flags.allow_unused);
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct GradFlags {
    /// Keep the tensors saved for backward, so backward can run through the graph again.
    pub retain_graph: bool,
    /// Record the backward computation: the gradients require grad themselves, for second and
    /// higher derivatives (implies `retain_graph`).
    pub create_graph: bool,
    /// [`grad`] only: an input the outputs do not depend on gets `None` instead of an error.
    pub allow_unused: bool,
}

impl GradFlags {
    /// These flags with `retain_graph` set to `on`.
    pub fn retain_graph(self, on: bool) -> GradFlags {
        GradFlags { retain_graph: on, ..self }
    }

    /// These flags with `create_graph` set to `on`.
    pub fn create_graph(self, on: bool) -> GradFlags {
        GradFlags { create_graph: on, ..self }
    }

    /// These flags with `allow_unused` set to `on`.
    pub fn allow_unused(self, on: bool) -> GradFlags {
        GradFlags { allow_unused: on, ..self }
    }

    fn to_c(self) -> c_int {
        (if self.retain_graph { sys::CT_GRAD_RETAIN_GRAPH } else { 0 })
            | (if self.create_graph { sys::CT_GRAD_CREATE_GRAPH } else { 0 })
            | (if self.allow_unused { sys::CT_GRAD_ALLOW_UNUSED } else { 0 })
    }
}

/// Names a hook registered with [`Tensor::register_hook`], for [`Tensor::remove_hook`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct HookId(i64);

impl Tensor {
    /// Marks this leaf as one whose gradient backward computes (or unmarks it), and returns it
    /// (like PyTorch's `requires_grad_`). `DType` error for a tensor that is not floating;
    /// `InvalidArgument` for clearing it on a non-leaf (use [`Tensor::detach`]) or for an inference
    /// tensor outside inference mode.
    pub fn set_requires_grad(&self, requires_grad: bool) -> Result<Tensor> {
        check(unsafe { sys::ct_tensor_set_requires_grad(self.as_ptr(), requires_grad as c_int) })?;
        Ok(self.clone())
    }

    /// Whether backward computes a gradient for this tensor (a marked leaf, or a result computed
    /// from one while grad mode was enabled).
    pub fn requires_grad(&self) -> bool {
        let mut out = 0;
        // SAFETY: self is live; fails only for NULL arguments.
        unsafe { sys::ct_tensor_requires_grad(self.as_ptr(), &mut out) };
        out != 0
    }

    /// Whether no recorded operator produced this tensor (made by the user, or computed while
    /// nothing required grad).
    pub fn is_leaf(&self) -> bool {
        let mut out = 0;
        unsafe { sys::ct_tensor_is_leaf(self.as_ptr(), &mut out) };
        out != 0
    }

    /// Whether [`Tensor::retain_grad`] was called on this non-leaf tensor.
    pub fn retains_grad(&self) -> bool {
        let mut out = 0;
        // SAFETY: self is live; fails only for NULL arguments.
        unsafe { sys::ct_tensor_retains_grad(self.as_ptr(), &mut out) };
        out != 0
    }

    /// Which result of the operator that made this tensor it is (0 for a leaf).
    pub fn output_nr(&self) -> i64 {
        let mut out = 0;
        // SAFETY: self is live; fails only for NULL arguments.
        unsafe { sys::ct_tensor_output_nr(self.as_ptr(), &mut out) };
        out
    }

    /// The gradient backward accumulated into this tensor, or `None` when there is none yet.
    /// Non-leaf tensors keep one only after [`Tensor::retain_grad`].
    pub fn grad(&self) -> Option<Tensor> {
        let mut out = ptr::null_mut();
        unsafe { sys::ct_tensor_grad(self.as_ptr(), &mut out) };
        // SAFETY: a non-NULL out is a new reference.
        unsafe { Tensor::from_raw(out) }
    }

    /// Replaces this tensor's gradient; `None` clears it (what zeroing gradients between steps
    /// does). `Shape` error when the gradient's sizes, dtype or device differ from this tensor's.
    pub fn set_grad(&self, grad: Option<&Tensor>) -> Result<()> {
        let g = grad.map_or(ptr::null(), |g| g.as_ptr() as *const _);
        check(unsafe { sys::ct_tensor_set_grad(self.as_ptr(), g) })
    }

    /// Keeps this non-leaf tensor's gradient in [`Tensor::grad`] after backward (a no-op on
    /// leaves). `InvalidArgument` error when the tensor does not require grad.
    pub fn retain_grad(&self) -> Result<()> {
        check(unsafe { sys::ct_tensor_retain_grad(self.as_ptr()) })
    }

    /// The name of the node that made this tensor (`"MulBackward"`, a custom function's name +
    /// `"Backward"`), or `None` for a leaf.
    pub fn grad_fn_name(&self) -> Option<String> {
        let mut s = ptr::null_mut();
        unsafe { sys::ct_tensor_grad_fn_name(self.as_ptr(), &mut s) };
        (!s.is_null()).then(|| take_string(s))
    }

    /// A tensor sharing this one's elements that does not require grad and has no history;
    /// in-place changes to either are seen by both. Errors only when the library cannot allocate
    /// the new handle.
    pub fn detach(&self) -> Result<Tensor> {
        Tensor::make(|out| unsafe { sys::ct_tensor_detach(self.as_ptr(), out) })
    }

    /// Whether this tensor was made in inference mode (see [`inference_mode`]).
    pub fn is_inference(&self) -> bool {
        let mut out = 0;
        unsafe { sys::ct_tensor_is_inference(self.as_ptr(), &mut out) };
        out != 0
    }

    /// Adds the gradient of this one-element tensor with respect to every leaf it depends on into
    /// those leaves' gradients, freeing the graph as it goes. Errors as [`Tensor::backward_with`].
    pub fn backward(&self) -> Result<()> {
        self.backward_with(None, GradFlags::default())
    }

    /// Backward from this tensor with `grad` as d(loss)/d(self) (`None` means 1, for one element).
    ///
    /// Errors: `InvalidArgument` when this tensor does not require grad, for a second backward
    /// through a freed graph (set `retain_graph`), or when a tensor saved for backward was changed
    /// in place; `Shape` for a missing or mis-sized `grad`; whatever a hook or custom function
    /// returned, with its kind and message. A panic in one of those closures resumes here.
    pub fn backward_with(&self, grad: Option<&Tensor>, flags: GradFlags) -> Result<()> {
        let g = grad.map_or(ptr::null(), |g| g.as_ptr() as *const _);
        check(enter(|| unsafe { sys::ct_tensor_backward(self.as_ptr(), g, flags.to_c()) }))
    }

    /// Runs `hook` on this tensor's gradient during every later backward, before the gradient is
    /// used; a hook returning `Some(t)` replaces the gradient with `t` (of the same sizes). An
    /// `Err` from the hook stops backward, which returns it nested under `tensor hook`; a panic
    /// resumes in the call that ran backward. The hook runs on the thread running backward and is
    /// dropped when removed or when the tensor (or the graph holding it) goes.
    /// `InvalidArgument` error when this tensor does not require grad.
    pub fn register_hook<F>(&self, hook: F) -> Result<HookId>
    where
        F: Fn(&Tensor) -> Result<Option<Tensor>> + Send + Sync + 'static,
    {
        let mut id = 0;
        // On failure the library calls drop_boxed itself.
        check(unsafe {
            sys::ct_tensor_register_hook(self.as_ptr(), Some(hook_trampoline::<F>), boxed(hook), Some(drop_boxed::<F>), &mut id)
        })?;
        Ok(HookId(id))
    }

    /// Runs `hook` on this leaf after each later backward has accumulated its gradient into
    /// [`Tensor::grad`] (torch's `register_post_accumulate_grad_hook`): the hook gets the leaf and
    /// may read or replace its grad. Data-parallel training starts reducing a gradient here while
    /// backward goes on. An `Err` stops backward, which returns it; the hook is removed with
    /// [`Tensor::remove_hook`]. `InvalidArgument` error when this tensor is not a leaf that
    /// requires grad.
    pub fn register_post_accumulate_grad_hook<F>(&self, hook: F) -> Result<HookId>
    where
        F: Fn(&Tensor) -> Result<()> + Send + Sync + 'static,
    {
        let mut id = 0;
        // On failure the library calls drop_boxed itself.
        check(unsafe {
            sys::ct_tensor_register_post_accumulate_grad_hook(
                self.as_ptr(),
                Some(post_accumulate_trampoline::<F>),
                boxed(hook),
                Some(drop_boxed::<F>),
                &mut id,
            )
        })?;
        Ok(HookId(id))
    }

    /// Removes a hook [`Tensor::register_hook`] put on this tensor, dropping its closure.
    /// `InvalidArgument` error for an id not registered on this tensor.
    pub fn remove_hook(&self, id: HookId) -> Result<()> {
        check(unsafe { sys::ct_tensor_remove_hook(self.as_ptr(), id.0) })
    }
}

unsafe extern "C" fn hook_trampoline<F>(user_data: *mut c_void, grad: *const sys::ct_tensor, replacement: *mut *mut sys::ct_tensor) -> sys::ct_status
where
    F: Fn(&Tensor) -> Result<Option<Tensor>> + Send + Sync + 'static,
{
    guard("the hook closure", || {
        // SAFETY: user_data was boxed as F by register_hook and lives while the hook does.
        let hook = unsafe { unbox::<F>(user_data) };
        if let Some(t) = hook(&Tensor::retain_borrowed(grad)?)? {
            // SAFETY: the library takes over the reference written here.
            unsafe { *replacement = t.into_raw() };
        }
        Ok(())
    })
}

unsafe extern "C" fn post_accumulate_trampoline<F>(user_data: *mut c_void, t: *mut sys::ct_tensor) -> sys::ct_status
where
    F: Fn(&Tensor) -> Result<()> + Send + Sync + 'static,
{
    guard("the post-accumulate grad hook closure", || {
        // SAFETY: user_data was boxed as F by register_post_accumulate_grad_hook and lives while the hook does.
        let hook = unsafe { unbox::<F>(user_data) };
        hook(&Tensor::retain_borrowed(t)?)
    })
}

/// The handles of optional gradients, checked to be one per output.
fn grad_handles(what: &str, grads: Option<&[&Tensor]>, n_outputs: usize) -> Result<Vec<*const sys::ct_tensor>> {
    match grads {
        None => Ok(Vec::new()),
        Some(gs) if gs.len() == n_outputs => Ok(handles(gs)),
        Some(gs) => Err(Error::new(
            ErrorKind::InvalidArgument,
            format!("{what}: {} gradients for {n_outputs} outputs: give one per output, or None when every output has one element", gs.len()),
        )),
    }
}

fn ptr_or_null(v: &[*const sys::ct_tensor]) -> *const *const sys::ct_tensor {
    if v.is_empty() { ptr::null() } else { v.as_ptr() }
}

/// Backward from several outputs at once, their gradients adding up in the leaves. `grads` is
/// `None` when every output has one element, or one gradient per output.
///
/// Errors as [`Tensor::backward_with`], and `InvalidArgument` when `grads` does not hold one
/// entry per output.
pub fn backward<T: AsRef<Tensor>>(outputs: &[T], grads: Option<&[&Tensor]>, flags: GradFlags) -> Result<()> {
    let outs = handles(outputs);
    let gs = grad_handles("ctorch::backward", grads, outs.len())?;
    check(enter(|| unsafe { sys::ct_autograd_backward(outs.as_ptr(), ptr_or_null(&gs), outs.len(), flags.to_c()) }))
}

/// The gradients of `outputs` with respect to `inputs`, returned instead of accumulated into any
/// tensor's gradient (`torch.autograd.grad`). `grad_outputs` as in [`backward`]. An entry is
/// `None` only for an input the outputs do not depend on, under `allow_unused`; under
/// `create_graph` the gradients require grad, so `grad` of them gives second derivatives.
///
/// Errors as [`Tensor::backward_with`], and `InvalidArgument` for an input that does not require
/// grad, an unused input without `allow_unused`, or `grad_outputs` not one per output.
pub fn grad<T: AsRef<Tensor>, U: AsRef<Tensor>>(
    outputs: &[T],
    inputs: &[U],
    grad_outputs: Option<&[&Tensor]>,
    flags: GradFlags,
) -> Result<Vec<Option<Tensor>>> {
    let outs = handles(outputs);
    let ins = handles(inputs);
    let gs = grad_handles("ctorch::grad", grad_outputs, outs.len())?;
    let mut grads = vec![ptr::null_mut(); ins.len()];
    check(enter(|| unsafe {
        sys::ct_autograd_grad(outs.as_ptr(), ptr_or_null(&gs), outs.len(), ins.as_ptr(), ins.len(), flags.to_c(), grads.as_mut_ptr())
    }))?;
    // SAFETY: on CT_OK each non-NULL slot is a new reference.
    Ok(grads.into_iter().map(|p| unsafe { Tensor::from_raw(p) }).collect())
}

/// A thread's grad mode: whether operators record what backward needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GradMode {
    /// Operators record nothing (evaluation, and updating parameters in place).
    NoGrad,
    /// Operators on tensors that require grad are recorded: the default.
    Enabled,
    /// Like `NoGrad`, and every result is an inference tensor, which can never be saved for
    /// backward later (cheaper to make).
    Inference,
}

impl GradMode {
    fn to_c(self) -> sys::ct_grad_mode {
        match self {
            GradMode::NoGrad => sys::CT_GRAD_MODE_NO_GRAD,
            GradMode::Enabled => sys::CT_GRAD_MODE_ENABLED,
            GradMode::Inference => sys::CT_GRAD_MODE_INFERENCE,
        }
    }

    /// This thread's grad mode.
    pub fn current() -> GradMode {
        match unsafe { sys::ct_grad_mode_get() } {
            sys::CT_GRAD_MODE_NO_GRAD => GradMode::NoGrad,
            sys::CT_GRAD_MODE_INFERENCE => GradMode::Inference,
            _ => GradMode::Enabled,
        }
    }
}

/// Restores the calling thread's previous grad mode when dropped. Made by [`no_grad`],
/// [`enable_grad`], [`inference_mode`] and [`set_grad_mode`]; grad modes are per thread, so the
/// guard cannot move to another thread.
#[must_use = "the grad mode is restored as soon as the guard is dropped: bind it with `let _guard = ...`"]
pub struct GradModeGuard {
    previous: sys::ct_grad_mode,
    _this_thread: PhantomData<*const ()>,
}

impl Drop for GradModeGuard {
    fn drop(&mut self) {
        // SAFETY: previous came from the library, so it is a valid mode and this cannot fail.
        let _ = unsafe { sys::ct_grad_mode_set(self.previous, ptr::null_mut()) };
    }
}

/// Sets this thread's grad mode until the returned guard is dropped.
pub fn set_grad_mode(mode: GradMode) -> GradModeGuard {
    let mut previous = sys::CT_GRAD_MODE_ENABLED;
    // SAFETY: every GradMode is a valid ct_grad_mode, so this cannot fail.
    let _ = unsafe { sys::ct_grad_mode_set(mode.to_c(), &mut previous) };
    GradModeGuard { previous, _this_thread: PhantomData }
}

/// Stops recording on this thread until the guard is dropped (`torch.no_grad()`).
///
/// ```
/// let w = ctorch::Tensor::from_slice(&[1.0f32]).set_requires_grad(true).unwrap();
/// {
///     let _guard = ctorch::no_grad();
///     assert!(!w.mul_scalar(2.0).unwrap().requires_grad());
/// }
/// assert!(w.mul_scalar(2.0).unwrap().requires_grad());
/// ```
pub fn no_grad() -> GradModeGuard {
    set_grad_mode(GradMode::NoGrad)
}

/// Records again on this thread until the guard is dropped (`torch.enable_grad()`).
pub fn enable_grad() -> GradModeGuard {
    set_grad_mode(GradMode::Enabled)
}

/// Inference mode on this thread until the guard is dropped (`torch.inference_mode()`).
pub fn inference_mode() -> GradModeGuard {
    set_grad_mode(GradMode::Inference)
}

/// Whether operators record on this thread (grad mode is [`GradMode::Enabled`]).
pub fn is_grad_enabled() -> bool {
    GradMode::current() == GradMode::Enabled
}

/// Whether this thread is in inference mode.
pub fn is_inference_mode_enabled() -> bool {
    GradMode::current() == GradMode::Inference
}
