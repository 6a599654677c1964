//! What the C library refuses instead of crashing, as a Rust caller meets it: tensors on two
//! devices, read-only memory, a hook that runs backward through itself, numbers a dtype cannot
//! hold (docs/reliability.md).

use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use ctorch::{Device, ErrorKind, GradFlags, Tensor};
use ctorch::sys;

#[test]
fn a_cpu_tensor_with_a_meta_index_is_a_device_error() {
    let x = Tensor::zeros(&[3]).unwrap();
    let index = Tensor::from_data(&[0i64], &[1]).unwrap().to_device(Device::META).unwrap();
    let e = x.index_fill(0, &index, 1.0).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Device);
    assert!(e.message().contains("expected all tensors on one device, got cpu (self [3]) and meta (index [1])"), "{}", e.message());
    let e = x.add(&Tensor::zeros(&[3]).unwrap().to_device(Device::META).unwrap()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Device);
}

#[test]
fn read_only_memory_reads_but_refuses_writes() {
    static DATA: [f32; 3] = [1.0, 2.0, 3.0];
    let sizes = [3i64];
    let mut raw = std::ptr::null_mut();
    let st = unsafe {
        sys::ct_tensor_from_blob_v2(DATA.as_ptr() as *mut c_void, sizes.as_ptr(), std::ptr::null(), 1, sys::CT_FLOAT32,
                                    sys::CT_BLOB_READ_ONLY as u32, None, std::ptr::null_mut(), &mut raw)
    };
    assert_eq!(st, sys::CT_OK);
    let t = unsafe { Tensor::from_raw(raw) }.unwrap();
    assert!(t.is_read_only());
    assert_eq!(t.mul(&t).unwrap().to_vec::<f32>().unwrap(), vec![1.0, 4.0, 9.0]);
    let e = t.add_(&t).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("read-only"), "{}", e.message());
    let copy = t.deep_clone().unwrap();
    assert!(!copy.is_read_only());
    assert_eq!(DATA, [1.0, 2.0, 3.0]);
}

#[test]
fn a_hook_that_runs_backward_through_itself_stops_with_an_error() {
    let w = Tensor::from_data(&[1.0f32, 2.0], &[2]).unwrap().set_requires_grad(true).unwrap();
    let loss: Arc<Mutex<Option<Tensor>>> = Arc::new(Mutex::new(None));
    let seen = Arc::clone(&loss);
    w.register_hook(move |_| {
        let l = seen.lock().unwrap().clone().unwrap();
        l.backward_with(None, GradFlags::default().retain_graph(true))?;
        Ok(None)
    })
    .unwrap();
    let l = w.mul(&w).unwrap().sum().unwrap();
    *loss.lock().unwrap() = Some(l.clone());
    let e = l.backward_with(None, GradFlags::default().retain_graph(true)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("callbacks nest 32 deep"), "{}", e.message());
    *loss.lock().unwrap() = None; // the hook's closure held the graph through its captured loss
}

#[test]
fn a_number_its_dtype_cannot_hold_is_refused() {
    let e = Tensor::full_with(&[2], 300, Some(ctorch::DType::Int8), None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("cannot be converted to int8 without overflow"), "{}", e.message());
}
