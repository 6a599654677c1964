//! Closures the library calls back: errors go back through C as statuses, panics never unwind
//! into C.
//!
//! A trampoline runs its closure under `catch_unwind` ([`guard`]). An `Err` is reported with
//! `ct_error_set`, so the caller sees its kind and message nested under the operator. A panic is
//! reported as an `Internal` error and, when this thread entered the library through [`enter`],
//! its payload is kept and resumed once that call returns: the panic reaches the Rust caller as if
//! no C frame stood between them. A panic on a thread the library started (none do today) stays an
//! error.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use ctorch_sys as sys;

use crate::error::{Error, ErrorKind, Result};

thread_local! {
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    static PANIC: RefCell<Option<Box<dyn Any + Send>>> = const { RefCell::new(None) };
}

/// Runs a C call that may call closures back, then resumes a panic one of them raised.
#[inline]
pub(crate) fn enter<T>(call: impl FnOnce() -> T) -> T {
    DEPTH.with(|d| d.set(d.get() + 1));
    let result = call();
    DEPTH.with(|d| d.set(d.get() - 1));
    if let Some(payload) = PANIC.with(|p| p.borrow_mut().take()) {
        resume_unwind(payload);
    }
    result
}

fn panic_text(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(a non-string payload)")
}

/// Runs a closure called from C; returns the status to give back.
pub(crate) fn guard(what: &str, f: impl FnOnce() -> Result<()>) -> sys::ct_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => sys::CT_OK,
        Ok(Err(e)) => e.report(),
        Err(payload) => {
            let error = Error::new(ErrorKind::Internal, format!("{what} panicked: {}", panic_text(&*payload)));
            if DEPTH.with(Cell::get) > 0 {
                PANIC.with(|p| {
                    p.borrow_mut().get_or_insert(payload);
                });
            }
            error.report()
        }
    }
}

/// Boxes a closure as the `user_data` of a C callback; [`drop_boxed`] is its destroy function.
pub(crate) fn boxed<T>(value: T) -> *mut c_void {
    Box::into_raw(Box::new(value)).cast()
}

/// The destroy function of [`boxed`] user data.
pub(crate) unsafe extern "C" fn drop_boxed<T>(user_data: *mut c_void) {
    // A panicking destructor must not unwind into C either.
    let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(user_data.cast::<T>()))));
}

/// The closure behind boxed user data.
///
/// # Safety
/// `user_data` must come from [`boxed`] with the same `T` and still be alive.
pub(crate) unsafe fn unbox<'a, T>(user_data: *mut c_void) -> &'a T {
    &*user_data.cast::<T>()
}
