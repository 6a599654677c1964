//! Linear algebra on LAPACK through the crate's generated functions: solvers, inverses,
//! determinants and factorizations against values worked out here (their numbers against torch
//! are the Python differential suite's), and a singular matrix as `ErrorKind::LinAlg`.

use ctorch::{DType, ErrorKind, Tensor};

fn vals(t: &Tensor) -> Vec<f64> {
    t.to(DType::Float64).unwrap().to_vec::<f64>().unwrap()
}

fn close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() < 1e-12, "{a:?} vs {b:?}");
    }
}

fn matrix(v: &[f64], rows: i64, cols: i64) -> Tensor {
    Tensor::from_slice(v).reshape(&[rows, cols]).unwrap()
}

#[test]
fn solve_inverse_and_determinant() {
    // A = [[4, 1], [2, 3]]: det 10, A^-1 = [[0.3, -0.1], [-0.2, 0.4]], A [1, 1] = [5, 5].
    let a = matrix(&[4.0, 1.0, 2.0, 3.0], 2, 2);
    close(&vals(&Tensor::linalg_solve(&a, &matrix(&[5.0, 5.0], 2, 1)).unwrap()), &[1.0, 1.0]);
    close(&vals(&Tensor::linalg_inv(&a).unwrap()), &[0.3, -0.1, -0.2, 0.4]);
    close(&vals(&Tensor::linalg_det(&a).unwrap()), &[10.0]);
    let (sign, logabs) = Tensor::linalg_slogdet(&a).unwrap();
    close(&vals(&sign), &[1.0]);
    close(&vals(&logabs), &[10f64.ln()]);
}

#[test]
fn factorizations() {
    let spd = matrix(&[4.0, 2.0, 2.0, 5.0], 2, 2);
    close(&vals(&Tensor::linalg_cholesky(&spd).unwrap()), &[2.0, 0.0, 1.0, 2.0]);
    let (w, _v) = Tensor::linalg_eigh(&matrix(&[2.0, 1.0, 1.0, 2.0], 2, 2)).unwrap();
    close(&vals(&w), &[1.0, 3.0]);
    let (_u, s, _vh) = Tensor::linalg_svd(&matrix(&[3.0, 0.0, 0.0, -2.0], 2, 2)).unwrap();
    close(&vals(&s), &[3.0, 2.0]);
    let m = matrix(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 3, 2);
    let (q, r) = Tensor::linalg_qr(&m).unwrap();
    close(&vals(&q.matmul(&r).unwrap()), &vals(&m));
}

#[test]
fn randomized_low_rank_svd() {
    // A = [1, 2, 2]^T [2, 1] has rank 1: singular values 3 sqrt 5 and 0 whatever the random draw, and
    // U diag(S) V^T gives A back. pca_lowrank refuses a q above min(m, n).
    let a = matrix(&[2.0, 1.0, 4.0, 2.0, 4.0, 2.0], 3, 2);
    let (u, s, v) = Tensor::svd_lowrank_with(&a, Some(2), None, None).unwrap();
    close(&vals(&s), &[3.0 * 5f64.sqrt(), 0.0]);
    close(&vals(&u.mul(&s).unwrap().matmul(&v.transpose(0, 1).unwrap()).unwrap()), &vals(&a));
    let e = Tensor::pca_lowrank_with(&a, Some(3), true, 2).unwrap_err();
    assert!(e.to_string().contains("min(m, n) = 2"), "{e}");
}

#[test]
fn matrix_sqrth_and_polar() {
    close(&vals(&matrix(&[2.0, 0.0, 0.0, 9.0], 2, 2).linalg_matrix_sqrth().unwrap()), &[2f64.sqrt(), 0.0, 0.0, 3.0]);
    let (u, h) = Tensor::linalg_polar(&matrix(&[3.0, 0.0, 0.0, -2.0], 2, 2)).unwrap();
    close(&vals(&u), &[1.0, 0.0, 0.0, -1.0]);
    close(&vals(&h), &[3.0, 0.0, 0.0, 2.0]);
    let e = Tensor::linalg_polar(&matrix(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 2, 3)).unwrap_err();
    assert!(e.to_string().contains("at least as many rows as columns"), "{e}");
}

