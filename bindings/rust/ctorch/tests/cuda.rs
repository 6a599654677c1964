//! CUDA: without a GPU every entry point says so; with one, tensors round-trip and compute.

use ctorch::{cuda, DType, Device, DeviceType, ErrorKind, Tensor};

#[test]
fn device_count_agrees_with_the_features() {
    assert_eq!(cuda::is_available(), cuda::device_count() > 0);
    assert_eq!(cuda::is_available(), ctorch::has_feature("cuda"));
    cuda::empty_cache().unwrap();
}

#[test]
fn no_gpu_errors_say_why() {
    if cuda::is_available() {
        return;
    }
    // Each message says that CUDA has no device, then why (no library, driver or GPU).
    let says_why = |e: ctorch::Error| {
        assert_eq!(e.kind(), ErrorKind::Device, "{e}");
        assert!(e.message().to_lowercase().contains("no cuda device"), "{e}");
    };
    says_why(Tensor::zeros_with(&[2], Some(DType::Float32), Some(Device::cuda(0))).unwrap_err());
    let x = Tensor::from_slice(&[1.0f32, 2.0]);
    says_why(x.cuda().unwrap_err());
    says_why(x.to_device(Device::cuda(0)).unwrap_err());
    says_why(cuda::synchronize(0).unwrap_err());
    says_why(x.pin_memory().unwrap_err());
    assert!(!x.is_pinned().unwrap());
}

#[test]
fn synchronize_refuses_a_missing_device() {
    let past_the_end = i32::try_from(cuda::device_count()).unwrap();
    for device in [past_the_end, -1] {
        let e = cuda::synchronize(device).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Device, "{device}: {e}");
    }
}

#[test]
fn cpu_of_a_cpu_tensor_is_itself() {
    let x = Tensor::from_slice(&[1i64, 2, 3]);
    assert_eq!(x.cpu().unwrap().as_ptr(), x.as_ptr());
}

#[test]
fn meta_round_trip_errors() {
    let x = Tensor::from_data(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let m = x.to_device(Device::META).unwrap();
    assert_eq!((m.device(), m.size(), m.dtype()), (Device::META, vec![2, 2], DType::Float32));
    let e = m.cpu().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Device, "{e}");
    assert!(e.message().contains("meta"), "{e}");
    assert_eq!(m.to_vec::<f32>().unwrap_err().kind(), ErrorKind::Device);
    assert_eq!(m.pin_memory().unwrap_err().kind(), ErrorKind::Device);
}

#[test]
fn gpu_round_trip_and_matmul() {
    if !cuda::is_available() {
        return;
    }
    let a = Tensor::from_data(&(0..12).map(|v| v as f32 * 0.25).collect::<Vec<_>>(), &[3, 4]).unwrap();
    let b = Tensor::from_data(&(0..8).map(|v| 1.0 - v as f32 * 0.5).collect::<Vec<_>>(), &[4, 2]).unwrap();
    let ga = a.cuda().unwrap();
    assert_eq!(ga.device().kind, DeviceType::Cuda);
    assert_eq!(ga.cuda().unwrap().as_ptr(), ga.as_ptr(), "cuda() of a cuda tensor is itself");
    assert_eq!(ga.cpu().unwrap().to_vec::<f32>().unwrap(), a.to_vec::<f32>().unwrap());

    let on_gpu = ga.matmul(&b.to_device(Device::cuda(0)).unwrap()).unwrap();
    cuda::synchronize(0).unwrap();
    let expected = a.matmul(&b).unwrap().to_vec::<f32>().unwrap();
    let got = on_gpu.cpu().unwrap().to_vec::<f32>().unwrap();
    for (g, e) in got.iter().zip(&expected) {
        assert!((g - e).abs() <= 1e-4 * e.abs().max(1.0), "{got:?} vs {expected:?}");
    }

    let pinned = a.pin_memory().unwrap();
    assert!(pinned.is_pinned().unwrap());
    assert!(!a.is_pinned().unwrap());
    assert_eq!(pinned.pin_memory().unwrap().as_ptr(), pinned.as_ptr(), "pinned already: itself");
    assert_eq!(pinned.cuda().unwrap().cpu().unwrap().to_vec::<f32>().unwrap(), a.to_vec::<f32>().unwrap());
    assert_eq!(ga.pin_memory().unwrap_err().kind(), ErrorKind::Device);
    drop((ga, on_gpu));
    cuda::empty_cache().unwrap();
}

