//! A sample of operators through the crate's generated methods against the same operators called
//! through the raw C ABI (ctorch-sys): the results must be bitwise equal, since both reach the same
//! kernels; what this checks is the binding's argument order, defaults, dtypes and ownership.

use std::ptr;

use ctorch::{sys, DType, Tensor};

/// Calls a C function that writes one tensor, and adopts it.
fn c_call(f: impl FnOnce(*mut *mut sys::ct_tensor) -> sys::ct_status) -> Tensor {
    let mut out = ptr::null_mut();
    assert_eq!(f(&mut out), sys::CT_OK, "{}", unsafe { std::ffi::CStr::from_ptr(sys::ct_last_error()) }.to_string_lossy());
    unsafe { Tensor::from_raw(out) }.unwrap()
}

fn same(a: &Tensor, b: &Tensor) {
    assert_eq!(a.size(), b.size());
    assert_eq!(a.kind(), b.kind());
    let (a, b) = (a.to(DType::Float64).unwrap(), b.to(DType::Float64).unwrap());
    let bits = |t: &Tensor| t.to_vec::<f64>().unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&a), bits(&b), "\n{a}\nvs\n{b}");
}

/// Deterministic inputs in [-2, 2) of the given sizes.
fn input(sizes: &[i64], salt: u64) -> Tensor {
    let n: i64 = sizes.iter().product();
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ salt;
    let data: Vec<f32> = (0..n)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
        })
        .collect();
    Tensor::from_data(&data, sizes).unwrap()
}

#[test]
fn unary_operators() {
    let x = input(&[3, 5], 1);
    let pos = (x.abs().unwrap() + 0.5).unwrap();
    macro_rules! unary {
        ($($m:ident => $c:ident on $t:ident),*) => {$(
            same(&$t.$m().unwrap(), &c_call(|o| unsafe { sys::$c($t.as_ptr(), o) }));
        )*};
    }
    unary!(exp => ct_tensor_exp on x, abs => ct_tensor_abs on x, neg => ct_tensor_neg on x,
           relu => ct_tensor_relu on x, sigmoid => ct_tensor_sigmoid on x, tanh => ct_tensor_tanh on x,
           sin => ct_tensor_sin on x, cos => ct_tensor_cos on x, erf => ct_tensor_erf on x,
           floor => ct_tensor_floor on x, square => ct_tensor_square on x, log => ct_tensor_log on pos,
           sqrt => ct_tensor_sqrt on pos, rsqrt => ct_tensor_rsqrt on pos, silu => ct_tensor_silu on x,
           mish => ct_tensor_mish on x,
           // other names of operators (Registry::alias): the same kernels
           absolute => ct_tensor_abs on x, negative => ct_tensor_neg on x, fix => ct_tensor_trunc on x);
    let tanh_gelu = c"tanh";
    same(&x.gelu_with("tanh").unwrap(), &c_call(|o| unsafe { sys::ct_tensor_gelu(x.as_ptr(), tanh_gelu.as_ptr(), o) }));
    same(&x.leaky_relu_with(0.2).unwrap(), &c_call(|o| unsafe { sys::ct_tensor_leaky_relu(x.as_ptr(), 0.2, o) }));
    // relu's gradient: a generated associated function, as its first argument is not `self`.
    let g = input(&[3, 5], 7);
    let quarter = sys::ct_scalar { kind: sys::CT_SCALAR_FLOAT, i: 0, f: 0.25 };
    same(&Tensor::threshold_backward(&g, &x, 0.25).unwrap(),
         &c_call(|o| unsafe { sys::ct_tensor_threshold_backward(g.as_ptr(), x.as_ptr(), &quarter, o) }));
    let picked = Tensor::threshold_backward(&Tensor::from_slice(&[5.0f32, 6.0, 7.0]), &Tensor::from_slice(&[-1.0f32, 0.25, 3.0]), 0.25)
        .unwrap();
    assert_eq!(picked.to_vec::<f32>().unwrap(), vec![0.0, 0.0, 7.0]);
}

