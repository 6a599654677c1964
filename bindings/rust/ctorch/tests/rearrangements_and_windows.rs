//! Rearranging and combining tensors (rot90, diagflat, the view scatters, unfold, block_diag,
//! cartesian_prod, combinations), products (inner, addr, cross, vander), selections (nanmedian,
//! isin) and the signal windows, through the crate's generated methods, checked against values
//! worked out here (their numbers against torch are the Python differential suite's).

use ctorch::{DType, Tensor};

fn vals(t: &Tensor) -> Vec<f64> {
    t.to(DType::Float64).unwrap().to_vec::<f64>().unwrap()
}

fn close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() < 1e-6, "{a:?} vs {b:?}");
    }
}

fn matrix() -> Tensor {
    Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0]).reshape(&[2, 2]).unwrap()
}

#[test]
fn rotations_diagonals_and_scatters() {
    let m = matrix();
    close(&vals(&m.rot90().unwrap()), &[2.0, 4.0, 1.0, 3.0]);
    close(&vals(&m.rot90_with(2, &[0, 1]).unwrap()), &[4.0, 3.0, 2.0, 1.0]);
    assert!(m.rot90_with(1, &[0, 0]).is_err());
    let d = Tensor::from_slice(&[5.0f32, 6.0]).diagflat_with(1).unwrap();
    assert_eq!(d.size(), [3, 3]);
    close(&vals(&d), &[0.0, 5.0, 0.0, 0.0, 0.0, 6.0, 0.0, 0.0, 0.0]);
    let s = m.slice_scatter_with(&Tensor::zeros(&[2, 1]).unwrap(), 1, Some(1), None, 1).unwrap();
    close(&vals(&s), &[1.0, 0.0, 3.0, 0.0]);
    let err = m.slice_scatter_with(&Tensor::zeros(&[2, 2]).unwrap(), 1, Some(1), None, 1).unwrap_err();
    assert!(err.to_string().contains("slice_scatter"), "{err}");
    let windows = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0]).unfold(0, 2, 2).unwrap();
    assert_eq!(windows.size(), [2, 2]);
    close(&vals(&windows), &[1.0, 2.0, 3.0, 4.0]);
}

#[test]
fn blocks_products_and_combinations() {
    let b = Tensor::block_diag(&[matrix(), Tensor::from_slice(&[7.0f32])]).unwrap();
    assert_eq!(b.size(), [3, 3]);
    close(&vals(&b), &[1.0, 2.0, 0.0, 3.0, 4.0, 0.0, 0.0, 0.0, 7.0]);
    let pairs = Tensor::cartesian_prod(&[Tensor::from_slice(&[1i64, 2]), Tensor::from_slice(&[3i64, 4])]).unwrap();
    close(&vals(&pairs), &[1.0, 3.0, 1.0, 4.0, 2.0, 3.0, 2.0, 4.0]);
    let c = Tensor::from_slice(&[1i64, 2, 3]).combinations().unwrap();
    close(&vals(&c), &[1.0, 2.0, 1.0, 3.0, 2.0, 3.0]);
    let x = Tensor::from_slice(&[1.0f64, 0.0, 0.0]);
    let y = Tensor::from_slice(&[0.0f64, 1.0, 0.0]);
    close(&vals(&x.cross(&y).unwrap()), &[0.0, 0.0, 1.0]);
    close(&vals(&x.inner(&y).unwrap()), &[0.0]);
    let v = Tensor::vander_with(&Tensor::from_slice(&[2.0f64, 3.0]), Some(3), false).unwrap();
    close(&vals(&v), &[4.0, 2.0, 1.0, 9.0, 3.0, 1.0]);
    let outer = Tensor::zeros(&[2, 2]).unwrap().addr(&Tensor::from_slice(&[1.0f32, 2.0]), &Tensor::from_slice(&[3.0f32, 4.0]));
    close(&vals(&outer.unwrap()), &[3.0, 4.0, 6.0, 8.0]);
}

#[test]
fn nan_median_membership_and_windows() {
    let x = Tensor::from_slice(&[f64::NAN, 3.0, 1.0, 2.0]);
    close(&vals(&x.nanmedian().unwrap()), &[2.0]);
    let (values, indices) = x.reshape(&[2, 2]).unwrap().nanmedian_dim(1).unwrap();
    close(&vals(&values), &[3.0, 1.0]);
    assert_eq!(indices.to_vec::<i64>().unwrap(), [1, 0]);
    let found = Tensor::isin(&Tensor::from_slice(&[1i64, 2, 3]), &Tensor::from_slice(&[3i64, 1])).unwrap();
    close(&vals(&found), &[1.0, 0.0, 1.0]);
    let hann = Tensor::hann_window_periodic(4, false).unwrap();
    close(&vals(&hann), &[0.0, 0.75, 0.75, 0.0]);
    assert!(Tensor::hann_window_with(4, Some(DType::Int64), None).is_err());
}
