//! Custom operators: define one from a PyTorch schema, give it a kernel written as a Rust
//! closure, and call it like any other operator with [`ops::call`](crate::ops::call).
//!
//! ```
//! use ctorch::{library, ops, Tensor};
//! library::define("docext::twice(Tensor x) -> Tensor").unwrap();
//! library::impl_kernel("docext::twice", "cpu", |args| match args {
//!     [ops::Value::Tensor(x)] => Ok(vec![x.mul_scalar(2.0)?]),
//!     _ => unreachable!("the schema fixes the arguments"),
//! })
//! .unwrap();
//! let x = Tensor::from_slice(&[1.0f32, 2.0]);
//! let y = ops::call("docext::twice", &[(&x).into()]).unwrap();
//! assert_eq!(y[0].to_vec::<f32>().unwrap(), vec![2.0, 4.0]);
//! ```
//!
//! Operator names are process-global: define each once, before other threads call it.

use std::ffi::{c_void, CStr};

use ctorch_sys as sys;

use crate::callback::{boxed, drop_boxed, guard, unbox};
use crate::device::{Device, DeviceType};
use crate::dtype::DType;
use crate::error::{c_string, check, Error, ErrorKind, Result};
use crate::ops::Value;
use crate::tensor::Tensor;

/// Registers a new operator from its schema, e.g.
/// `"myext::scale(Tensor x, float factor=2.0) -> Tensor"`; it has no kernel until
/// [`impl_kernel`]. The name needs a namespace (`myext::`).
///
/// Errors: `Format` for a schema that does not parse (the message points at the position);
/// `InvalidArgument` for a name without a namespace or one that is already defined.
pub fn define(schema: &str) -> Result<()> {
    let s = c_string("library::define", schema)?;
    check(unsafe { sys::ct_library_define(s.as_ptr()) })
}

/// A device a kernel is registered for: a [`Device`] or [`DeviceType`] (the index does not
/// matter), or a device type's name such as `"cpu"`, `"meta"` or a plugin backend's name.
pub trait KernelDevice {
    /// The device type's name as the C ABI takes it.
    fn kernel_device_name(&self) -> String;
}

impl KernelDevice for DeviceType {
    fn kernel_device_name(&self) -> String {
        self.name().unwrap_or("unregistered").to_string()
    }
}

impl KernelDevice for Device {
    fn kernel_device_name(&self) -> String {
        self.kind.kernel_device_name()
    }
}

impl KernelDevice for &str {
    fn kernel_device_name(&self) -> String {
        self.to_string()
    }
}

impl KernelDevice for String {
    fn kernel_device_name(&self) -> String {
        self.clone()
    }
}

