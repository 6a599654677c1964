//! The crate declares every function of include/ctorch.h and of the generated header it includes,
//! include/ctorch_ops.h, and links the library the headers describe.

use std::collections::BTreeSet;
use std::ffi::CStr;

const HEADER: &str = include_str!("../../../../include/ctorch.h");
const OPS_HEADER: &str = include_str!("../../../../include/ctorch_ops.h");
const BINDINGS: &str = include_str!("../src/bindings.rs");
const LIB: &str = include_str!("../src/lib.rs");

/// Names of the functions a text declares: `CT_API ... ct_x(` in C, `fn ct_x(` in Rust.
fn declared(text: &str, marker: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for piece in text.split(marker).skip(1) {
        let head = &piece[..piece.find('(').unwrap_or(0)];
        if let Some(name) = head.split(|c: char| !(c.is_alphanumeric() || c == '_')).rfind(|w| w.starts_with("ct_"))
        {
            names.insert(name.to_string());
        }
    }
    names
}

#[test]
fn every_header_function_is_declared() {
    let mut in_header = declared(HEADER, "CT_API ");
    in_header.extend(declared(HEADER, "static inline void "));
    in_header.extend(declared(OPS_HEADER, "CT_API "));
    assert!(in_header.len() > 600, "the header scan found only {} functions", in_header.len());
    let mut in_crate = declared(BINDINGS, "pub fn ");
    in_crate.extend(declared(LIB, "pub unsafe fn "));
    let missing: Vec<_> = in_header.difference(&in_crate).collect();
    assert!(missing.is_empty(), "ctorch-sys lacks {missing:?}: run bindings/rust/gen_sys.py");
    let extra: Vec<_> = in_crate.difference(&in_header).collect();
    assert!(extra.is_empty(), "ctorch-sys declares {extra:?}, which the header no longer has");
}

#[test]
fn links_the_library_of_this_header() {
    unsafe {
        assert_eq!(ctorch_sys::ct_init(ctorch_sys::CT_ABI_VERSION), ctorch_sys::CT_OK);
        assert_eq!(ctorch_sys::ct_abi_version(), ctorch_sys::CT_ABI_VERSION);
        let version = CStr::from_ptr(ctorch_sys::ct_version()).to_str().unwrap();
        assert_eq!(version, ctorch_sys::CT_VERSION_STRING);
    }
}

#[test]
fn structs_have_the_c_layout() {
    // Offsets the header fixes: ct_value is read by the library field by field.
    assert_eq!(std::mem::size_of::<ctorch_sys::ct_value>(), 64);
    assert_eq!(std::mem::size_of::<ctorch_sys::ct_scalar>(), 24);
    assert_eq!(std::mem::size_of::<ctorch_sys::ct_conv2d_options>(), 64);
    assert_eq!(std::mem::size_of::<ctorch_sys::ct_backend>(), 48);
}

#[test]
fn a_tensor_round_trips_through_raw_calls() {
    use ctorch_sys::*;
    unsafe {
        let data = [1.0f32, 2.0, 3.0, 4.0];
        let sizes = [2i64, 2];
        let mut a = std::ptr::null_mut();
        assert_eq!(ct_tensor_from_data(data.as_ptr().cast(), sizes.as_ptr(), 2, CT_FLOAT32, &mut a), CT_OK);
        let mut sum = std::ptr::null_mut();
        assert_eq!(ct_tensor_add(a, a, &mut sum), CT_OK);
        let mut back = [0.0f32; 4];
        assert_eq!(ct_tensor_copy_to(sum, back.as_mut_ptr().cast(), 16), CT_OK);
        assert_eq!(back, [2.0, 4.0, 6.0, 8.0]);
        let mut bad = std::ptr::null_mut();
        assert_eq!(ct_tensor_add(a, std::ptr::null(), &mut bad), CT_ERROR_INVALID_ARGUMENT);
        assert!(bad.is_null());
        assert!(!CStr::from_ptr(ct_last_error()).to_bytes().is_empty());
        ct_tensor_release(sum);
        ct_tensor_release(a);
    }
}
