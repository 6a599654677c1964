//! Custom operators: schemas, kernels written as closures, their errors, panics and lifetimes.
//! Operator names are process-global and tests run at once: every test defines its own.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use ctorch::library::{self, Determinism};
use ctorch::ops::{self, Value};
use ctorch::{DType, Device, Error, ErrorKind, Function, Tensor};

fn values(t: &Tensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload.downcast_ref::<String>().cloned().or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

/// The kernel of `scale(Tensor x, float factor)`.
fn scale(args: &[Value<'_>]) -> ctorch::Result<Vec<Tensor>> {
    match args {
        [Value::Tensor(x), Value::Float(f)] => Ok(vec![x.mul_scalar(*f)?]),
        other => Err(Error::new(ErrorKind::InvalidArgument, format!("scale: unexpected arguments {other:?}"))),
    }
}

#[test]
fn a_closure_kernel_is_called_by_name_with_defaults() {
    library::define("rusttest::scale(Tensor x, float factor=2.0) -> Tensor").unwrap();
    library::impl_kernel("rusttest::scale", Device::CPU, scale).unwrap();
    let x = Tensor::from_slice(&[1.0f32, -2.0]);
    let y = ops::call("rusttest::scale", &[(&x).into()]).unwrap();
    assert_eq!(values(&y[0]), vec![2.0, -4.0]);
    let y = ops::call("rusttest::scale", &[(&x).into(), 0.5.into()]).unwrap();
    assert_eq!(values(&y[0]), vec![0.5, -1.0]);
    // An int where the schema says float reaches the kernel as a float.
    let y = ops::call("rusttest::scale", &[(&x).into(), 3i64.into()]).unwrap();
    assert_eq!(values(&y[0]), vec![3.0, -6.0]);
    assert!(ops::schema("rusttest::scale").unwrap().contains("rusttest::scale(Tensor x, float factor=2.0) -> Tensor"));
    assert!(ops::registry_json().unwrap().contains("rusttest::scale"));
    // The operator has no derivative: recording through it is refused, naming it.
    let w = Tensor::from_slice(&[1.0f32, 4.0]).set_requires_grad(true).unwrap();
    let e = ops::call("rusttest::scale", &[(&w).into()]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotImplemented, "{e}");
    assert!(e.message().contains("rusttest::scale"), "{e}");
    {
        let _guard = ctorch::no_grad();
        assert_eq!(values(&ops::call("rusttest::scale", &[(&w).into()]).unwrap()[0]), vec![2.0, 8.0]);
    }
    // Wrapped in a custom function it is differentiable.
    let f = Function::new(
        "Scale",
        |_, x| ops::call("rusttest::scale", &[(&x[0]).into()]),
        |_, g| Ok(vec![Some(ops::call("rusttest::scale", &[(&g[0]).into()])?.remove(0))]),
    );
    let y = f.apply(&[&w], 1).unwrap().remove(0);
    y.mul(&y).unwrap().sum().unwrap().backward().unwrap();
    // d/dw sum((2w)^2) = 8w.
    assert_eq!(values(&w.grad().unwrap()), vec![8.0, 32.0]);
}

#[test]
fn every_kind_of_argument_reaches_the_kernel() {
    library::define("rusttest::describe(Tensor[] xs, int[] dims, str tag, ScalarType dtype, Device dev, bool flag, Tensor? opt=None, int n=7) -> Tensor").unwrap();
    library::impl_kernel("rusttest::describe", "cpu", |args| {
        let description = match args {
            [Value::Tensors(xs), Value::Ints(dims), Value::Str(tag), Value::DType(dt), Value::Device(dev), Value::Bool(flag), Value::None, Value::Int(n)] => {
                format!("{} {dims:?} {tag} {dt} {dev} {flag} {n}", xs.len())
            }
            other => format!("unexpected {other:?}"),
        };
        assert_eq!(description, "2 [0, 1] hello float64 cpu true 7");
        let Value::Tensors(xs) = &args[0] else { unreachable!() };
        Ok(vec![Tensor::cat(xs)?])
    })
    .unwrap();
    let (a, b) = (Tensor::from_slice(&[1.0f32]), Tensor::from_slice(&[2.0f32, 3.0]));
    let dims = [0i64, 1];
    let out = ops::call(
        "rusttest::describe",
        &[Value::Tensors(vec![&a, &b]), (&dims[..]).into(), "hello".into(), DType::Float64.into(), Device::CPU.into(), true.into()],
    )
    .unwrap();
    assert_eq!(values(&out[0]), vec![1.0, 2.0, 3.0]);
}

#[test]
fn several_returns_and_a_kernel_kept_tensor() {
    library::define("rusttest::split2(Tensor x) -> (Tensor, Tensor)").unwrap();
    // The kernel may keep an argument beyond the call (it owns a reference).
    let kept = Arc::new(std::sync::Mutex::new(None));
    let keep = Arc::clone(&kept);
    library::impl_kernel("rusttest::split2", "cpu", move |args| {
        let Value::Tensor(x) = args[0] else { unreachable!() };
        *keep.lock().unwrap() = Some(x.clone());
        Ok(vec![x.mul_scalar(2.0)?, x.mul_scalar(3.0)?])
    })
    .unwrap();
    let out = ops::call("rusttest::split2", &[(&Tensor::from_slice(&[1.0f32])).into()]).unwrap();
    assert_eq!(out.len(), 2);
    assert_eq!((values(&out[0]), values(&out[1])), (vec![2.0], vec![3.0]));
    assert_eq!(values(kept.lock().unwrap().as_ref().unwrap()), vec![1.0]);
}

#[test]
fn a_kernel_error_reaches_the_caller_under_the_operator() {
    library::define("rusttest::refuse(Tensor x) -> Tensor").unwrap();
    library::impl_kernel("rusttest::refuse", "cpu", |_| Err(Error::new(ErrorKind::Shape, "refuse: x must be square, got [3]"))).unwrap();
    let e = ops::call("rusttest::refuse", &[(&Tensor::from_slice(&[1.0f32, 2.0, 3.0])).into()]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    assert!(e.message().starts_with("rusttest::refuse"), "{e}");
    assert!(e.message().contains("refuse: x must be square, got [3]"), "{e}");
}

#[test]
fn a_kernel_returning_the_wrong_number_of_tensors_is_an_error() {
    library::define("rusttest::short(Tensor x) -> (Tensor, Tensor)").unwrap();
    library::impl_kernel("rusttest::short", "cpu", |_| Ok(vec![Tensor::from_slice(&[1.0f32])])).unwrap();
    let e = ops::call("rusttest::short", &[(&Tensor::from_slice(&[1.0f32])).into()]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("returned 1 tensors for 2 returns"), "{e}");
}

#[test]
fn a_kernel_panic_resurfaces_in_the_caller() {
    library::define("rusttest::explode(Tensor x) -> Tensor").unwrap();
    library::impl_kernel("rusttest::explode", "cpu", |_| panic!("kernel exploded")).unwrap();
    let x = Tensor::from_slice(&[1.0f32]);
    let payload = catch_unwind(AssertUnwindSafe(|| ops::call("rusttest::explode", &[(&x).into()]))).unwrap_err();
    assert!(panic_text(&*payload).contains("kernel exploded"), "{:?}", panic_text(&*payload));
    // The library is still usable afterwards.
    assert_eq!(values(&x.mul_scalar(2.0).unwrap()), vec![2.0]);
}

#[test]
fn kernels_run_on_other_threads() {
    library::define("rusttest::negate(Tensor x) -> Tensor").unwrap();
    library::impl_kernel("rusttest::negate", "cpu", |args| {
        let Value::Tensor(x) = args[0] else { unreachable!() };
        Ok(vec![x.neg()?])
    })
    .unwrap();
    let handles: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                let x = Tensor::from_slice(&[i as f32]);
                values(&ops::call("rusttest::negate", &[(&x).into()]).unwrap()[0])
            })
        })
        .collect();
    for (i, h) in handles.into_iter().enumerate() {
        assert_eq!(h.join().unwrap(), vec![-(i as f32)]);
    }
}