#[test]
fn gpu_linalg_matches_the_cpu() {
    if !cuda::is_available() {
        return;
    }
    // A = [[4, 1], [2, 3]]: cuSOLVER's LU, Cholesky (of A A^T) and SVD against LAPACK's.
    let a = Tensor::from_data(&[4.0f64, 1.0, 2.0, 3.0], &[2, 2]).unwrap();
    let b = Tensor::from_data(&[5.0f64, 5.0], &[2, 1]).unwrap();
    let ga = a.cuda().unwrap();
    let gb = b.cuda().unwrap();
    let spd = a.matmul(&a.transpose(0, 1).unwrap()).unwrap();
    let close = |got: &Tensor, want: &Tensor| {
        let (g, w) = (got.cpu().unwrap().to_vec::<f64>().unwrap(), want.to_vec::<f64>().unwrap());
        assert_eq!(g.len(), w.len());
        for (x, y) in g.iter().zip(&w) {
            assert!((x - y).abs() < 1e-12, "{g:?} vs {w:?}");
        }
    };
    close(&Tensor::linalg_solve(&ga, &gb).unwrap(), &Tensor::linalg_solve(&a, &b).unwrap());
    close(&Tensor::linalg_inv(&ga).unwrap(), &Tensor::linalg_inv(&a).unwrap());
    close(&Tensor::linalg_det(&ga).unwrap(), &Tensor::linalg_det(&a).unwrap());
    close(&Tensor::linalg_cholesky(&spd.cuda().unwrap()).unwrap(), &Tensor::linalg_cholesky(&spd).unwrap());
    close(&Tensor::linalg_svdvals(&ga).unwrap(), &Tensor::linalg_svdvals(&a).unwrap());
    // LDL^T of the indefinite [[1, 2], [2, 1]]: x = [1, 1] for b = [3, 3]
    let indefinite = Tensor::from_data(&[1.0f64, 2.0, 2.0, 1.0], &[2, 2]).unwrap();
    let (ld, pivots) = indefinite.cuda().unwrap().linalg_ldl_factor().unwrap();
    let three = Tensor::from_data(&[3.0f64, 3.0], &[2, 1]).unwrap();
    let ones = Tensor::from_data(&[1.0f64, 1.0], &[2, 1]).unwrap();
    close(&Tensor::linalg_ldl_solve(&ld, &pivots, &three.cuda().unwrap()).unwrap(), &ones);
    // eig of the rotation [[0, -1], [1, 0]]: i and -i, in LAPACK's order (positive imaginary part first)
    let rotation = Tensor::from_data(&[0.0f64, -1.0, 1.0, 0.0], &[2, 2]).unwrap();
    let (values, _vectors) = Tensor::linalg_eig(&rotation.cuda().unwrap()).unwrap();
    close(&values.view_as_real().unwrap(), &Tensor::from_data(&[0.0f64, 1.0, 0.0, -1.0], &[2, 2]).unwrap());
    let singular = Tensor::zeros_with(&[2, 2], Some(DType::Float64), Some(Device::cuda(0))).unwrap();
    assert_eq!(Tensor::linalg_inv(&singular).unwrap_err().kind(), ErrorKind::LinAlg);
}

#[test]
fn gpu_fft_matches_the_cpu() {
    if !cuda::is_available() {
        return;
    }
    // cuFFT's half spectrum of a float64 signal of 7 points, and the round trip back through irfft.
    let x = Tensor::from_slice(&[1.0f64, -2.0, 0.5, 3.0, 0.25, -1.0, 2.0]);
    let spectrum = |t: &Tensor| t.fft_rfft().unwrap().view_as_real().unwrap().cpu().unwrap().to_vec::<f64>().unwrap();
    let (got, want) = (spectrum(&x.cuda().unwrap()), spectrum(&x));
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() < 1e-12, "{got:?} vs {want:?}");
    }
    let back = x.cuda().unwrap().fft_rfft().unwrap().fft_irfft_with(Some(7), -1, None).unwrap();
    for (g, w) in back.cpu().unwrap().to_vec::<f64>().unwrap().iter().zip(x.to_vec::<f64>().unwrap()) {
        assert!((g - w).abs() < 1e-12);
    }
}
