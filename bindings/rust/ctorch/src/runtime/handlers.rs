//! Process-wide handlers: where the library's log messages go, and who frees memory when an
//! allocation fails.

use std::ffi::{c_void, CStr};
use std::os::raw::c_char;
use std::ptr;
use std::sync::{Arc, RwLock};

use ctorch_sys as sys;

use crate::callback;
use crate::device::DeviceType;
use crate::error::{check, Result};

// ---- logging ----

/// A log message's level (`ct_log_level`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detail for debugging ctorch itself.
    Debug,
    /// Plugins loaded, profiler summaries.
    Info,
    /// Graph breaks, nondeterministic kernels under warn-only determinism (the default threshold).
    Warning,
    /// Failures the library could not report through a status.
    Error,
}

impl LogLevel {
    fn to_c(self) -> sys::ct_log_level {
        match self {
            LogLevel::Debug => sys::CT_LOG_DEBUG,
            LogLevel::Info => sys::CT_LOG_INFO,
            LogLevel::Warning => sys::CT_LOG_WARNING,
            LogLevel::Error => sys::CT_LOG_ERROR,
        }
    }

    fn from_c(level: sys::ct_log_level) -> LogLevel {
        // The values are fixed forever; a level above the last is at least an error.
        match level {
            sys::CT_LOG_DEBUG => LogLevel::Debug,
            sys::CT_LOG_INFO => LogLevel::Info,
            sys::CT_LOG_WARNING => LogLevel::Warning,
            _ => LogLevel::Error,
        }
    }
}

/// Sets the lowest level delivered to the log handler (or to stderr), process-wide; the default
/// is [`LogLevel::Warning`]. Never fails in practice; returns the library's status.
pub fn set_log_level(level: LogLevel) -> Result<()> {
    check(unsafe { sys::ct_set_log_level(level.to_c()) })
}

/// The lowest level delivered.
pub fn log_level() -> LogLevel {
    LogLevel::from_c(unsafe { sys::ct_get_log_level() })
}

type LogFn = Box<dyn Fn(LogLevel, &str) + Send + Sync>;

unsafe extern "C" fn log_trampoline(user_data: *mut c_void, level: sys::ct_log_level, message: *const c_char) {
    // SAFETY: user_data is the boxed handler, alive while the library may call it.
    let handler = unsafe { callback::unbox::<LogFn>(user_data) };
    let text = if message.is_null() { "".into() } else { unsafe { CStr::from_ptr(message) }.to_string_lossy() };
    // A log callback returns nothing, so there is no status to give back: a panic is kept and
    // resumed when the library call that logged returns to Rust (or dropped when that call did not
    // enter through the crate).
    let _ = callback::guard("the log handler", || {
        handler(LogLevel::from_c(level), &text);
        Ok(())
    });
}

/// Routes the library's messages at or above [`log_level`] to `handler` (instead of stderr),
/// replacing any previous handler. It is called on the thread that logs, possibly from several
/// threads at once, and may call ctorch. A panic inside it is resumed on the Rust caller of the
/// call that logged. Never fails in practice; returns the library's status.
pub fn set_log_handler(handler: impl Fn(LogLevel, &str) + Send + Sync + 'static) -> Result<()> {
    let boxed = callback::boxed::<LogFn>(Box::new(handler));
    // The library destroys the previous handler once no call to it is in flight, and this one the
    // same way when it is replaced, so the box lives exactly as long as calls to it can happen.
    let status = unsafe { sys::ct_set_log_handler(Some(log_trampoline), boxed, Some(callback::drop_boxed::<LogFn>)) };
    if status != sys::CT_OK {
        // SAFETY: the library did not take the box.
        unsafe { callback::drop_boxed::<LogFn>(boxed) };
    }
    check(status)
}

/// Removes the log handler: messages go to stderr again as `[ctorch warning] ...`. Never fails in
/// practice; returns the library's status.
pub fn clear_log_handler() -> Result<()> {
    check(unsafe { sys::ct_set_log_handler(None, ptr::null_mut(), None) })
}

// ---- memory pressure ----

type PressureFn = dyn Fn(DeviceType, usize) -> bool + Send + Sync;

// The library calls the memory-pressure handler without holding a reference to it and destroys the
// old one as soon as it is replaced, so a handler replaced while an allocation runs it would be
// freed under that call. The closure therefore lives here, behind one trampoline that takes no
// user data: each call clones the Arc, so a replaced closure lives until its last call returns.
static PRESSURE_HANDLER: RwLock<Option<Arc<PressureFn>>> = RwLock::new(None);

fn current_pressure_handler() -> Option<Arc<PressureFn>> {
    PRESSURE_HANDLER.read().unwrap_or_else(|e| e.into_inner()).clone()
}

fn replace_pressure_handler(handler: Option<Arc<PressureFn>>) -> Option<Arc<PressureFn>> {
    std::mem::replace(&mut *PRESSURE_HANDLER.write().unwrap_or_else(|e| e.into_inner()), handler)
}

unsafe extern "C" fn pressure_trampoline(_user_data: *mut c_void, device_type: i32, nbytes: usize) -> i32 {
    let Some(handler) = current_pressure_handler() else { return 0 };
    let mut freed = false;
    // An error (an unknown device type) or a panic counts as giving up: the allocation then fails
    // with OutOfMemory, and a panic is resumed on the Rust caller of the call that allocated.
    let status = callback::guard("the memory pressure handler", || {
        freed = handler(DeviceType::from_c(device_type)?, nbytes);
        Ok(())
    });
    (status == sys::CT_OK && freed) as i32
}

/// Installs the process-wide memory-pressure handler, replacing any previous one. When an
/// allocation fails even after ctorch emptied its own cache, the handler gets the device type and
/// the bytes wanted; returning true (after freeing memory) retries the allocation, up to 3 times,
/// and false gives up (the operator fails with `OutOfMemory`). It runs on the allocating thread,
/// possibly on several at once, and must not call ctorch functions that allocate. A panic inside
/// it counts as giving up and is resumed on the Rust caller of the call that allocated.
/// Never fails in practice; returns the library's status.
pub fn set_memory_pressure_handler(handler: impl Fn(DeviceType, usize) -> bool + Send + Sync + 'static) -> Result<()> {
    drop(replace_pressure_handler(Some(Arc::new(handler))));
    check(unsafe { sys::ct_set_memory_pressure_handler(Some(pressure_trampoline), ptr::null_mut(), None) })
}

/// Removes the memory-pressure handler: failed allocations then fail at once. Never fails in
/// practice; returns the library's status.
pub fn clear_memory_pressure_handler() -> Result<()> {
    let status = check(unsafe { sys::ct_set_memory_pressure_handler(None, ptr::null_mut(), None) });
    drop(replace_pressure_handler(None));
    status
}