#[test]
fn replacing_a_kernel_drops_the_old_closure() {
    library::define("rusttest::swap(Tensor x) -> Tensor").unwrap();
    let state = Arc::new(());
    let held = Arc::clone(&state);
    library::impl_kernel("rusttest::swap", "cpu", move |args| {
        let _ = &held;
        let Value::Tensor(x) = args[0] else { unreachable!() };
        Ok(vec![x.mul_scalar(10.0)?])
    })
    .unwrap();
    assert_eq!(Arc::strong_count(&state), 2);
    let x = Tensor::from_slice(&[1.0f32]);
    assert_eq!(values(&ops::call("rusttest::swap", &[(&x).into()]).unwrap()[0]), vec![10.0]);
    library::impl_kernel("rusttest::swap", "cpu", |args| {
        let Value::Tensor(x) = args[0] else { unreachable!() };
        Ok(vec![x.mul_scalar(20.0)?])
    })
    .unwrap();
    assert_eq!(Arc::strong_count(&state), 1);
    assert_eq!(values(&ops::call("rusttest::swap", &[(&x).into()]).unwrap()[0]), vec![20.0]);
}

#[test]
fn a_meta_kernel_gives_the_operator_shapes() {
    library::define("rusttest::twice_meta(Tensor x) -> Tensor").unwrap();
    library::impl_kernel("rusttest::twice_meta", Device::META, |args| {
        let Value::Tensor(x) = args[0] else { unreachable!() };
        Ok(vec![Tensor::empty_with(&x.size(), Some(x.kind()), Some(Device::META))?])
    })
    .unwrap();
    let m = Tensor::empty_with(&[2, 5], Some(DType::Float32), Some(Device::META)).unwrap();
    let out = ops::call("rusttest::twice_meta", &[(&m).into()]).unwrap();
    assert_eq!((out[0].size(), out[0].device()), (vec![2, 5], Device::META));
    // No cpu kernel: an error naming the operator.
    let e = ops::call("rusttest::twice_meta", &[(&Tensor::from_slice(&[1.0f32])).into()]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotImplemented, "{e}");
    assert!(e.message().contains("rusttest::twice_meta"), "{e}");
}

