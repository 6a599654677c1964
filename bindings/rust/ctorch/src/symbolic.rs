//! Symbolic shapes: the shape environment and symbolic numbers.

use std::ptr::NonNull;

use ctorch_sys as sys;

/// A symbolic integer: a concrete value or an expression over a shape environment's symbols.
pub struct SymInt {
    ptr: NonNull<sys::ct_symint>,
}

// SAFETY: handles of one env may be used from several threads (the env locks).
unsafe impl Send for SymInt {}
unsafe impl Sync for SymInt {}

impl SymInt {
    /// The raw handle, borrowed for as long as `self` lives.
    pub fn as_ptr(&self) -> *mut sys::ct_symint {
        self.ptr.as_ptr()
    }
}

impl Drop for SymInt {
    fn drop(&mut self) {
        unsafe { sys::ct_symint_release(self.ptr.as_ptr()) }
    }
}

impl std::fmt::Debug for SymInt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = std::ptr::null_mut();
        unsafe { sys::ct_symint_to_string(self.as_ptr(), &mut s) };
        f.write_str(&crate::error::take_string(s))
    }
}