/// Gives the operator `name` ("ns::name" or "ns::name.overload") a kernel for `device`,
/// replacing (and dropping) a kernel given before for that device.
///
/// The kernel gets the arguments in schema order with every default filled in (tensors as
/// [`Value::Tensor`], an omitted optional as [`Value::None`], a `Scalar` as `Int`, `Float` or
/// `Bool`) and returns one tensor per return of the schema. It may run on any thread, several at
/// once. An `Err` reaches the operator's caller with its kind and message nested under the
/// operator's name; a panic resumes in the call that ran the kernel. Autograd, the profiler and
/// tracing wrap the kernel as they wrap built-in ones; the operator has no derivative (wrap its
/// call in a [`Function`](crate::Function) to differentiate through it).
///
/// Errors: `InvalidArgument` for an unknown name, one naming several overloads, or a built-in
/// operator that already has a kernel for the device; `Device` for an unknown device.
pub fn impl_kernel<F>(name: &str, device: impl KernelDevice, kernel: F) -> Result<()>
where
    F: Fn(&[Value<'_>]) -> Result<Vec<Tensor>> + Send + Sync + 'static,
{
    let n = c_string("library::impl_kernel", name)?;
    let d = c_string("library::impl_kernel", &device.kernel_device_name())?;
    let user_data = boxed(kernel);
    let status = unsafe { sys::ct_library_impl(n.as_ptr(), d.as_ptr(), Some(kernel_trampoline::<F>), user_data, Some(drop_boxed::<F>)) };
    if status != sys::CT_OK {
        // On failure the library does not take user_data: it is still ours to drop.
        unsafe { drop_boxed::<F>(user_data) };
    }
    check(status)
}

/// How reproducible a kernel is (`ct_determinism`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Determinism {
    /// The same bits for the same inputs, whatever the thread count.
    Bitwise,
    /// The same bits run to run on one configuration (what kernels start as).
    Deterministic,
    /// May differ run to run (atomic accumulation): refused or warned about while deterministic
    /// algorithms are required.
    Atomic,
}

/// Declares how reproducible the kernel of the custom operator `name` for `device` is; the
/// registry (`ops::registry_json`) reports it.
///
/// Errors: `InvalidArgument` for an unknown or ambiguous name, a built-in operator, or no kernel
/// for the device yet; `Device` for an unknown device.
pub fn set_determinism(name: &str, device: impl KernelDevice, determinism: Determinism) -> Result<()> {
    let n = c_string("library::set_determinism", name)?;
    let d = c_string("library::set_determinism", &device.kernel_device_name())?;
    let value = match determinism {
        Determinism::Bitwise => sys::CT_DETERMINISM_BITWISE,
        Determinism::Deterministic => sys::CT_DETERMINISM_DETERMINISTIC,
        Determinism::Atomic => sys::CT_DETERMINISM_ATOMIC,
    };
    check(unsafe { sys::ct_library_set_determinism(n.as_ptr(), d.as_ptr(), value) })
}

/// What a kernel's arguments own for the call: the tensors, retained so the kernel can keep them.
enum Owned<'a> {
    Plain(Value<'a>),
    Tensor(Tensor),
    Tensors(Vec<Tensor>),
}

fn unsupported(what: &str) -> Error {
    Error::new(ErrorKind::NotImplemented, format!("a kernel written in Rust does not take {what} arguments yet: write this kernel in C"))
}

/// The argument `v` as the library lent it, with its tensors retained.
///
/// # Safety
/// Every pointer in `v` must be live for `'a` (the kernel call).
unsafe fn owned<'a>(v: &sys::ct_value) -> Result<Owned<'a>> {
    let text = |what: &str| -> Result<&'a str> {
        // SAFETY: the library lends a NUL-terminated string for the call.
        unsafe { CStr::from_ptr(v.str) }
            .to_str()
            .map_err(|_| Error::new(ErrorKind::InvalidArgument, format!("a {what} argument is not UTF-8")))
    };
    Ok(match v.kind {
        sys::CT_VALUE_TENSOR if !v.tensor.is_null() => Owned::Tensor(Tensor::retain_borrowed(v.tensor)?),
        sys::CT_VALUE_NONE | sys::CT_VALUE_TENSOR => Owned::Plain(Value::None),
        sys::CT_VALUE_INT => Owned::Plain(Value::Int(v.i)),
        sys::CT_VALUE_FLOAT => Owned::Plain(Value::Float(v.f)),
        sys::CT_VALUE_BOOL => Owned::Plain(Value::Bool(v.i != 0)),
        sys::CT_VALUE_INTS if v.len == 0 => Owned::Plain(Value::Ints(&[])),
        // SAFETY: ints holds len entries for the call.
        sys::CT_VALUE_INTS => Owned::Plain(Value::Ints(unsafe { std::slice::from_raw_parts(v.ints, v.len) })),
        sys::CT_VALUE_TENSORS => {
            Owned::Tensors((0..v.len).map(|i| Tensor::retain_borrowed(unsafe { *v.tensors.add(i) })).collect::<Result<_>>()?)
        }
        sys::CT_VALUE_DTYPE => Owned::Plain(Value::DType(DType::from_c(v.i as sys::ct_dtype)?)),
        sys::CT_VALUE_DEVICE => Owned::Plain(Value::Device(Device::parse(text("Device")?)?)),
        sys::CT_VALUE_STRING => Owned::Plain(Value::Str(text("str")?)),
        sys::CT_VALUE_SYMINT | sys::CT_VALUE_SYMINTS => return Err(unsupported("symbolic integer")),
        other => return Err(Error::new(ErrorKind::Internal, format!("unknown ct_value kind {other}: update the ctorch crate"))),
    })
}

unsafe extern "C" fn kernel_trampoline<F>(
    user_data: *mut c_void,
    args: *const sys::ct_value,
    nargs: usize,
    outs: *mut *mut sys::ct_tensor,
    nouts: usize,
) -> sys::ct_status
where
    F: Fn(&[Value<'_>]) -> Result<Vec<Tensor>> + Send + Sync + 'static,
{
    guard("the kernel closure", || {
        // SAFETY: user_data was boxed as F by impl_kernel and lives while the kernel is registered.
        let kernel = unsafe { unbox::<F>(user_data) };
        let args = if nargs == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(args, nargs) } };
        let owned = args.iter().map(|a| unsafe { owned(a) }).collect::<Result<Vec<_>>>()?;
        let values: Vec<Value<'_>> = owned
            .iter()
            .map(|o| match o {
                Owned::Plain(v) => v.clone(),
                Owned::Tensor(t) => Value::Tensor(t),
                Owned::Tensors(ts) => Value::Tensors(ts.iter().collect()),
            })
            .collect();
        let results = kernel(&values)?;
        if results.len() != nouts {
            let msg = format!("the kernel returned {} tensors for {nouts} returns: return exactly one per return of the schema", results.len());
            return Err(Error::new(ErrorKind::InvalidArgument, msg));
        }
        for (i, t) in results.into_iter().enumerate() {
            // SAFETY: outs holds nouts slots; a preallocated tensor there is released by the
            // library when replaced.
            unsafe { *outs.add(i) = t.into_raw() };
        }
        Ok(())
    })
}
