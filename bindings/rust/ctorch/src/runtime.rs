//! The runtime switches, with PyTorch's names: deterministic algorithms, the thread count, the
//! float32 matmul precision, the default dtype and device, random seeds and generators, the log
//! sink, the memory-pressure handler and the plugins found (docs/runtime.md, docs/observability.md).
//!
//! Every switch but the default device is process-wide; the default device and device contexts
//! ([`with_device`]) are per thread.

mod handlers;
mod random;

use std::ffi::CStr;
use std::fmt;
use std::marker::PhantomData;
use std::ptr;
use std::str::FromStr;

use ctorch_sys as sys;

use crate::device::{Device, DeviceType};
use crate::dtype::DType;
use crate::error::{check, take_string, Error, ErrorKind, Result};

pub use handlers::{
    clear_log_handler, clear_memory_pressure_handler, log_level, set_log_handler, set_log_level,
    set_memory_pressure_handler, LogLevel,
};
pub use random::{initial_seed, manual_seed, Generator};

// ---- determinism ----

/// The deterministic-algorithms switch as one value (`torch.set_deterministic_debug_mode`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DebugMode {
    /// Off (torch's `"default"`): every kernel runs.
    Off,
    /// On, warn-only: a nondeterministic kernel runs after one warning per operator and device.
    Warn,
    /// On: a nondeterministic kernel fails with [`ErrorKind::Nondeterministic`].
    Error,
}

/// Turns deterministic algorithms on or off (`torch.use_deterministic_algorithms`). While on, a
/// kernel that may differ run to run fails with [`ErrorKind::Nondeterministic`], or with
/// `warn_only` runs after one [`LogLevel::Warning`] per operator and device; `empty` fills new
/// memory with NaN (or the largest integer). `warn_only` means nothing while `mode` is false.
/// Never fails in practice; returns the library's status.
pub fn use_deterministic_algorithms(mode: bool, warn_only: bool) -> Result<()> {
    check(unsafe { sys::ct_use_deterministic_algorithms(mode as i32, warn_only as i32) })
}

/// Whether deterministic algorithms are on (warn-only or not).
pub fn are_deterministic_algorithms_enabled() -> bool {
    unsafe { sys::ct_are_deterministic_algorithms_enabled() != 0 }
}

/// Whether deterministic algorithms are on in warn-only mode.
pub fn is_deterministic_algorithms_warn_only_enabled() -> bool {
    unsafe { sys::ct_is_deterministic_algorithms_warn_only_enabled() != 0 }
}

/// Sets the deterministic-algorithms switch as one value. Never fails in practice (every
/// [`DebugMode`] is valid); returns the library's status.
pub fn set_deterministic_debug_mode(mode: DebugMode) -> Result<()> {
    let value = match mode {
        DebugMode::Off => 0,
        DebugMode::Warn => 1,
        DebugMode::Error => 2,
    };
    check(unsafe { sys::ct_set_deterministic_debug_mode(value) })
}

/// The deterministic-algorithms switch as one value.
pub fn deterministic_debug_mode() -> DebugMode {
    // The library keeps the value in 0..=2 (the setter refuses anything else).
    match unsafe { sys::ct_get_deterministic_debug_mode() } {
        0 => DebugMode::Off,
        1 => DebugMode::Warn,
        _ => DebugMode::Error,
    }
}

// ---- threads and precision ----

/// Sets the number of CPU threads kernels (and OpenBLAS) may use, process-wide.
/// `InvalidArgument` error for 0 or more than 1024.
pub fn set_num_threads(n: usize) -> Result<()> {
    let n = i32::try_from(n).map_err(|_| {
        Error::new(ErrorKind::InvalidArgument, format!("set_num_threads: {n} threads is out of range; pass 1 to 1024"))
    })?;
    check(unsafe { sys::ct_set_num_threads(n) })
}

