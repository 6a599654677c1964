//! The composite operators everyday torch code calls first, through the crate's generated methods:
//! max and min in their three forms, aminmax, nansum, isclose, fill_ and zero_, checked against
//! values worked out here (their numbers against torch are the Python differential suite's).

use ctorch::{DType, Tensor};

fn vals(t: &Tensor) -> Vec<f64> {
    t.to(DType::Float64).unwrap().to_vec::<f64>().unwrap()
}

#[test]
fn max_and_min_in_three_forms() {
    let a = Tensor::from_slice(&[1.0f32, 5.0, 2.0, 7.0, -1.0, 7.0]).reshape(&[2, 3]).unwrap();
    assert_eq!(vals(&a.max().unwrap()), [7.0]);
    assert_eq!(vals(&a.min().unwrap()), [-1.0]);
    let (values, indices) = a.max_dim(1).unwrap();
    assert_eq!(vals(&values), [5.0, 7.0]);
    assert_eq!(indices.to_vec::<i64>().unwrap(), [1, 0]); // ties: the first index
    let (values, _) = a.min_dim_with(0, true).unwrap();
    assert_eq!(values.size(), [1, 3]);
    let floor = Tensor::from_slice(&[2.0f32, 2.0, 2.0]);
    assert_eq!(vals(&a.max_other(&floor).unwrap()), [2.0, 5.0, 2.0, 7.0, 2.0, 7.0]);
    let (lo, hi) = a.aminmax().unwrap();
    assert_eq!((vals(&lo), vals(&hi)), (vec![-1.0], vec![7.0]));
    let empty = Tensor::from_slice::<f32>(&[]);
    let err = empty.max().unwrap_err();
    assert!(err.to_string().contains("max"), "{err}");
}

#[test]
fn nansum_and_isclose() {
    let n = Tensor::from_slice(&[f64::NAN, 1.0, 2.0, f64::NAN]).reshape(&[2, 2]).unwrap();
    assert_eq!(vals(&n.nansum().unwrap()), [3.0]);
    assert_eq!(vals(&n.nansum_with(Some(&[0]), false, None).unwrap()), [2.0, 1.0]);
    assert_eq!(vals(&n.nanmean_with(Some(&[1]), false, None).unwrap()), [1.0, 2.0]);
    let m = Tensor::from_slice(&[f64::NAN, 1.0 + 1e-9, 2.1, 0.0]).reshape(&[2, 2]).unwrap();
    assert_eq!(n.isclose(&m).unwrap().to_vec::<bool>().unwrap(), [false, true, false, false]);
    assert_eq!(n.isclose_with(&m, 1e-5, 1e-8, true).unwrap().to_vec::<bool>().unwrap(), [true, true, false, false]);
}

#[test]
fn fill_and_zero_write_in_place() {
    let t = Tensor::from_slice(&[1i32, 2, 3]);
    t.fill_scalar_(2.7).unwrap(); // truncated into int32, as torch
    assert_eq!(t.to_vec::<i32>().unwrap(), [2, 2, 2]);
    t.zero_().unwrap();
    assert_eq!(t.to_vec::<i32>().unwrap(), [0, 0, 0]);
    t.fill_(&Tensor::from_slice(&[9i64]).reshape(&[]).unwrap()).unwrap();
    assert_eq!(t.to_vec::<i32>().unwrap(), [9, 9, 9]);
    assert!(t.fill_(&Tensor::from_slice(&[1i32, 2])).is_err()); // the value must be 0-dim
}