#[test]
fn ldl_solves_an_indefinite_system() {
    // [[1, 2], [2, 1]] (eigenvalues 3 and -1) x = [3, 3] at x = [1, 1].
    let a = matrix(&[1.0, 2.0, 2.0, 1.0], 2, 2);
    let (ld, pivots) = a.linalg_ldl_factor().unwrap();
    close(&vals(&Tensor::linalg_ldl_solve(&ld, &pivots, &matrix(&[3.0, 3.0], 2, 1)).unwrap()), &[1.0, 1.0]);
    assert_eq!(Tensor::linalg_cholesky(&a).unwrap_err().kind(), ErrorKind::LinAlg);
}

#[test]
fn least_squares_fits_a_line() {
    // y = 1 + 2 t at t = 0..3.
    let a = matrix(&[1.0, 0.0, 1.0, 1.0, 1.0, 2.0, 1.0, 3.0], 4, 2);
    let y = matrix(&[1.0, 3.0, 5.0, 7.0], 4, 1);
    let (x, _residuals, rank, _sv) = a.linalg_lstsq_with(&y, None, Some("gelsd")).unwrap();
    close(&vals(&x), &[1.0, 2.0]);
    assert_eq!(rank.to_vec::<i64>().unwrap(), [2]);
}

#[test]
fn singular_matrix_is_a_linalg_error() {
    let a = matrix(&[1.0, 2.0, 2.0, 4.0], 2, 2);
    let err = Tensor::linalg_inv(&a).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LinAlg);
    assert!(err.message().contains("singular"), "{err}");
    let (_inv, info) = Tensor::linalg_inv_ex(&a).unwrap();
    assert_eq!(info.to_vec::<i32>().unwrap(), [2]);
    let ints = Tensor::from_slice(&[1i64, 0, 0, 1]).reshape(&[2, 2]).unwrap();
    assert_eq!(Tensor::linalg_det(&ints).unwrap_err().kind(), ErrorKind::DType);
}

#[test]
fn eig_of_a_general_matrix_is_complex() {
    // A rotation by 90 degrees: eigenvalues i and -i, the positive imaginary part first.
    let a = matrix(&[0.0, -1.0, 1.0, 0.0], 2, 2);
    let (l, v) = Tensor::linalg_eig(&a).unwrap();
    assert_eq!(l.kind(), DType::Complex128);
    close(&l.view_as_real().unwrap().to_vec::<f64>().unwrap(), &[0.0, 1.0, 0.0, -1.0]);
    // A V = V diag(L)
    let av = a.to(DType::Complex128).unwrap().matmul(&v).unwrap();
    let vl = v.mul(&l).unwrap();
    let residual = av.sub(&vl).unwrap().abs().unwrap().amax().unwrap();
    assert!(vals(&residual)[0] < 1e-15);
    let values = Tensor::linalg_eigvals(&a).unwrap();
    close(&values.view_as_real().unwrap().to_vec::<f64>().unwrap(), &[0.0, 1.0, 0.0, -1.0]);
    let nan = matrix(&[1.0, f64::NAN, 0.0, 1.0], 2, 2);
    let err = Tensor::linalg_eig(&nan).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.message().contains("infs or NaNs"), "{err}");
}

#[test]
fn complex_solve_and_determinant() {
    // B = [[2, i], [i, 1]]: det 3; B [1, 1] = [2 + i, 1 + i].
    let b = Tensor::complex(&matrix(&[2.0, 0.0, 0.0, 1.0], 2, 2), &matrix(&[0.0, 1.0, 1.0, 0.0], 2, 2)).unwrap();
    let rhs = Tensor::complex(&Tensor::from_slice(&[2.0f64, 1.0]), &Tensor::from_slice(&[1.0f64, 1.0])).unwrap();
    close(&Tensor::linalg_det(&b).unwrap().view_as_real().unwrap().to_vec::<f64>().unwrap(), &[3.0, 0.0]);
    let x = Tensor::linalg_solve(&b, &rhs).unwrap();
    close(&x.view_as_real().unwrap().to_vec::<f64>().unwrap(), &[1.0, 0.0, 1.0, 0.0]);
}
