//! Reference-counted C handles as Rust types: one owned reference each, `Drop` releases it and
//! `Clone` retains another. Every such handle of the C ABI may be used, retained and released from
//! any thread, so they are `Send + Sync`.

/// Defines `$name`, owning one reference to a `$raw` handle, with `Drop`, `Clone`, `Send`,
/// `Sync`, `AsRef<Self>`, `as_ptr` and `make` (adopting the handle a C function writes).
macro_rules! ref_counted {
    ($(#[$doc:meta])* $name:ident, $raw:ty, $retain:path, $release:path) => {
        $(#[$doc])*
        pub struct $name {
            ptr: std::ptr::NonNull<$raw>,
        }

        // SAFETY: the C ABI's contract for its reference-counted handles (see the module comment).
        unsafe impl Send for $name {}
        unsafe impl Sync for $name {}

        impl Drop for $name {
            fn drop(&mut self) {
                // SAFETY: we own one reference.
                unsafe { $release(self.ptr.as_ptr()) }
            }
        }

        impl Clone for $name {
            fn clone(&self) -> $name {
                // SAFETY: self holds a live reference, so retaining cannot fail.
                let status = unsafe { $retain(self.ptr.as_ptr()) };
                assert_eq!(status, ctorch_sys::CT_OK, concat!(stringify!($retain), " failed on a live handle"));
                $name { ptr: self.ptr }
            }
        }

        impl AsRef<$name> for $name {
            fn as_ref(&self) -> &$name {
                self
            }
        }

        impl $name {
            /// The raw handle, borrowed for as long as `self` lives.
            pub fn as_ptr(&self) -> *mut $raw {
                self.ptr.as_ptr()
            }

            /// Runs a C function that writes one new reference to its last argument, and owns it.
            pub(crate) fn make(f: impl FnOnce(*mut *mut $raw) -> ctorch_sys::ct_status) -> crate::Result<$name> {
                let mut out = std::ptr::null_mut();
                crate::error::check(f(&mut out))?;
                std::ptr::NonNull::new(out).map(|ptr| $name { ptr }).ok_or_else(|| {
                    crate::Error::new(crate::ErrorKind::Internal, concat!("ctorch returned a NULL ", stringify!($name)))
                })
            }
        }
    };
}

pub(crate) use ref_counted;
