//! torch.fft through the crate: the spectrum of a ramp, a round trip at a prime length, a 2-D
//! transform with a norm, the sample frequencies and shifts, a gradient, and the refusals.

use ctorch::{DType, ErrorKind, Tensor};

fn parts(t: &Tensor) -> Vec<f64> {
    t.view_as_real().unwrap().to_vec::<f64>().unwrap()
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

#[test]
fn spectrum_of_a_ramp() {
    let x = Tensor::from_slice(&[1f64, 2.0, 3.0, 4.0]);
    let h = x.fft_rfft().unwrap();
    assert_eq!(h.kind(), DType::Complex128);
    assert!(close(&parts(&h), &[10.0, 0.0, -2.0, 2.0, -2.0, 0.0], 1e-15));
    let o = x.fft_rfft_with(None, -1, Some("ortho")).unwrap();
    assert!(close(&parts(&o), &[5.0, 0.0, -1.0, 1.0, -1.0, 0.0], 1e-15));
    let back = h.fft_irfft_with(Some(4), -1, None).unwrap();
    assert!(close(&back.to_vec::<f64>().unwrap(), &[1.0, 2.0, 3.0, 4.0], 1e-15));
}

#[test]
fn round_trip_at_a_prime_length() {
    let n = 101i64; // Bluestein's convolution
    let x = Tensor::randn_with(&[2, n], Some(DType::Float64), None).unwrap();
    let f = x.fft_fft_with(None, -1, Some("forward")).unwrap();
    let b = f.fft_ifft_with(None, -1, Some("forward")).unwrap();
    let real = b.real().unwrap().to_vec::<f64>().unwrap();
    assert!(close(&real, &x.to_vec::<f64>().unwrap(), 1e-13));
}

#[test]
fn two_dims_frequencies_and_shifts() {
    let img = Tensor::from_slice(&[1f32, 2.0, 3.0, 4.0]).reshape(&[2, 2]).unwrap();
    let f = img.fft_fft2_with(None, &[-2, -1], Some("ortho")).unwrap();
    let p: Vec<f32> = f.view_as_real().unwrap().to_vec::<f32>().unwrap();
    assert_eq!(p, vec![5.0, 0.0, -1.0, 0.0, -2.0, 0.0, 0.0, 0.0]);
    let freq = Tensor::fft_fftfreq_with(5, 0.5, Some(DType::Float64), None).unwrap();
    assert!(close(&freq.to_vec::<f64>().unwrap(), &[0.0, 0.4, 0.8, -0.8, -0.4], 1e-15));
    let shifted = Tensor::from_slice(&[0i64, 1, 2, -2, -1]).fft_fftshift().unwrap();
    assert_eq!(shifted.to_vec::<i64>().unwrap(), vec![-2, -1, 0, 1, 2]);
}

#[test]
fn gradient_of_a_spectrum_energy() {
    // sum |rfft(x)|^2 over the half spectrum of 4 points: d/dx is 2 (F^T F x) restricted, which for
    // x = e0 gives [2, 2, 2, 2] + the doubled middle terms: checked against its closed form below.
    let x = Tensor::from_slice(&[1f64, 0.0, 0.0, 0.0]).set_requires_grad(true).unwrap();
    let e = x.fft_rfft().unwrap().abs().unwrap().pow_scalar(2.0).unwrap().sum().unwrap();
    e.backward().unwrap();
    // |X_k|^2 = 1 for every k of 0..=2; dE/dx_j = sum_k 2 Re(conj(X_k) e^{-2 pi i jk/4}) = 2 (1 + cos(pi j / 2) + cos(pi j))
    let want = [6.0, 0.0, 2.0, 0.0];
    assert!(close(&x.grad().unwrap().to_vec::<f64>().unwrap(), &want, 1e-14));
}

#[test]
fn refusals_name_the_function() {
    let z = Tensor::from_slice(&[1f64, 2.0]).fft_fft().unwrap();
    let e = z.fft_rfft().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(e.message().contains("fft_rfft"), "{}", e.message());
    let e = Tensor::from_slice(&[1f32, 2.0]).fft_fft_with(Some(0), -1, None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("Invalid number of data points"), "{}", e.message());
    let e = Tensor::from_slice(&[1f32, 2.0]).fft_fft_with(None, -1, Some("half")).unwrap_err();
    assert!(e.message().contains("Invalid normalization mode"), "{}", e.message());
}

#[test]
fn stft_of_a_cosine_and_back() {
    // cos(pi n / 2) in frames of 8 (hop 8, no centering, no window): 4 at frequency 2 in each frame.
    let x = Tensor::from_slice(&(0..16).map(|n| (std::f64::consts::FRAC_PI_2 * n as f64).cos()).collect::<Vec<_>>());
    let s = x.stft_with(8, Some(8), None, None, false, "reflect", false, None, Some(true)).unwrap();
    assert_eq!(s.size(), vec![5, 2]);
    let mut want = vec![0.0; 20];
    (want[8], want[10]) = (4.0, 4.0);
    assert!(close(&parts(&s), &want, 1e-13), "{:?}", parts(&s)); // cos(pi n / 2) is 0 within 1e-15
    let y = s.istft_with(8, Some(8), None, None, false, false, None, Some(16), false).unwrap();
    assert!(close(&y.to_vec::<f64>().unwrap(), &x.to_vec::<f64>().unwrap(), 1e-13));
    // A real signal must say whether the result is complex, as torch requires.
    let e = x.stft(8).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    assert!(e.message().contains("return_complex"), "{e}");
}