/// The number of CPU threads kernels may use (the number of cores unless set).
pub fn num_threads() -> usize {
    let mut n = 1;
    // SAFETY: out is valid, so the call cannot fail.
    unsafe { sys::ct_get_num_threads(&mut n) };
    n as usize
}

/// How float32 matrix products may trade precision for speed
/// (`torch.set_float32_matmul_precision`). CPU kernels always compute in float32.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MatmulPrecision {
    /// `"highest"` (the default): float32 throughout.
    Highest,
    /// `"high"`: TF32 (or bfloat16x3) allowed on CUDA.
    High,
    /// `"medium"`: bfloat16 allowed too.
    Medium,
}

impl MatmulPrecision {
    /// The library's name: `"highest"`, `"high"` or `"medium"`.
    pub fn name(self) -> &'static str {
        match self {
            MatmulPrecision::Highest => "highest",
            MatmulPrecision::High => "high",
            MatmulPrecision::Medium => "medium",
        }
    }
}

impl fmt::Display for MatmulPrecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for MatmulPrecision {
    type Err = Error;
    /// Parses `"highest"`, `"high"` or `"medium"`; `InvalidArgument` error otherwise.
    fn from_str(s: &str) -> Result<MatmulPrecision> {
        [MatmulPrecision::Highest, MatmulPrecision::High, MatmulPrecision::Medium]
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidArgument,
                    format!("MatmulPrecision: {s:?} is not a precision; use \"highest\", \"high\" or \"medium\""),
                )
            })
    }
}

/// Sets the float32 matmul precision, process-wide. Never fails in practice; returns the
/// library's status.
pub fn set_float32_matmul_precision(precision: MatmulPrecision) -> Result<()> {
    let name = std::ffi::CString::new(precision.name()).expect("precision names hold no NUL");
    check(unsafe { sys::ct_set_float32_matmul_precision(name.as_ptr()) })
}

/// The float32 matmul precision. `Internal` error if the library reports a precision this crate
/// does not know (a newer library).
pub fn float32_matmul_precision() -> Result<MatmulPrecision> {
    // SAFETY: the getter returns a static string.
    let name = unsafe { CStr::from_ptr(sys::ct_get_float32_matmul_precision()) }.to_string_lossy();
    name.parse().map_err(|_| {
        Error::new(ErrorKind::Internal, format!("float32_matmul_precision: unknown precision {name:?}: update the ctorch crate"))
    })
}

/// How tensors print (`torch.set_printoptions`): `Display` and `Debug` of every tensor after
/// [`set_print_options`]. `Default` is torch's default profile.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PrintOptions {
    /// Digits after the point, in [0, 30] (4).
    pub precision: i32,
    /// A tensor of more elements prints summarized (1000; `i64::MAX`: never).
    pub threshold: i64,
    /// Items shown at each end of a summarized dim (3).
    pub edgeitems: i64,
    /// Characters per line (80).
    pub linewidth: i64,
    /// `None` chooses from the values; `Some(true)` always scientific, `Some(false)` never.
    pub sci_mode: Option<bool>,
}

impl Default for PrintOptions {
    fn default() -> PrintOptions {
        PrintOptions { precision: 4, threshold: 1000, edgeitems: 3, linewidth: 80, sci_mode: None }
    }
}

/// Sets the print options, process-wide. `InvalidArgument` error for a value out of range (the
/// message names the field); nothing changes then.
pub fn set_print_options(options: &PrintOptions) -> Result<()> {
    let raw = sys::ct_print_options {
        struct_size: std::mem::size_of::<sys::ct_print_options>(),
        precision: options.precision,
        threshold: options.threshold,
        edgeitems: options.edgeitems,
        linewidth: options.linewidth,
        sci_mode: options.sci_mode.map_or(-1, i32::from),
    };
    check(unsafe { sys::ct_set_print_options(&raw) })
}

