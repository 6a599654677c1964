//! Errors: every fallible call returns `Result<T>`, whose error carries the status kind and the
//! library's message (which names the operator, the shapes, dtypes and devices, and what to do).

use std::ffi::{CStr, CString};
use std::fmt;

use ctorch_sys as sys;

/// What kind of failure a status reports: one variant per `ct_status` of the C ABI.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A NULL or released handle, a bad option value, an unknown name.
    InvalidArgument,
    /// Sizes that do not fit the operator (broadcasting, inner sizes, views).
    Shape,
    /// A dtype the operator does not accept, or an unsafe cast.
    DType,
    /// Wrong or mixed devices, or a device with no backend.
    Device,
    /// An allocation failed.
    OutOfMemory,
    /// No kernel for this device and dtype, or a missing feature.
    NotImplemented,
    /// A dimension or index out of range.
    Index,
    /// A nondeterministic kernel while deterministic algorithms are required.
    Nondeterministic,
    /// A symbolic value had to be concrete and could not be, or a guard failed.
    Guard,
    /// A graph break under fullgraph compilation.
    GraphBreak,
    /// A compiled function hit its recompile limit.
    RecompileLimit,
    /// Reading or writing a file failed.
    Io,
    /// A malformed file or string.
    Format,
    /// A device backend or plugin failed.
    Backend,
    /// The library is older than the header the crate was generated from.
    Version,
    /// A bug in ctorch, or a status this crate does not know.
    Internal,
    /// A matrix a linear-algebra function cannot factor or invert (singular, not positive-definite,
    /// no convergence); the message names the batch element.
    LinAlg,
    /// A distributed operation or rendezvous did not finish within its timeout; the message
    /// names the ranks that did not arrive where they can be known.
    Timeout,
    /// A distributed operation failed: a peer's connection closed, the ranks disagree on sizes
    /// or dtypes, or the engine reported an error.
    Distributed,
}

impl ErrorKind {
    /// The kind of a C status (`CT_OK` is not an error and maps to `Internal`).
    pub fn from_status(status: sys::ct_status) -> ErrorKind {
        match status {
            sys::CT_ERROR_INVALID_ARGUMENT => ErrorKind::InvalidArgument,
            sys::CT_ERROR_SHAPE => ErrorKind::Shape,
            sys::CT_ERROR_DTYPE => ErrorKind::DType,
            sys::CT_ERROR_DEVICE => ErrorKind::Device,
            sys::CT_ERROR_OUT_OF_MEMORY => ErrorKind::OutOfMemory,
            sys::CT_ERROR_NOT_IMPLEMENTED => ErrorKind::NotImplemented,
            sys::CT_ERROR_INDEX => ErrorKind::Index,
            sys::CT_ERROR_NONDETERMINISTIC => ErrorKind::Nondeterministic,
            sys::CT_ERROR_GUARD => ErrorKind::Guard,
            sys::CT_ERROR_GRAPH_BREAK => ErrorKind::GraphBreak,
            sys::CT_ERROR_RECOMPILE_LIMIT => ErrorKind::RecompileLimit,
            sys::CT_ERROR_IO => ErrorKind::Io,
            sys::CT_ERROR_FORMAT => ErrorKind::Format,
            sys::CT_ERROR_BACKEND => ErrorKind::Backend,
            sys::CT_ERROR_VERSION => ErrorKind::Version,
            sys::CT_ERROR_LINALG => ErrorKind::LinAlg,
            sys::CT_ERROR_TIMEOUT => ErrorKind::Timeout,
            sys::CT_ERROR_DISTRIBUTED => ErrorKind::Distributed,
            _ => ErrorKind::Internal,
        }
    }

