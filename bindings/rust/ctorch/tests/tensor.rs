//! Tensors: creation, inspection, conversions, printing, ownership and threads.

use ctorch::{DType, Device, ErrorKind, IndexOp, Scalar, Tensor};

#[test]
fn creation_and_inspection() {
    let t = Tensor::from_data(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    assert_eq!(t.size(), vec![2, 3]);
    assert_eq!(t.stride(), vec![3, 1]);
    assert_eq!(t.dim(), 2);
    assert_eq!(t.numel(), 6);
    assert_eq!(t.kind(), DType::Float32);
    assert_eq!(t.device(), Device::CPU);
    assert!(t.is_contiguous());
    assert_eq!(t.size_of(-1).unwrap(), 3);
    assert_eq!(t.size_of(2).unwrap_err().kind(), ErrorKind::Index);
    let z = Tensor::zeros_with(&[2, 2], Some(DType::Int64), None).unwrap();
    assert_eq!(z.to_vec::<i64>().unwrap(), vec![0; 4]);
    assert_eq!(Tensor::scalar(3.5f64).item().unwrap(), Scalar::Float(3.5));
    assert_eq!(Tensor::arange(0, 5).unwrap().to_vec::<i64>().unwrap(), vec![0, 1, 2, 3, 4]);
}

#[test]
fn conversions() {
    let t: Tensor = vec![1i32, 2, 3].into();
    let v: Vec<i32> = (&t).try_into().unwrap();
    assert_eq!(v, vec![1, 2, 3]);
    let t: Tensor = [true, false].into();
    assert_eq!(t.to_vec::<bool>().unwrap(), vec![true, false]);
    let e = t.to_vec::<f32>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(e.message().contains("bool"), "{e}");
    let e = Tensor::from_data(&[1.0f64, 2.0, 3.0], &[2, 2]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    let one = Tensor::from_slice(&[2.5f64]);
    assert_eq!(f64::try_from(&one).unwrap(), 2.5);
    let f = Tensor::from_slice(&[1i64, 2]).to(DType::Float32).unwrap();
    assert_eq!(f.to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
}

#[test]
fn printing_matches_pytorch() {
    let t = Tensor::from_data(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    assert_eq!(t.to_string(), "tensor([[1., 2.],\n        [3., 4.]])");
    assert_eq!(format!("{t:?}"), t.to_string());
    assert_eq!(Tensor::from_slice(&[1i32, 2]).to_string(), "tensor([1, 2], dtype=int32)");
}

#[test]
fn arithmetic_on_owned_borrowed_and_scalars() {
    let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0]);
    let b = Tensor::from_slice(&[10.0f32, 20.0, 30.0]);
    assert_eq!((&a + &b).unwrap().to_vec::<f32>().unwrap(), vec![11.0, 22.0, 33.0]);
    assert_eq!((&b - &a).unwrap().to_vec::<f32>().unwrap(), vec![9.0, 18.0, 27.0]);
    assert_eq!((&a * 2.0).unwrap().to_vec::<f32>().unwrap(), vec![2.0, 4.0, 6.0]);
    assert_eq!((1.0 - &a).unwrap().to_vec::<f32>().unwrap(), vec![0.0, -1.0, -2.0]);
    assert_eq!((6.0 / &a).unwrap().to_vec::<f32>().unwrap(), vec![6.0, 3.0, 2.0]);
    assert_eq!((&b / &a).unwrap().to_vec::<f32>().unwrap(), vec![10.0, 10.0, 10.0]);
    assert_eq!((-&a).unwrap().to_vec::<f32>().unwrap(), vec![-1.0, -2.0, -3.0]);
    assert_eq!((a.clone() + b.clone()).unwrap().to_vec::<f32>().unwrap(), vec![11.0, 22.0, 33.0]);
    let i = Tensor::from_slice(&[5i64, 7]);
    assert_eq!((&i % 3).unwrap().to_vec::<i64>().unwrap(), vec![2, 1]);
    assert_eq!((&i + 1).unwrap().kind(), DType::Int64, "an integer scalar keeps an integer tensor integral");
    assert_eq!((&i * 0.5).unwrap().kind(), DType::Float32, "a float scalar makes it floating");
    assert_eq!((!&Tensor::from_slice(&[true, false])).unwrap().to_vec::<bool>().unwrap(), vec![false, true]);
    let m = Tensor::from_data(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let y = m.matmul(&m).unwrap().relu().unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![7.0, 10.0, 15.0, 22.0]);
}

#[test]
fn errors_carry_kind_and_message() {
    let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0]);
    let b = Tensor::from_slice(&[1.0f32, 2.0]);
    let e = (&a + &b).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    assert!(e.message().contains("[3]") && e.message().contains("[2]"), "{e}");
    assert!(e.to_string().starts_with("CT_ERROR_SHAPE: "), "{e}");
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(boxed.to_string().contains("add"));
    let e = a.matmul(&Tensor::from_slice(&[true])).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Shape | ErrorKind::DType), "{e}");
}