/// The current print options.
pub fn print_options() -> PrintOptions {
    // SAFETY: plain data, filled by the call (which cannot fail with struct_size set).
    let mut raw: sys::ct_print_options = unsafe { std::mem::zeroed() };
    raw.struct_size = std::mem::size_of::<sys::ct_print_options>();
    unsafe { sys::ct_get_print_options(&mut raw) };
    PrintOptions {
        precision: raw.precision,
        threshold: raw.threshold,
        edgeitems: raw.edgeitems,
        linewidth: raw.linewidth,
        sci_mode: if raw.sci_mode < 0 { None } else { Some(raw.sci_mode != 0) },
    }
}

/// `torch.set_warn_always`: warnings the library gives once per process come every time while on.
pub fn set_warn_always(on: bool) {
    unsafe { sys::ct_set_warn_always(on as i32) }
}

/// Whether [`set_warn_always`] is on.
pub fn is_warn_always_enabled() -> bool {
    unsafe { sys::ct_is_warn_always_enabled() != 0 }
}

/// `torch.set_anomaly_enabled`: while on with `check_nan`, backward fails (an `InvalidArgument`
/// error) at the first node whose gradient holds NaN, naming it. Process-wide.
pub fn set_anomaly_enabled(enabled: bool, check_nan: bool) {
    unsafe { sys::ct_set_anomaly_enabled(enabled as i32, check_nan as i32) }
}

/// Whether anomaly detection is on.
pub fn is_anomaly_enabled() -> bool {
    unsafe { sys::ct_is_anomaly_enabled() != 0 }
}

/// `torch.set_flush_denormal`: denormal floats read and written as zero on this thread (and the
/// library's workers running its parallel work). `false` where the CPU has no such mode.
pub fn set_flush_denormal(on: bool) -> bool {
    let mut supported = 0;
    // SAFETY: the out pointer is valid; the call cannot fail.
    unsafe { sys::ct_set_flush_denormal(on as i32, &mut supported) };
    supported != 0
}

// ---- default dtype and device ----

/// Sets the default floating dtype (`torch.set_default_dtype`): what floating factories give
/// without a dtype, and what floating operators give for integral inputs. Process-wide.
/// `DType` error for anything but [`DType::Float32`] or [`DType::Float64`].
pub fn set_default_dtype(dtype: DType) -> Result<()> {
    check(unsafe { sys::ct_set_default_dtype(dtype.to_c()) })
}

/// The default floating dtype ([`DType::Float32`] unless set).
pub fn default_dtype() -> DType {
    DType::from_c(unsafe { sys::ct_get_default_dtype() }).expect("the default dtype is float32 or float64")
}

/// Sets the device factories on this thread use when given none (other threads keep theirs).
/// The device is checked when a factory runs: a device without a backend fails there with
/// `Device`. An open [`with_device`] context takes precedence.
pub fn set_default_device(device: Device) -> Result<()> {
    let name = device.to_cstring();
    check(unsafe { sys::ct_set_default_device(name.as_ptr()) })
}

/// The device a factory without one would use now on this thread: the innermost open
/// [`with_device`] context, else the thread's default device. `Internal` error for a device type
/// this crate does not know.
pub fn default_device() -> Result<Device> {
    let (mut kind, mut index) = (0, -1);
    check(unsafe { sys::ct_get_default_device(&mut kind, &mut index) })?;
    Device::from_c(kind, index)
}

/// An open device context (Python's `with ctorch.device(...)`): while it lives, factories on this
/// thread that are given no device use its device. Dropping it closes the context. It belongs to
/// the thread that opened it (it is neither `Send` nor `Sync`); contexts nest, and should be
/// dropped innermost first.
#[must_use = "the device context closes when the guard is dropped"]
pub struct DeviceGuard {
    device: Device,
    _thread_bound: PhantomData<*const ()>,
}

impl DeviceGuard {
    /// The device of this context.
    pub fn device(&self) -> Device {
        self.device
    }
}

