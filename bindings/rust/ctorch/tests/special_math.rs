//! The elementwise math operators defined once by their element functions (docs/extending.md), called
//! through the crate's generated methods and checked against values worked out here: what this
//! checks is that each is reachable from Rust with its argument order, overloads and result dtype.

use std::f64::consts::PI;

use ctorch::{DType, Tensor};

fn f64s(data: &[f64]) -> Tensor {
    Tensor::from_slice(data)
}

fn close(got: &Tensor, want: &[f64]) {
    let got = got.to(DType::Float64).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= 1e-12 * w.abs().max(1.0);
        assert!(ok, "got {got:?}, want {want:?}");
    }
}

#[test]
fn binary_math() {
    let a = f64s(&[1.0, -2.0, 0.5]);
    let b = f64s(&[-3.0, 4.0, 0.25]);
    let each = |f: fn(f64, f64) -> f64| -> Vec<f64> { [(1.0, -3.0), (-2.0, 4.0), (0.5, 0.25)].iter().map(|&(x, y)| f(x, y)).collect() };
    close(&a.copysign(&b).unwrap(), &each(f64::copysign));
    close(&a.copysign_scalar(-1.0).unwrap(), &[-1.0, -2.0, -0.5]);
    close(&a.logaddexp(&b).unwrap(), &each(|x, y| (x.exp() + y.exp()).ln()));
    close(&a.logaddexp2(&b).unwrap(), &each(|x, y| (x.exp2() + y.exp2()).log2()));
    close(&a.hypot(&b).unwrap(), &each(f64::hypot));
    close(&a.fmax(&f64s(&[f64::NAN, 4.0, 0.0])).unwrap(), &[1.0, 4.0, 0.5]);
    close(&a.fmin(&f64s(&[f64::NAN, 4.0, 0.0])).unwrap(), &[1.0, -2.0, 0.0]);
    close(&a.heaviside(&f64s(&[7.0, 7.0, 7.0])).unwrap(), &[1.0, 0.0, 1.0]);
    close(&f64s(&[0.0]).heaviside(&f64s(&[0.5])).unwrap(), &[0.5]);
    close(&a.float_power(&b).unwrap(), &each(f64::powf));
    // float_power_ writes its float64 result into a float64 self, and refuses any other.
    let c = f64s(&[1.0, -2.0, 0.5]);
    c.float_power_(&b).unwrap();
    close(&c, &each(f64::powf));
    assert!(Tensor::from_slice(&[1.0f32, 2.0]).float_power_tensor_scalar_(2.0).is_err());
    close(&a.nextafter(&b).unwrap(), &[1.0 - f64::EPSILON / 2.0, -2.0 + 2.0 * f64::EPSILON, 0.5 - f64::EPSILON / 4.0]);
    // xlogy: 0 where x is 0, even against log(0); the scalar overloads on either side.
    let x = f64s(&[0.0, 2.0]);
    let y = f64s(&[0.0, 3.0]);
    close(&x.xlogy(&y).unwrap(), &[0.0, 2.0 * 3f64.ln()]);
    close(&x.xlogy_scalar_other(3.0).unwrap(), &[0.0, 2.0 * 3f64.ln()]);
    close(&Tensor::xlogy_scalar_self(2.0, &y).unwrap(), &[f64::NEG_INFINITY, 2.0 * 3f64.ln()]);
    // ldexp: x * 2^e, with an integer exponent tensor.
    close(&a.ldexp(&Tensor::from_slice(&[3i64, -1, 2])).unwrap(), &[8.0, -1.0, 2.0]);
}

#[test]
fn integer_math_keeps_integers() {
    let a = Tensor::from_slice(&[12i64, -18, 0, 7]);
    let b = Tensor::from_slice(&[18i64, 12, 5, 0]);
    let g = a.gcd(&b).unwrap();
    assert_eq!(g.kind(), DType::Int64);
    assert_eq!(g.to_vec::<i64>().unwrap(), vec![6, 6, 5, 7]);
    assert_eq!(a.lcm(&b).unwrap().to_vec::<i64>().unwrap(), vec![36, 36, 0, 0]);
}

#[test]
fn unary_math() {
    let x = f64s(&[0.0, 0.5, -1.5, 2.0]);
    close(&x.sinc().unwrap(), &[1.0, (PI * 0.5).sin() / (PI * 0.5), (PI * -1.5).sin() / (PI * -1.5), (PI * 2.0).sin() / (PI * 2.0)]);
    close(&x.deg2rad().unwrap(), &[0.0, 0.5 * PI / 180.0, -1.5 * PI / 180.0, 2.0 * PI / 180.0]);
    close(&x.rad2deg().unwrap(), &[0.0, 0.5 * 180.0 / PI, -1.5 * 180.0 / PI, 2.0 * 180.0 / PI]);
    close(&x.fix().unwrap(), &[0.0, 0.0, -1.0, 2.0]);
    let sign = f64s(&[-0.0, 0.0, -3.0, f64::NAN]).signbit().unwrap();
    assert_eq!(sign.kind(), DType::Bool);
    assert_eq!(sign.to_vec::<bool>().unwrap(), vec![true, false, true, false]);

    let pos = f64s(&[1.0, 2.0, 0.5]);
    close(&pos.lgamma().unwrap(), &[0.0, 0.0, PI.sqrt().ln()]);
    let euler = 0.577_215_664_901_532_9;
    close(&pos.digamma().unwrap(), &[-euler, 1.0 - euler, -euler - 2.0 * 2f64.ln()]);
    // polygamma(1, 1) = pi^2 / 6; polygamma(n, x) takes n first, as torch.polygamma does. Its series
    // is torch's, which is good to about 1e-9 (torch gives 1.6449340676383375 here too).
    let trigamma = Tensor::polygamma(1, &f64s(&[1.0])).unwrap().double_value().unwrap();
    assert!((trigamma - PI * PI / 6.0).abs() < 1e-8, "{trigamma}");
    close(&f64s(&[0.0]).i0().unwrap(), &[1.0]);
    close(&f64s(&[0.0]).special_i1().unwrap(), &[0.0]);
    close(&f64s(&[0.25, 0.5]).logit().unwrap(), &[(0.25f64 / 0.75).ln(), 0.0]);
    close(&f64s(&[0.0]).logit_with(Some(0.25)).unwrap(), &[(0.25f64 / 0.75).ln()]);
}

#[test]
fn frexp_returns_mantissa_and_exponent() {
    let (mantissa, exponent) = f64s(&[8.0, -0.75, 0.0]).frexp().unwrap();
    close(&mantissa, &[0.5, -0.75, 0.0]);
    assert_eq!(exponent.kind(), DType::Int32);
    assert_eq!(exponent.to_vec::<i32>().unwrap(), vec![4, 0, 0]);
}