#[test]
fn indexing_and_views() {
    let t = Tensor::from_data(&(0..24).collect::<Vec<i64>>(), &[2, 3, 4]).unwrap();
    assert_eq!(t.i(1).unwrap().size(), vec![3, 4]);
    assert_eq!(t.i((1, 1..3)).unwrap().to_vec::<i64>().unwrap(), vec![16, 17, 18, 19, 20, 21, 22, 23]);
    assert_eq!(t.i((.., .., -1)).unwrap().to_vec::<i64>().unwrap(), vec![3, 7, 11, 15, 19, 23]);
    assert_eq!(t.i((0, ..=1, 2..)).unwrap().to_vec::<i64>().unwrap(), vec![2, 3, 6, 7]);
    assert_eq!(t.i(5).unwrap_err().kind(), ErrorKind::Index);
    let v = t.i((0, 0)).unwrap();
    v.mul_scalar_(0).unwrap();
    assert_eq!(t.i((0, 0)).unwrap().to_vec::<i64>().unwrap(), vec![0; 4], "a view shares its base's elements");
    let idx = Tensor::from_slice(&[1i64, 0]);
    assert_eq!(t.index(&[&idx]).unwrap().size(), vec![2, 3, 4]);
}

#[test]
fn clone_retains_and_deep_clone_copies() {
    let a = Tensor::from_slice(&[1.0f32, 2.0]);
    let b = a.clone();
    let c = a.deep_clone().unwrap();
    a.add_scalar_(1.0).unwrap();
    assert_eq!(b.to_vec::<f32>().unwrap(), vec![2.0, 3.0]);
    assert_eq!(c.to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
}

#[test]
fn deep_clone_with_a_memory_format_keeps_or_sets_the_layout() {
    // torch's numbers: 0 contiguous_format, 1 preserve_format, 2 channels_last.
    let a = Tensor::from_data(&(0..6).map(|i| i as f32).collect::<Vec<_>>(), &[2, 3]).unwrap();
    let t = a.transpose(0, 1).unwrap();
    let kept = t.deep_clone_with(Some(1)).unwrap();
    assert_eq!(kept.stride(), vec![1, 3], "a permuted dense layout is preserved");
    assert_eq!(kept.to_vec::<f32>().unwrap(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    assert_eq!(t.deep_clone().unwrap().stride(), vec![2, 1], "no format: a row-major copy");
    let x = Tensor::zeros(&[2, 3, 4, 5]).unwrap();
    assert_eq!(x.deep_clone_with(Some(2)).unwrap().stride(), vec![60, 1, 15, 3]);
    let err = t.deep_clone_with(Some(2)).unwrap_err();
    assert!(err.to_string().contains("channels_last needs a 4-D tensor"), "{err}");
}

#[test]
fn tensors_are_shared_across_eight_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Tensor>();
    let shared = Tensor::from_data(&(0..64).map(|i| i as f32).collect::<Vec<_>>(), &[8, 8]).unwrap();
    let expected = shared.matmul(&shared).unwrap().sum().unwrap().double_value().unwrap();
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for _ in 0..2000 {
                    let local = shared.clone();
                    let r = local.matmul(&shared).unwrap().sum().unwrap();
                    assert_eq!(r.double_value().unwrap(), expected);
                }
            });
        }
    });
}

#[test]
fn dtype_promotion_and_casting_rules() {
    assert_eq!(DType::UInt8.promote(DType::Int8), DType::Int16);
    assert_eq!(DType::Float16.promote(DType::BFloat16), DType::Float32);
    assert_eq!(DType::Bool.promote(DType::Int32), DType::Int32);
    assert!(DType::Int64.can_cast(DType::Float32));
    assert!(!DType::Float32.can_cast(DType::Int64));
    assert!(!DType::Int8.can_cast(DType::Bool));
}