impl Drop for DeviceGuard {
    fn drop(&mut self) {
        // The guard was pushed on this thread and is not Send, so a context is open here.
        let _ = unsafe { sys::ct_device_pop() };
    }
}

impl fmt::Debug for DeviceGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DeviceGuard({})", self.device)
    }
}

/// Opens a device context on this thread, closed when the returned guard is dropped:
/// `let _g = with_device(Device::META)?;`. The device is checked when a factory runs, not here.
pub fn with_device(device: Device) -> Result<DeviceGuard> {
    let name = device.to_cstring();
    check(unsafe { sys::ct_device_push(name.as_ptr()) })?;
    Ok(DeviceGuard { device, _thread_bound: PhantomData })
}

// ---- automatic mixed precision ----

/// An open autocast region (`torch.autocast`): while it lives, operator calls on this thread whose
/// tensors are on its device type follow PyTorch's autocast lists. Matrix products, linear and
/// convolutions cast float32 inputs to the region's dtype; losses, norms and the other
/// precision-sensitive operators compute in float32; the rest run in the dtypes they are given;
/// float64 is never cast. Autograd records the casts, so gradients come back in each input's own
/// dtype. Dropping the guard restores what was set before; regions nest (drop innermost first).
#[must_use = "the autocast region closes when the guard is dropped"]
pub struct AutocastGuard {
    device: DeviceType,
    saved_enabled: bool,
    saved_dtype: DType,
    _thread_bound: PhantomData<*const ()>,
}

impl Drop for AutocastGuard {
    fn drop(&mut self) {
        // Both calls were valid for this device type when the guard was made.
        let _ = unsafe { sys::ct_autocast_set_dtype(self.device.to_c(), self.saved_dtype.to_c()) };
        let _ = unsafe { sys::ct_autocast_set_enabled(self.device.to_c(), self.saved_enabled as i32) };
    }
}

impl fmt::Debug for AutocastGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AutocastGuard({:?})", self.device)
    }
}

/// Opens an autocast region for `device` computing in `dtype` ([`DType::BFloat16`] is PyTorch's
/// choice on the cpu, [`DType::Float16`] on cuda): `let _ac = ctorch::autocast(DeviceType::Cpu,
/// DType::BFloat16)?;`. `DType` error for a dtype other than float16 or bfloat16,
/// `InvalidArgument` for the meta device type.
pub fn autocast(device: DeviceType, dtype: DType) -> Result<AutocastGuard> {
    let saved_enabled = is_autocast_enabled(device)?;
    let saved_dtype = autocast_dtype(device)?;
    check(unsafe { sys::ct_autocast_set_dtype(device.to_c(), dtype.to_c()) })?;
    check(unsafe { sys::ct_autocast_set_enabled(device.to_c(), 1) })?;
    Ok(AutocastGuard { device, saved_enabled, saved_dtype, _thread_bound: PhantomData })
}

/// Whether autocast is on for `device` on this thread.
pub fn is_autocast_enabled(device: DeviceType) -> Result<bool> {
    let mut on = 0;
    check(unsafe { sys::ct_autocast_is_enabled(device.to_c(), &mut on) })?;
    Ok(on != 0)
}

/// The dtype autocast computes the lower-precision operators in on `device` (this thread's).
pub fn autocast_dtype(device: DeviceType) -> Result<DType> {
    let mut d = 0;
    check(unsafe { sys::ct_autocast_get_dtype(device.to_c(), &mut d) })?;
    DType::from_c(d)
}

// ---- plugins ----

/// The device backend plugins autoloading found, as the library's JSON object:
/// `{"autoload": true, "plugins": [{"path": ..., "loaded": true, "error": null}]}` (`"autoload"`
/// is null before [`crate::init`]). `InvalidArgument` error when called from a plugin's init.
pub fn plugins_json() -> Result<String> {
    let mut s = ptr::null_mut();
    check(unsafe { sys::ct_plugins_json(&mut s) })?;
    Ok(take_string(s))
}