    /// The C status of this kind, for reporting it back through the C ABI from a closure.
    pub fn status(self) -> sys::ct_status {
        match self {
            ErrorKind::InvalidArgument => sys::CT_ERROR_INVALID_ARGUMENT,
            ErrorKind::Shape => sys::CT_ERROR_SHAPE,
            ErrorKind::DType => sys::CT_ERROR_DTYPE,
            ErrorKind::Device => sys::CT_ERROR_DEVICE,
            ErrorKind::OutOfMemory => sys::CT_ERROR_OUT_OF_MEMORY,
            ErrorKind::NotImplemented => sys::CT_ERROR_NOT_IMPLEMENTED,
            ErrorKind::Index => sys::CT_ERROR_INDEX,
            ErrorKind::Nondeterministic => sys::CT_ERROR_NONDETERMINISTIC,
            ErrorKind::Guard => sys::CT_ERROR_GUARD,
            ErrorKind::GraphBreak => sys::CT_ERROR_GRAPH_BREAK,
            ErrorKind::RecompileLimit => sys::CT_ERROR_RECOMPILE_LIMIT,
            ErrorKind::Io => sys::CT_ERROR_IO,
            ErrorKind::Format => sys::CT_ERROR_FORMAT,
            ErrorKind::Backend => sys::CT_ERROR_BACKEND,
            ErrorKind::Version => sys::CT_ERROR_VERSION,
            ErrorKind::Internal => sys::CT_ERROR_INTERNAL,
            ErrorKind::LinAlg => sys::CT_ERROR_LINALG,
            ErrorKind::Timeout => sys::CT_ERROR_TIMEOUT,
            ErrorKind::Distributed => sys::CT_ERROR_DISTRIBUTED,
        }
    }

    /// The status's stable C name, e.g. `"CT_ERROR_SHAPE"`.
    pub fn name(self) -> &'static str {
        // SAFETY: ct_status_name returns a static NUL-terminated string for any value.
        unsafe { CStr::from_ptr(sys::ct_status_name(self.status())) }.to_str().unwrap_or("CT_ERROR_UNKNOWN")
    }
}

/// A failed ctorch call: the status kind and the library's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// An error made on the Rust side (from a closure, or a check this crate does before calling C).
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into() }
    }

    /// The status kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, as `ct_last_error()` gave it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The error of a failed C call: its status and this thread's `ct_last_error()`.
    pub(crate) fn from_status(status: sys::ct_status) -> Error {
        // SAFETY: ct_last_error returns a thread-local NUL-terminated string, copied at once.
        let message = unsafe { CStr::from_ptr(sys::ct_last_error()) }.to_string_lossy().into_owned();
        Error { kind: ErrorKind::from_status(status), message }
    }

    /// Sets this error as the thread's C error and returns its status: how a closure called by
    /// the library reports failure, so the message reaches the caller nested under the operator.
    pub(crate) fn report(&self) -> sys::ct_status {
        let message = CString::new(self.message.replace('\0', "\\0")).unwrap_or_default();
        // SAFETY: the message is NUL-terminated and copied by the library.
        unsafe { sys::ct_error_set(self.kind.status(), message.as_ptr()) };
        self.kind.status()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.message)
    }
}

impl std::error::Error for Error {}

/// `Result` with ctorch's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// `Ok(())` for `CT_OK`, else the error of the status and the thread's last message.
#[inline]
pub(crate) fn check(status: sys::ct_status) -> Result<()> {
    if status == sys::CT_OK {
        Ok(())
    } else {
        Err(Error::from_status(status))
    }
}

/// A string argument for C: an interior NUL is an `InvalidArgument` error naming `what`.
pub(crate) fn c_string(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::new(ErrorKind::InvalidArgument, format!("{what}: {s:?} contains a NUL byte")))
}

/// Takes a string the library allocated, copying it and freeing the original.
pub(crate) fn take_string(s: *mut std::os::raw::c_char) -> String {
    if s.is_null() {
        return String::new();
    }
    // SAFETY: s is a NUL-terminated string from the library, freed once here.
    let owned = unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned();
    unsafe { sys::ct_string_release(s) };
    owned
}
