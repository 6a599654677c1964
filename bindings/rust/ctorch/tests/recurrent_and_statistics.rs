//! The recurrent operators (lstm, gru, the cells) and the statistics and search functions
//! (quantile, bincount, histc, cov, searchsorted, bucketize, repeat_interleave) through the
//! crate's generated methods, checked against values worked out here (their numbers against torch
//! are the Python differential suite's).

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

#[test]
fn lstm_over_two_steps() {
    // Zero weights: every gate is sigmoid(0) = 0.5 and the candidate tanh(0) = 0, so each step
    // halves the cell (c = 0.5 c) and h = 0.5 tanh(c).
    let x = Tensor::zeros(&[2, 1, 1]).unwrap();
    let h0 = Tensor::zeros(&[1, 1, 1]).unwrap();
    let c0 = Tensor::ones(&[1, 1, 1]).unwrap();
    let params = [Tensor::zeros(&[4, 1]).unwrap(), Tensor::zeros(&[4, 1]).unwrap(), Tensor::zeros(&[4]).unwrap(),
                  Tensor::zeros(&[4]).unwrap()];
    let (out, h, c) = Tensor::lstm(&x, &[&h0, &c0], &params, true, 1, 0.0, false, false, false).unwrap();
    assert_eq!(out.size(), [2, 1, 1]);
    close(&vals(&out), &[0.5 * 0.5f64.tanh(), 0.5 * 0.25f64.tanh()]);
    close(&vals(&h), &[0.5 * 0.25f64.tanh()]);
    close(&vals(&c), &[0.25]);
    let (h1, c1) = Tensor::lstm_cell_with(&Tensor::zeros(&[1, 1]).unwrap(), &[Tensor::zeros(&[1, 1]).unwrap(),
                                          Tensor::ones(&[1, 1]).unwrap()], &params[0], &params[1], Some(&params[2]),
                                          Some(&params[3])).unwrap();
    close(&vals(&h1), &[0.5 * 0.5f64.tanh()]);
    close(&vals(&c1), &[0.5]);
    let err = Tensor::lstm(&x, &[&h0, &c0], &params, true, 2, 0.0, false, false, false).unwrap_err();
    assert!(err.to_string().contains("params"), "{err}");
}

#[test]
fn gru_keeps_the_state_when_z_is_one() {
    // A large update-gate bias makes z = 1: h' = (h - n) z + n = h.
    let mut b_ih = vec![0.0f32; 3];
    b_ih[1] = 50.0;
    let h = Tensor::from_slice(&[0.75f32]).reshape(&[1, 1]).unwrap();
    let out = Tensor::gru_cell_with(&Tensor::ones(&[1, 1]).unwrap(), &h, &Tensor::ones(&[3, 1]).unwrap(),
                                    &Tensor::ones(&[3, 1]).unwrap(), Some(&Tensor::from_slice(&b_ih)), None)
        .unwrap();
    close(&vals(&out), &[0.75]);
}

#[test]
fn quantiles_counts_and_search() {
    let x = Tensor::from_slice(&[4.0f64, 1.0, 3.0, 2.0]);
    close(&vals(&x.quantile_scalar(0.5).unwrap()), &[2.5]);
    close(&vals(&x.quantile_scalar_with(0.5, None, false, "lower").unwrap()), &[2.0]);
    assert!(x.quantile_scalar(1.5).is_err());
    let counts = Tensor::from_slice(&[0i64, 2, 2]).bincount().unwrap();
    assert_eq!(counts.to_vec::<i64>().unwrap(), [1, 0, 2]);
    close(&vals(&Tensor::from_slice(&[0.5f32, 1.5, 1.5, 9.0]).histc_with(2, 0.0, 2.0).unwrap()), &[1.0, 2.0]);
    let seq = Tensor::from_slice(&[1i64, 3, 5]);
    let v = Tensor::from_slice(&[3i64, 6]);
    assert_eq!(Tensor::searchsorted(&seq, &v).unwrap().to_vec::<i64>().unwrap(), [1, 3]);
    let right = Tensor::searchsorted_with(&seq, &v, false, false, Some("right"), None).unwrap();
    assert_eq!(right.to_vec::<i64>().unwrap(), [2, 3]);
    assert_eq!(v.bucketize(&seq).unwrap().to_vec::<i64>().unwrap(), [1, 3]);
    let rows = Tensor::from_slice(&[1.0f64, 2.0, 3.0, 2.0, 4.0, 6.0]).reshape(&[2, 3]).unwrap();
    close(&vals(&rows.cov().unwrap()), &[1.0, 2.0, 2.0, 4.0]);
    close(&vals(&rows.corrcoef().unwrap()), &[1.0, 1.0, 1.0, 1.0]);
    let r = Tensor::from_slice(&[1i64, 2]).repeat_interleave_self_int(2).unwrap();
    assert_eq!(r.to_vec::<i64>().unwrap(), [1, 1, 2, 2]);
}

#[test]
fn matrix_power_and_matrix_exp() {
    // [[1, 1], [0, 1]]^n = [[1, n], [0, 1]]; exp of the nilpotent [[0, 2], [0, 0]] is I + N.
    let a = Tensor::from_slice(&[1.0f64, 1.0, 0.0, 1.0]).reshape(&[2, 2]).unwrap();
    close(&vals(&a.matrix_power(7).unwrap()), &[1.0, 7.0, 0.0, 1.0]);
    let n = Tensor::from_slice(&[0.0f64, 2.0, 0.0, 0.0]).reshape(&[2, 2]).unwrap();
    close(&vals(&n.matrix_exp().unwrap()), &[1.0, 2.0, 0.0, 1.0]);
    close(&vals(&a.matrix_power(-2).unwrap()), &[1.0, -2.0, 0.0, 1.0]); // the inverse's power
}

#[test]
fn poisson_and_binomial_draw_whole_counts_in_range() {
    let rate = Tensor::full(&[5000], 20.0).unwrap();
    let x = vals(&rate.poisson().unwrap());
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    assert!(x.iter().all(|v| *v >= 0.0 && v.fract() == 0.0) && (mean - 20.0).abs() < 0.4, "{mean}");
    let b = vals(&Tensor::binomial(&Tensor::full(&[5000], 12.0).unwrap(), &Tensor::full(&[1], 0.25).unwrap()).unwrap());
    assert!(b.iter().all(|v| (0.0..=12.0).contains(v) && v.fract() == 0.0));
    assert!(Tensor::from_slice(&[-1.0f32]).poisson().is_err());
}