#[test]
fn determinism_is_declared_in_the_registry() {
    library::define("rusttest::atomic_sum(Tensor x) -> Tensor").unwrap();
    let e = library::set_determinism("rusttest::atomic_sum", "cpu", Determinism::Atomic).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "no kernel yet: {e}");
    library::impl_kernel("rusttest::atomic_sum", "cpu", |args| {
        let Value::Tensor(x) = args[0] else { unreachable!() };
        Ok(vec![x.sum()?])
    })
    .unwrap();
    let line = |json: &str| json.lines().find(|l| l.contains("\"rusttest::atomic_sum\"")).unwrap_or_default().to_string();
    assert!(line(&ops::registry_json().unwrap()).contains("\"deterministic\""));
    library::set_determinism("rusttest::atomic_sum", Device::CPU, Determinism::Atomic).unwrap();
    assert!(line(&ops::registry_json().unwrap()).contains("\"atomic\""), "{}", line(&ops::registry_json().unwrap()));
    let e = library::set_determinism("add.Tensor", "cpu", Determinism::Bitwise).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "built-in: {e}");
}

#[test]
fn bad_definitions_and_registrations_are_errors() {
    let e = library::define("rusttest::broken(Tensor x -> Tensor").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Format, "{e}");
    let e = library::define("nonamespace(Tensor x) -> Tensor").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    library::define("rusttest::once(Tensor x) -> Tensor").unwrap();
    let e = library::define("rusttest::once(Tensor x) -> Tensor").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    assert_eq!(library::define("rusttest::nul\0(Tensor x) -> Tensor").unwrap_err().kind(), ErrorKind::InvalidArgument);

    // A failed registration drops the closure at once.
    let state = Arc::new(());
    let held = Arc::clone(&state);
    let e = library::impl_kernel("rusttest::never_defined", "cpu", move |_| {
        let _ = &held;
        Ok(vec![])
    })
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    assert_eq!(Arc::strong_count(&state), 1);
    let e = library::impl_kernel("rusttest::once", "nosuchdevice", scale).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Device, "{e}");
    let e = library::impl_kernel("add.Tensor", "cpu", scale).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "built-in with a cpu kernel: {e}");
}
