//! The tensor handle: ownership, inspection, creation from Rust data, and printing.

use std::fmt;
use std::ptr::{self, NonNull};

use ctorch_sys as sys;

use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{check, take_string, Error, ErrorKind, Result};
use crate::scalar::Scalar;

crate::handle::ref_counted!(
    /// A tensor: one reference to a `ct_tensor`. `Clone` adds a reference to the same tensor (like
    /// Python's `b = a`); [`Tensor::deep_clone`] copies the elements. `Drop` releases the reference.
    ///
    /// Views share elements with their base, and in-place operators (`add_`, `uniform_`, ...) change
    /// them through `&self`, as in PyTorch. Tensors are `Send + Sync`: the C library allows any thread
    /// to use any tensor, though writing a tensor while another thread reads it is a race on its
    /// elements (the same rule as PyTorch's).
    Tensor, sys::ct_tensor, sys::ct_tensor_retain, sys::ct_tensor_release
);

impl Tensor {
    /// Takes over one reference the library returned. `Internal` error for NULL.
    pub(crate) fn adopt(ptr: *mut sys::ct_tensor) -> Result<Tensor> {
        NonNull::new(ptr)
            .map(|ptr| Tensor { ptr })
            .ok_or_else(|| Error::new(ErrorKind::Internal, "ctorch returned a NULL tensor where one was promised"))
    }

    /// Wraps a raw handle, taking over one reference.
    ///
    /// # Safety
    /// `ptr` must be a live `ct_tensor` reference that nothing else will release.
    pub unsafe fn from_raw(ptr: *mut sys::ct_tensor) -> Option<Tensor> {
        NonNull::new(ptr).map(|ptr| Tensor { ptr })
    }

    /// Gives up ownership: the returned reference must be released with `ct_tensor_release`.
    pub fn into_raw(self) -> *mut sys::ct_tensor {
        let p = self.ptr.as_ptr();
        std::mem::forget(self);
        p
    }

    /// A new reference to a borrowed handle (one the library lent to a callback).
    pub(crate) fn retain_borrowed(ptr: *const sys::ct_tensor) -> Result<Tensor> {
        // SAFETY: the caller lends a live handle; retaining makes it ours.
        check(unsafe { sys::ct_tensor_retain(ptr as *mut _) })?;
        Tensor::adopt(ptr as *mut _)
    }

    // ---- creation ----

    /// A 1-D tensor holding a copy of `data`.
    pub fn from_slice<T: Element>(data: &[T]) -> Tensor {
        Tensor::from_data(data, &[data.len() as i64]).expect("a 1-D tensor of a slice always fits")
    }

    /// A tensor of `sizes` holding a copy of `data` in row-major order; `Shape` error when
    /// `data.len()` is not the product of `sizes`.
    pub fn from_data<T: Element>(data: &[T], sizes: &[i64]) -> Result<Tensor> {
        let numel = sizes.iter().try_fold(1i64, |n, &s| if s < 0 { None } else { n.checked_mul(s) });
        if numel != Some(data.len() as i64) {
            return Err(Error::new(
                ErrorKind::Shape,
                format!("Tensor::from_data: {} elements of {} do not fill sizes {:?}", data.len(), T::DTYPE, sizes),
            ));
        }
        Tensor::make(|out| unsafe {
            sys::ct_tensor_from_data(data.as_ptr().cast(), sizes.as_ptr(), sizes.len(), T::DTYPE.to_c(), out)
        })
    }

    /// A 0-dim tensor holding one value.
    pub fn scalar<T: Element>(value: T) -> Tensor {
        Tensor::from_data(&[value], &[]).expect("a 0-dim tensor always fits")
    }

    // ---- inspection ----

    /// The number of dimensions.
    pub fn dim(&self) -> usize {
        let mut n = 0;
        // SAFETY: self is live; cannot fail.
        unsafe { sys::ct_tensor_ndim(self.as_ptr(), &mut n) };
        n
    }

    /// The sizes.
    pub fn size(&self) -> Vec<i64> {
        let mut sizes = vec![0; self.dim()];
        // SAFETY: sizes holds ndim entries.
        unsafe { sys::ct_tensor_sizes(self.as_ptr(), sizes.as_mut_ptr(), sizes.len()) };
        sizes
    }

    /// The size of one dim (negative counts from the end); `Index` error out of range.
    pub fn size_of(&self, dim: i64) -> Result<i64> {
        let mut s = 0;
        check(unsafe { sys::ct_tensor_size(self.as_ptr(), dim, &mut s) })?;
        Ok(s)
    }

    /// The strides, in elements.
    pub fn stride(&self) -> Vec<i64> {
        let mut strides = vec![0; self.dim()];
        // SAFETY: strides holds ndim entries.
        unsafe { sys::ct_tensor_strides(self.as_ptr(), strides.as_mut_ptr(), strides.len()) };
        strides
    }

    /// The number of elements.
    pub fn numel(&self) -> i64 {
        let mut n = 0;
        unsafe { sys::ct_tensor_numel(self.as_ptr(), &mut n) };
        n
    }

    /// The element type.
    pub fn kind(&self) -> DType {
        let mut d = 0;
        unsafe { sys::ct_tensor_dtype(self.as_ptr(), &mut d) };
        DType::from_c(d).expect("a dtype this crate knows")
    }

