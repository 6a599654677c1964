//! Complex tensors through the crate: made from their parts, multiplied, read back as `f32` pairs
//! through `view_as_real`, one value as `(re, im)`, promotion, and the refusal of an order.

use ctorch::{DType, ErrorKind, Tensor};

fn z() -> Tensor {
    // [1+2i, 3-1i]
    Tensor::complex(&Tensor::from_slice(&[1f32, 3.0]), &Tensor::from_slice(&[2f32, -1.0])).unwrap()
}

#[test]
fn products_and_parts() {
    let z = z();
    assert_eq!(z.kind(), DType::Complex64);
    assert!(z.kind().is_complex() && !z.kind().is_floating_point());
    let zz = z.mul(&z).unwrap();
    // (1+2i)^2 = -3+4i, (3-i)^2 = 8-6i
    assert_eq!(zz.view_as_real().unwrap().to_vec::<f32>().unwrap(), vec![-3.0, 4.0, 8.0, -6.0]);
    assert_eq!(z.matmul(&z).unwrap().complex_value().unwrap(), (5.0, -2.0));
    let back = z.view_as_real().unwrap().view_as_complex().unwrap();
    assert_eq!(back.conj().unwrap().view_as_real().unwrap().to_vec::<f32>().unwrap(), vec![1.0, -2.0, 3.0, 1.0]);
    assert_eq!(z.abs().unwrap().kind(), DType::Float32);
}

#[test]
fn promotion_and_refusals() {
    assert_eq!(DType::Complex64.promote(DType::Float64), DType::Complex128);
    assert!(!DType::Complex64.can_cast(DType::Float64));
    let z = z();
    let e = z.lt(&z).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(e.message().contains("complex64"), "{}", e.message());
    let e = z.select(0, 0).unwrap().item().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(e.message().contains("ct_tensor_item_complex"), "{}", e.message());
}

#[test]
fn pointwise_math_on_complex_numbers() {
    // sin(1+i) = sin 1 cosh 1 + i cos 1 sinh 1; square(1+2i) = -3+4i; isfinite(inf+0i) is false.
    let one_plus_i = Tensor::complex(&Tensor::from_slice(&[1f64]), &Tensor::from_slice(&[1f64])).unwrap();
    let (re, im) = one_plus_i.sin().unwrap().select(0, 0).unwrap().complex_value().unwrap();
    assert!((re - 1f64.sin() * 1f64.cosh()).abs() < 1e-15 && (im - 1f64.cos() * 1f64.sinh()).abs() < 1e-15);
    assert_eq!(z().square().unwrap().view_as_real().unwrap().to_vec::<f32>().unwrap(), vec![-3.0, 4.0, 8.0, -6.0]);
    let inf = Tensor::complex(&Tensor::from_slice(&[f32::INFINITY, 1.0]), &Tensor::from_slice(&[0f32, 0.0])).unwrap();
    assert_eq!(inf.isfinite().unwrap().to_vec::<bool>().unwrap(), vec![false, true]);
    // 2^(1+i) = 2 (cos ln 2 + i sin ln 2); nan_to_num replaces each part on its own.
    let (re, im) = one_plus_i.exp2().unwrap().select(0, 0).unwrap().complex_value().unwrap();
    let ln2 = 2f64.ln();
    assert!((re - 2.0 * ln2.cos()).abs() < 1e-15 && (im - 2.0 * ln2.sin()).abs() < 1e-15);
    let parts = (Tensor::from_slice(&[f64::NAN, 1.0]), Tensor::from_slice(&[f64::INFINITY, -f64::INFINITY]));
    let odd = Tensor::complex(&parts.0, &parts.1).unwrap();
    let fixed = odd.nan_to_num_with(Some(1.0), Some(2.0), Some(-3.0)).unwrap();
    assert_eq!(fixed.view_as_real().unwrap().to_vec::<f64>().unwrap(), vec![1.0, 2.0, 1.0, -3.0]);
}

#[test]
fn powers_running_sums_and_norms() {
    // z = [1+2i, 3-i]: z^2 = [-3+4i, 8-6i]; cumsum = [1+2i, 4+i]; |z| = sqrt(5 + 10), real.
    let z = z();
    let squared = z.pow_scalar(2.0).unwrap();
    assert_eq!(squared.view_as_real().unwrap().to_vec::<f32>().unwrap(), vec![-3.0, 4.0, 8.0, -6.0]);
    let running = z.cumsum(0).unwrap();
    assert_eq!(running.view_as_real().unwrap().to_vec::<f32>().unwrap(), vec![1.0, 2.0, 4.0, 1.0]);
    let norm = z.linalg_vector_norm().unwrap();
    assert_eq!(norm.kind(), DType::Float32);
    assert!((norm.to_vec::<f32>().unwrap()[0] - 15f32.sqrt()).abs() < 1e-6);
}

#[test]
fn scatter_reduce_multiplies_complex_numbers() {
    // Both entries of z go to position 0: (1+2i)(1+2i)(3-i) = -5+15i; position 1 keeps 3-i. Complex
    // numbers have no order, so amax is refused.
    let z = z();
    let index = Tensor::from_slice(&[0i64, 0]);
    let p = z.scatter_reduce(0, &index, &z, "prod").unwrap();
    assert_eq!(p.view_as_real().unwrap().to_vec::<f32>().unwrap(), vec![-5.0, 15.0, 3.0, -1.0]);
    let e = z.scatter_reduce(0, &index, &z, "amax").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(e.message().contains("no order"), "{}", e.message());
}
