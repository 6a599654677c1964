//! The operator profiler (`torch.profiler`): a span for every operator call on every thread,
//! returned as a Chrome trace (open it in Perfetto or chrome://tracing). One profiler runs at a
//! time per process.
//!
//! ```
//! # fn main() -> ctorch::Result<()> {
//! let x = ctorch::Tensor::ones(&[2, 3])?;
//! let profiler = ctorch::profiler::Profiler::start()?;
//! let _y = x.relu()?.sum()?;
//! let trace = profiler.stop()?;
//! assert!(trace.contains("\"name\":\"relu\""));
//! # Ok(())
//! # }
//! ```

use std::ptr;

use ctorch_sys as sys;

use crate::callback::enter;
use crate::error::{c_string, check, take_string, Error, ErrorKind, Result};

/// The running profiler. [`Profiler::stop`] or [`Profiler::stop_to_file`] end it with its trace;
/// dropping it while it still runs stops it and discards the spans.
#[must_use = "the profiler stops when this guard is dropped"]
#[derive(Debug)]
pub struct Profiler {
    running: bool,
}

impl Profiler {
    /// Starts recording every operator call: its full name (`"add.Tensor"`), start, duration,
    /// thread, input shapes and dtypes, and device. `InvalidArgument` error when a profiler is
    /// already running in this process.
    pub fn start() -> Result<Profiler> {
        check(unsafe { sys::ct_profiler_start() })?;
        Ok(Profiler { running: true })
    }

    /// Stops the profiler and returns its Chrome trace:
    /// `{"traceEvents":[{"name":"add.Tensor","ph":"X","ts":..,"dur":..,"args":{..}}, ...],
    /// "displayTimeUnit":"ns"}`, events sorted by start. `OutOfMemory` error when the trace could
    /// not be allocated (the spans are then lost).
    pub fn stop(mut self) -> Result<String> {
        self.running = false;
        let mut s = ptr::null_mut();
        // Stopping logs a summary, so a log handler may run.
        check(enter(|| unsafe { sys::ct_profiler_stop_to_string(&mut s) }))?;
        Ok(take_string(s))
    }

    /// Stops the profiler and writes its Chrome trace to `path` (through a temporary file renamed
    /// over `path`, so it is never half-written). `Io` error naming the path and the reason: when
    /// the file could not even be created the profiler keeps running and this may be called again
    /// with another path; when writing failed later the spans are lost. `InvalidArgument` error
    /// for an empty path, or when this profiler has stopped already.
    pub fn stop_to_file(&mut self, path: impl AsRef<std::path::Path>) -> Result<()> {
        let path = path.as_ref();
        if !self.running {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("Profiler::stop_to_file({}): this profiler has stopped already; start a new one", path.display()),
            ));
        }
        let text = path.to_str().ok_or_else(|| {
            Error::new(ErrorKind::InvalidArgument, format!("Profiler::stop_to_file: the path {} is not UTF-8", path.display()))
        })?;
        let cpath = c_string("Profiler::stop_to_file", text)?;
        let status = enter(|| unsafe { sys::ct_profiler_stop_to_file(cpath.as_ptr()) });
        self.running = is_running();
        check(status)
    }
}

impl Drop for Profiler {
    fn drop(&mut self) {
        if self.running {
            let mut s = ptr::null_mut();
            // The spans are unwanted; a failure leaves nothing to free.
            if unsafe { sys::ct_profiler_stop_to_string(&mut s) } == sys::CT_OK {
                take_string(s);
            }
        }
    }
}

/// Whether a profiler is recording in this process.
pub fn is_running() -> bool {
    unsafe { sys::ct_profiler_is_running() != 0 }
}