#[test]
fn binary_operators_broadcast() {
    let a = input(&[4, 1, 3], 2);
    let b = input(&[2, 3], 3);
    macro_rules! binary {
        ($($m:ident => $c:ident),*) => {$(
            same(&a.$m(&b).unwrap(), &c_call(|o| unsafe { sys::$c(a.as_ptr(), b.as_ptr(), o) }));
        )*};
    }
    binary!(add => ct_tensor_add, sub => ct_tensor_sub, mul => ct_tensor_mul, div => ct_tensor_div,
            maximum => ct_tensor_maximum, minimum => ct_tensor_minimum, atan2 => ct_tensor_atan2);
    let cond = a.gt_scalar(0.0).unwrap();
    same(&Tensor::where_self(&cond, &a, &b).unwrap(),
         &c_call(|o| unsafe { sys::ct_tensor_where(cond.as_ptr(), a.as_ptr(), b.as_ptr(), o) }));
}

#[test]
fn reductions_and_normalization() {
    let x = input(&[4, 6], 4);
    let dims = [1i64];
    same(&x.sum().unwrap(), &c_call(|o| unsafe { sys::ct_tensor_sum(x.as_ptr(), ptr::null(), 0, 0, o) }));
    same(&x.sum_with(Some(&dims), true).unwrap(), &c_call(|o| unsafe { sys::ct_tensor_sum(x.as_ptr(), dims.as_ptr(), 1, 1, o) }));
    same(&x.mean_with(Some(&dims), false).unwrap(),
         &c_call(|o| unsafe { sys::ct_tensor_mean(x.as_ptr(), dims.as_ptr(), 1, 0, o) }));
    same(&x.amax_with(Some(&dims), false).unwrap(), &c_call(|o| unsafe { sys::ct_tensor_amax(x.as_ptr(), dims.as_ptr(), 1, 0, o) }));
    same(&x.softmax(1).unwrap(), &c_call(|o| unsafe { sys::ct_tensor_softmax(x.as_ptr(), 1, ptr::null(), o) }));
    same(&x.log_softmax(0).unwrap(), &c_call(|o| unsafe { sys::ct_tensor_log_softmax(x.as_ptr(), 0, ptr::null(), o) }));
    same(&x.cumsum(1).unwrap(), &c_call(|o| unsafe { sys::ct_tensor_cumsum(x.as_ptr(), 1, ptr::null(), o) }));
    let shape = [6i64];
    same(&Tensor::layer_norm(&x, &shape).unwrap(), &c_call(|o| unsafe {
        sys::ct_tensor_layer_norm(x.as_ptr(), shape.as_ptr(), 1, ptr::null(), ptr::null(), 1e-5, o)
    }));
    let (values, indices) = x.sort_with(1, true).unwrap();
    let (mut v, mut i) = (ptr::null_mut(), ptr::null_mut());
    assert_eq!(unsafe { sys::ct_tensor_sort(x.as_ptr(), 1, 1, &mut v, &mut i) }, sys::CT_OK);
    same(&values, &unsafe { Tensor::from_raw(v) }.unwrap());
    same(&indices, &unsafe { Tensor::from_raw(i) }.unwrap());
}

#[test]
fn linear_algebra_shapes_and_convolution() {
    let a = input(&[3, 4], 5);
    let b = input(&[4, 2], 6);
    same(&a.matmul(&b).unwrap(), &c_call(|o| unsafe { sys::ct_tensor_matmul(a.as_ptr(), b.as_ptr(), o) }));
    same(&a.transpose(0, 1).unwrap(), &c_call(|o| unsafe { sys::ct_tensor_transpose(a.as_ptr(), 0, 1, o) }));
    let parts = [a.as_ptr() as *const _, a.as_ptr() as *const _];
    same(&Tensor::cat_with(&[&a, &a], 1).unwrap(), &c_call(|o| unsafe { sys::ct_tensor_cat(parts.as_ptr(), 2, 1, o) }));
    let image = input(&[1, 2, 5, 5], 7);
    let weight = input(&[3, 2, 3, 3], 8);
    let bias = input(&[3], 9);
    let options = sys::ct_conv2d_options {
        struct_size: std::mem::size_of::<sys::ct_conv2d_options>() as u32,
        stride: [2, 1],
        padding: [1, 0],
        dilation: [1, 1],
        groups: 1,
    };
    same(&Tensor::conv2d_with(&image, &weight, Some(&bias), &[2, 1], &[1, 0], &[1, 1], 1).unwrap(),
         &c_call(|o| unsafe { sys::ct_tensor_conv2d(image.as_ptr(), weight.as_ptr(), bias.as_ptr(), &options, o) }));
}