    /// The element type (PyTorch's name for [`Tensor::kind`]).
    pub fn dtype(&self) -> DType {
        self.kind()
    }

    /// The device the elements live on.
    pub fn device(&self) -> Device {
        let (mut t, mut i) = (0, 0);
        unsafe { sys::ct_tensor_device(self.as_ptr(), &mut t, &mut i) };
        Device::from_c(t, i).expect("a device type this crate knows")
    }

    /// Whether the elements are laid out contiguously in row-major order.
    pub fn is_contiguous(&self) -> bool {
        let mut c = 0;
        unsafe { sys::ct_tensor_is_contiguous(self.as_ptr(), &mut c) };
        c != 0
    }

    /// Whether the memory refuses writes: memory lent read-only (`CT_BLOB_READ_ONLY`, a DLPack
    /// capsule with READ_ONLY). Every in-place write to it, or to a view of it, is an
    /// `InvalidArgument` error; `clone()` gives a writable copy.
    pub fn is_read_only(&self) -> bool {
        let mut r = 0;
        unsafe { sys::ct_tensor_is_read_only(self.as_ptr(), &mut r) };
        r != 0
    }

    /// The offset of the first element in its storage, in elements.
    pub fn storage_offset(&self) -> i64 {
        let mut o = 0;
        unsafe { sys::ct_tensor_storage_offset(self.as_ptr(), &mut o) };
        o
    }

    /// The address of the first element (device memory for a device tensor); `Device` error for
    /// meta tensors. Valid while `self` lives.
    pub fn data_ptr(&self) -> Result<*mut std::ffi::c_void> {
        let mut p = ptr::null_mut();
        check(unsafe { sys::ct_tensor_data_ptr(self.as_ptr(), &mut p) })?;
        Ok(p)
    }

    // ---- reading elements ----

    /// The elements in row-major order, whatever the strides or device. `DType` error when `T`
    /// is not the tensor's element type (convert first with [`Tensor::to`]).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let dtype = self.kind();
        if dtype != T::DTYPE {
            return Err(Error::new(
                ErrorKind::DType,
                format!("Tensor::to_vec: the tensor holds {dtype}, not {}: call .to({}) first", T::DTYPE, T::DTYPE),
            ));
        }
        let n = self.numel() as usize;
        let mut v = vec![T::default(); n];
        check(unsafe { sys::ct_tensor_copy_to(self.as_ptr(), v.as_mut_ptr().cast(), n * dtype.itemsize()) })?;
        Ok(v)
    }

    /// The one element of a one-element tensor; `Shape` error otherwise.
    pub fn item(&self) -> Result<Scalar> {
        let mut s = sys::ct_scalar { kind: 0, i: 0, f: 0.0 };
        check(unsafe { sys::ct_tensor_item(self.as_ptr(), &mut s) })?;
        Ok(Scalar::from_c(&s))
    }

    /// The one element as a complex number, `(real, imaginary)` (imaginary 0 for a real dtype):
    /// [`item`](Self::item) refuses complex tensors, whose values a `Scalar` cannot hold.
    pub fn complex_value(&self) -> Result<(f64, f64)> {
        let (mut re, mut im) = (0.0, 0.0);
        check(unsafe { sys::ct_tensor_item_complex(self.as_ptr(), &mut re, &mut im) })?;
        Ok((re, im))
    }

    /// The one element as a float.
    pub fn double_value(&self) -> Result<f64> {
        self.item().map(Scalar::to_f64)
    }

    /// The one element as an integer.
    pub fn int64_value(&self) -> Result<i64> {
        self.item().map(Scalar::to_i64)
    }

    /// The tensor as PyTorch prints it: `tensor([[1., 2.],\n        [3., 4.]])`.
    pub fn to_string_checked(&self) -> Result<String> {
        let mut s = ptr::null_mut();
        check(unsafe { sys::ct_tensor_to_string(self.as_ptr(), &mut s) })?;
        Ok(take_string(s))
    }
}

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_string_checked() {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<tensor: {e}>"),
        }
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl<T: Element> From<&[T]> for Tensor {
    fn from(data: &[T]) -> Tensor {
        Tensor::from_slice(data)
    }
}

impl<T: Element> From<Vec<T>> for Tensor {
    fn from(data: Vec<T>) -> Tensor {
        Tensor::from_slice(&data)
    }
}

impl<T: Element, const N: usize> From<[T; N]> for Tensor {
    fn from(data: [T; N]) -> Tensor {
        Tensor::from_slice(&data)
    }
}

impl<T: Element> TryFrom<&Tensor> for Vec<T> {
    type Error = Error;
    fn try_from(t: &Tensor) -> Result<Vec<T>> {
        t.to_vec()
    }
}

impl<T: Element> TryFrom<Tensor> for Vec<T> {
    type Error = Error;
    fn try_from(t: Tensor) -> Result<Vec<T>> {
        t.to_vec()
    }
}

macro_rules! scalar_try_from {
    ($($t:ty => $conv:ident),*) => {$(
        impl TryFrom<&Tensor> for $t {
            type Error = Error;
            fn try_from(t: &Tensor) -> Result<$t> {
                Ok(t.item()?.$conv() as $t)
            }
        }
    )*};
}
scalar_try_from!(f64 => to_f64, f32 => to_f64, i64 => to_i64, i32 => to_i64);
