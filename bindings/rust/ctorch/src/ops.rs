//! Operators by name through the boxed call (`ct_op_call`): every registered operator, custom
//! ones included. The typed methods of [`Tensor`] (generated from the registry into
//! `generated.rs`) go through the same call.

use std::ffi::{CStr, CString};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

use ctorch_sys as sys;

use crate::callback::enter;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{c_string, check, take_string, Error, ErrorKind, Result};
use crate::scalar::Scalar;
use crate::symbolic::SymInt;
use crate::tensor::Tensor;

/// One argument of [`call`], in schema order. `None` takes the argument's default.
#[derive(Clone, Debug)]
pub enum Value<'a> {
    /// An omitted optional argument, or "use the default".
    None,
    /// A tensor.
    Tensor(&'a Tensor),
    /// An integer (also accepted where a float or Scalar is expected).
    Int(i64),
    /// A float.
    Float(f64),
    /// A bool.
    Bool(bool),
    /// A list of integers (`int[]`, sizes).
    Ints(&'a [i64]),
    /// A list of tensors (`Tensor[]`).
    Tensors(Vec<&'a Tensor>),
    /// A dtype (`ScalarType`).
    DType(DType),
    /// A device.
    Device(Device),
    /// A string.
    Str(&'a str),
    /// A symbolic integer.
    SymInt(&'a SymInt),
    /// A list of symbolic integers (symbolic sizes).
    SymInts(&'a [SymInt]),
}

macro_rules! value_from {
    ($($t:ty => $variant:ident),*) => {$(
        impl<'a> From<$t> for Value<'a> {
            fn from(v: $t) -> Value<'a> {
                Value::$variant(v)
            }
        }
    )*};
}
value_from!(&'a Tensor => Tensor, i64 => Int, f64 => Float, bool => Bool, &'a [i64] => Ints, DType => DType,
            Device => Device, &'a str => Str, &'a SymInt => SymInt);

impl From<Scalar> for Value<'_> {
    fn from(v: Scalar) -> Self {
        match v {
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Int(i) => Value::Int(i),
            Scalar::Float(f) => Value::Float(f),
        }
    }
}

/// Calls the operator `name` ("add", or a full "add.Tensor") with positional arguments; returns
/// its results. An unqualified name takes the first overload whose schema accepts the arguments.
///
/// ```
/// # use ctorch::{ops, Tensor};
/// let a = Tensor::from_slice(&[1.0f32, 2.0]);
/// let out = ops::call("add.Tensor", &[(&a).into(), (&a).into(), 3i64.into()]).unwrap();
/// assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![4.0, 8.0]);
/// ```
pub fn call(name: &str, args: &[Value<'_>]) -> Result<Vec<Tensor>> {
    let cname = c_string("ops::call", name)?;
    // Storage the boxed values point into, alive until the call returns.
    let mut strings: Vec<CString> = Vec::new();
    let mut lists: Vec<Vec<*const sys::ct_tensor>> = Vec::new();
    for a in args {
        match a {
            Value::Str(s) => strings.push(c_string(name, s)?),
            Value::Device(d) => strings.push(d.to_cstring()),
            Value::Tensors(ts) => lists.push(ts.iter().map(|t| t.as_ptr() as *const _).collect()),
            Value::SymInts(ss) => lists.push(ss.iter().map(|s| s.as_ptr() as *const sys::ct_tensor).collect()),
            _ => {}
        }
    }
    let (mut si, mut li) = (0, 0);
    let boxed: Vec<sys::ct_value> = args
        .iter()
        .map(|a| match a {
            Value::None => arg::none(),
            Value::Tensor(t) => arg::tensor(t),
            Value::Int(i) => arg::int(*i),
            Value::Float(f) => arg::float(*f),
            Value::Bool(b) => arg::bool(*b),
            Value::Ints(v) => arg::ints(v),
            Value::DType(d) => arg::dtype(*d),
            Value::Device(_) | Value::Str(_) => {
                si += 1;
                let kind = if matches!(a, Value::Device(_)) { sys::CT_VALUE_DEVICE } else { sys::CT_VALUE_STRING };
                sys::ct_value { kind, str: strings[si - 1].as_ptr(), ..arg::none() }
            }
            Value::Tensors(_) => {
                li += 1;
                arg::tensor_list(&lists[li - 1])
            }
            Value::SymInt(s) => {
                let mut v = arg::none();
                unsafe { sys::ct_value_set_symint(&mut v, s.as_ptr()) };
                v
            }
            Value::SymInts(_) => {
                li += 1;
                let mut v = arg::none();
                let l = &lists[li - 1];
                unsafe { sys::ct_value_set_symints(&mut v, l.as_ptr().cast(), l.len()) };
                v
            }
        })
        .collect();
    const MAX_RETURNS: usize = 8;
    let mut outs = [ptr::null_mut(); MAX_RETURNS];
    check(enter(|| unsafe {
        sys::ct_op_call(cname.as_ptr(), boxed.as_ptr(), boxed.len(), outs.as_mut_ptr(), MAX_RETURNS)
    }))?;
    outs.iter().take_while(|p| !p.is_null()).map(|&p| Tensor::adopt(p)).collect()
}

/// The schemas of every overload of `name`, one per line.
pub fn schema(name: &str) -> Result<String> {
    let cname = c_string("ops::schema", name)?;
    let mut s = ptr::null_mut();
    check(unsafe { sys::ct_op_schema(cname.as_ptr(), &mut s) })?;
    Ok(take_string(s))
}

/// Every registered operator as the JSON document of `ct_op_registry_json`.
pub fn registry_json() -> Result<String> {
    let mut s = ptr::null_mut();
    check(unsafe { sys::ct_op_registry_json(&mut s) })?;
    Ok(take_string(s))
}

/// One overload a generated method calls, found by name on its first call (`ct_op_find`) and
/// called through the library's handle from then on, so a call does not look its name up again.
/// The handle lives as long as the process; two threads finding it at once get the same one.
pub(crate) struct Op {
    name: &'static CStr,
    handle: AtomicPtr<sys::ct_op>,
}

impl Op {
    pub(crate) const fn new(name: &'static CStr) -> Op {
        Op { name, handle: AtomicPtr::new(ptr::null_mut()) }
    }

    #[inline]
    fn handle(&self) -> Result<*const sys::ct_op> {
        let h = self.handle.load(Ordering::Acquire);
        if !h.is_null() {
            return Ok(h);
        }
        let mut found = ptr::null();
        check(unsafe { sys::ct_op_find(self.name.as_ptr(), &mut found) })?;
        self.handle.store(found.cast_mut(), Ordering::Release);
        Ok(found)
    }
}

/// Calls a registered overload with boxed arguments built by the generated methods, returning
/// exactly `N` results.
#[inline]
pub(crate) fn call_n<const N: usize>(op: &Op, args: &[sys::ct_value]) -> Result<[Tensor; N]> {
    let handle = op.handle()?;
    let mut outs = [ptr::null_mut(); N];
    check(enter(|| unsafe { sys::ct_op_call_op(handle, args.as_ptr(), args.len(), outs.as_mut_ptr(), N) }))?;
    if outs.iter().any(|p| p.is_null()) {
        outs.iter().for_each(|&p| unsafe { sys::ct_tensor_release(p) });
        let what = format!("{}: returned fewer than {N} tensors", op.name.to_string_lossy());
        return Err(Error::new(ErrorKind::Internal, what));
    }
    Ok(outs.map(|p| Tensor::adopt(p).expect("checked non-NULL")))
}

/// Builders of boxed arguments; every pointer stays borrowed from the caller's values.
pub(crate) mod arg {
    use super::*;

    pub fn none() -> sys::ct_value {
        sys::ct_value {
            kind: sys::CT_VALUE_NONE,
            i: 0,
            f: 0.0,
            tensor: ptr::null(),
            ints: ptr::null(),
            tensors: ptr::null(),
            len: 0,
            str: ptr::null(),
        }
    }
    pub fn tensor(t: &Tensor) -> sys::ct_value {
        sys::ct_value { kind: sys::CT_VALUE_TENSOR, tensor: t.as_ptr(), ..none() }
    }
    pub fn opt_tensor(t: Option<&Tensor>) -> sys::ct_value {
        t.map_or_else(none, tensor)
    }
    pub fn int(i: i64) -> sys::ct_value {
        sys::ct_value { kind: sys::CT_VALUE_INT, i, ..none() }
    }
    pub fn opt_int(i: Option<i64>) -> sys::ct_value {
        i.map_or_else(none, int)
    }
    pub fn float(f: f64) -> sys::ct_value {
        sys::ct_value { kind: sys::CT_VALUE_FLOAT, f, ..none() }
    }
    pub fn opt_float(f: Option<f64>) -> sys::ct_value {
        f.map_or_else(none, float)
    }
    pub fn bool(b: bool) -> sys::ct_value {
        sys::ct_value { kind: sys::CT_VALUE_BOOL, i: b as i64, ..none() }
    }
    pub fn opt_bool(b: Option<bool>) -> sys::ct_value {
        b.map_or_else(none, bool)
    }
    pub fn scalar(s: Scalar) -> sys::ct_value {
        match s {
            Scalar::Bool(b) => bool(b),
            Scalar::Int(i) => int(i),
            Scalar::Float(f) => float(f),
        }
    }
    pub fn opt_scalar(s: Option<Scalar>) -> sys::ct_value {
        s.map_or_else(none, scalar)
    }
    pub fn ints(v: &[i64]) -> sys::ct_value {
        sys::ct_value { kind: sys::CT_VALUE_INTS, ints: v.as_ptr(), len: v.len(), ..none() }
    }
    pub fn opt_ints(v: Option<&[i64]>) -> sys::ct_value {
        v.map_or_else(none, ints)
    }
    pub fn dtype(d: DType) -> sys::ct_value {
        sys::ct_value { kind: sys::CT_VALUE_DTYPE, i: d.to_c() as i64, ..none() }
    }
    pub fn opt_dtype(d: Option<DType>) -> sys::ct_value {
        d.map_or_else(none, dtype)
    }
    pub fn device(d: &CStr) -> sys::ct_value {
        sys::ct_value { kind: sys::CT_VALUE_DEVICE, str: d.as_ptr(), ..none() }
    }
    pub fn opt_device(d: Option<&CStr>) -> sys::ct_value {
        d.map_or_else(none, device)
    }
    pub fn string(s: &CStr) -> sys::ct_value {
        sys::ct_value { kind: sys::CT_VALUE_STRING, str: s.as_ptr(), ..none() }
    }
    pub fn opt_string(s: Option<&CStr>) -> sys::ct_value {
        s.map_or_else(none, string)
    }
    pub fn tensor_list(handles: &[*const sys::ct_tensor]) -> sys::ct_value {
        sys::ct_value { kind: sys::CT_VALUE_TENSORS, tensors: handles.as_ptr(), len: handles.len(), ..none() }
    }
    /// The handles of a list of tensors, for [`tensor_list`].
    pub fn handles<T: AsRef<Tensor>>(ts: &[T]) -> Vec<*const sys::ct_tensor> {
        ts.iter().map(|t| t.as_ref().as_ptr() as *const _).collect()
    }
}
