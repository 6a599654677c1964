//! Autograd: leaves, backward and grad against hand-computed gradients, grad modes, hooks.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ctorch::{DType, Error, ErrorKind, GradFlags, GradMode, Tensor};

fn leaf(data: &[f32], sizes: &[i64]) -> Tensor {
    Tensor::from_data(data, sizes).unwrap().set_requires_grad(true).unwrap()
}

fn values(t: &Tensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload.downcast_ref::<String>().cloned().or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

#[test]
fn sum_of_squares_has_gradient_2x() {
    let x = leaf(&[1.0, -2.0, 3.0], &[3]);
    assert!(x.requires_grad() && x.is_leaf());
    assert_eq!(x.grad_fn_name(), None);
    assert!(x.grad().is_none());
    let y = x.mul(&x).unwrap();
    assert!(y.requires_grad() && !y.is_leaf());
    assert_eq!(y.grad_fn_name().as_deref(), Some("MulBackward"));
    let loss = y.sum().unwrap();
    loss.backward().unwrap();
    assert_eq!(values(&x.grad().unwrap()), vec![2.0, -4.0, 6.0]);
    // Non-leaf results keep no gradient unless asked.
    assert!(y.grad().is_none());
}

#[test]
fn matmul_gradients_match_hand_computed_values() {
    // loss = sum(x @ w): dloss/dx = ones @ w^T (row sums of w), dloss/dw = x^T @ ones (column
    // sums of x, repeated along each row).
    let x = leaf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let w = leaf(&[1.0, -1.0, 2.0, 0.5, 0.0, 3.0], &[3, 2]);
    let loss = x.matmul(&w).unwrap().sum().unwrap();
    let by_grad = ctorch::grad(&[&loss], &[&x, &w], None, GradFlags::default().retain_graph(true)).unwrap();
    loss.backward().unwrap();
    let (gx, gw) = (x.grad().unwrap(), w.grad().unwrap());
    assert_eq!(gx.size(), vec![2, 3]);
    assert_eq!(values(&gx), vec![0.0, 2.5, 3.0, 0.0, 2.5, 3.0]);
    assert_eq!(values(&gw), vec![5.0, 5.0, 7.0, 7.0, 9.0, 9.0]);
    // grad returns the same gradients without accumulating them anywhere.
    assert_eq!(values(by_grad[0].as_ref().unwrap()), values(&gx));
    assert_eq!(values(by_grad[1].as_ref().unwrap()), values(&gw));
}

#[test]
fn grad_does_not_touch_leaves_and_backward_accumulates() {
    let x = leaf(&[1.0, 2.0], &[2]);
    let loss = x.mul(&x).unwrap().sum().unwrap();
    let g = ctorch::grad(&[&loss], &[&x], None, GradFlags::default().retain_graph(true)).unwrap();
    assert_eq!(values(g[0].as_ref().unwrap()), vec![2.0, 4.0]);
    assert!(x.grad().is_none());
    loss.backward_with(None, GradFlags::default().retain_graph(true)).unwrap();
    loss.backward().unwrap();
    assert_eq!(values(&x.grad().unwrap()), vec![4.0, 8.0]);
    // The graph is freed now.
    let e = loss.backward().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    x.set_grad(None).unwrap();
    assert!(x.grad().is_none());
}

#[test]
fn backward_with_an_output_gradient_and_from_several_outputs() {
    let x = leaf(&[1.0, 2.0, 3.0], &[3]);
    let y = x.mul_scalar(3.0).unwrap();
    let e = y.backward().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape, "{e}");
    let g = Tensor::from_slice(&[1.0f32, 10.0, 100.0]);
    y.backward_with(Some(&g), GradFlags::default()).unwrap();
    assert_eq!(values(&x.grad().unwrap()), vec![3.0, 30.0, 300.0]);

    // Two outputs: their gradients add up.
    let w = leaf(&[2.0], &[]);
    let a = w.mul_scalar(5.0).unwrap();
    let b = w.mul(&w).unwrap();
    ctorch::backward(&[&a, &b], None, GradFlags::default()).unwrap();
    assert_eq!(values(&w.grad().unwrap()), vec![5.0 + 4.0]);

    let e = ctorch::backward(&[&a, &b], Some(&[&g]), GradFlags::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("1 gradients for 2 outputs"), "{e}");
}

#[test]
fn second_derivative_with_create_graph() {
    // y = x^3: dy/dx = 3x^2, d2y/dx2 = 6x.
    let x = leaf(&[2.0, -1.0], &[2]);
    let y = x.mul(&x).unwrap().mul(&x).unwrap().sum().unwrap();
    let dy = ctorch::grad(&[&y], &[&x], None, GradFlags::default().create_graph(true)).unwrap().remove(0).unwrap();
    assert!(dy.requires_grad());
    assert_eq!(values(&dy), vec![12.0, 3.0]);
    let d2 = ctorch::grad(&[dy.sum().unwrap()], &[&x], None, GradFlags::default()).unwrap().remove(0).unwrap();
    assert_eq!(values(&d2), vec![12.0, -6.0]);
}

#[test]
fn unused_inputs_and_grad_outputs() {
    let x = leaf(&[1.0, 2.0], &[2]);
    let unused = leaf(&[5.0], &[1]);
    let y = x.mul_scalar(4.0).unwrap();
    let g = Tensor::from_slice(&[1.0f32, -1.0]);
    let e = ctorch::grad(&[&y], &[&x, &unused], Some(&[&g]), GradFlags::default().retain_graph(true)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    let flags = GradFlags::default().allow_unused(true);
    assert_eq!(flags, GradFlags { allow_unused: true, ..GradFlags::default() });
    let gs = ctorch::grad(&[&y], &[&x, &unused], Some(&[&g]), flags).unwrap();
    assert_eq!(values(gs[0].as_ref().unwrap()), vec![4.0, -4.0]);
    assert!(gs[1].is_none());
    let plain = Tensor::from_slice(&[1.0f32]);
    let e = ctorch::grad(&[&y], &[&plain], Some(&[&g]), GradFlags::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
}

#[test]
fn leaves_settings_and_their_errors() {
    let i = Tensor::from_slice(&[1i64, 2]);
    assert_eq!(i.set_requires_grad(true).unwrap_err().kind(), ErrorKind::DType);
    let x = leaf(&[1.0, 2.0], &[2]);
    let y = x.mul_scalar(2.0).unwrap();
    assert_eq!(y.set_requires_grad(false).unwrap_err().kind(), ErrorKind::InvalidArgument);
    let e = x.set_grad(Some(&Tensor::from_slice(&[1.0f32, 2.0, 3.0]))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape, "{e}");
    x.set_grad(Some(&Tensor::from_slice(&[7.0f32, 8.0]))).unwrap();
    assert_eq!(values(&x.grad().unwrap()), vec![7.0, 8.0]);
    let plain = Tensor::from_slice(&[1.0f32]);
    assert_eq!(plain.retain_grad().unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(plain.backward().unwrap_err().kind(), ErrorKind::InvalidArgument);
    // set_requires_grad(false) on a leaf clears it again.
    assert!(!x.set_requires_grad(false).unwrap().requires_grad());
}

#[test]
fn retain_grad_keeps_a_non_leaf_gradient() {
    let x = leaf(&[1.0, 2.0], &[2]);
    let y = x.mul_scalar(3.0).unwrap();
    assert!(!y.retains_grad());
    y.retain_grad().unwrap();
    assert!(y.retains_grad() && !x.retains_grad() && y.output_nr() == 0);
    y.mul(&y).unwrap().sum().unwrap().backward().unwrap();
    assert_eq!(values(&y.grad().unwrap()), vec![6.0, 12.0]);
    assert_eq!(values(&x.grad().unwrap()), vec![18.0, 36.0]);
}

#[test]
fn detach_shares_elements_without_history() {
    let x = leaf(&[1.0, 2.0], &[2]);
    let y = x.mul_scalar(2.0).unwrap();
    let d = y.detach().unwrap();
    assert!(!d.requires_grad() && d.is_leaf() && d.grad_fn_name().is_none());
    d.add_(&Tensor::from_slice(&[10.0f32, 10.0])).unwrap();
    assert_eq!(values(&y), vec![12.0, 14.0]);
}

#[test]
fn grad_mode_guards_restore_the_previous_mode() {
    let x = leaf(&[1.0], &[1]);
    assert!(ctorch::is_grad_enabled());
    {
        let _outer = ctorch::no_grad();
        assert!(!ctorch::is_grad_enabled());
        assert_eq!(GradMode::current(), GradMode::NoGrad);
        assert!(!x.mul_scalar(2.0).unwrap().requires_grad());
        // Grad mode is per thread.
        let other = std::thread::spawn(ctorch::is_grad_enabled).join().unwrap();
        assert!(other);
        {
            let _inner = ctorch::enable_grad();
            assert!(x.mul_scalar(2.0).unwrap().requires_grad());
        }
        assert!(!ctorch::is_grad_enabled());
    }
    assert!(ctorch::is_grad_enabled());
    assert!(x.mul_scalar(2.0).unwrap().requires_grad());
}

#[test]
fn inference_mode_makes_inference_tensors() {
    let x = leaf(&[1.0, 2.0], &[2]);
    let y = {
        let _guard = ctorch::inference_mode();
        assert!(ctorch::is_inference_mode_enabled() && !ctorch::is_grad_enabled());
        x.mul_scalar(2.0).unwrap()
    };
    assert!(!ctorch::is_inference_mode_enabled());
    assert!(y.is_inference() && !y.requires_grad());
    assert!(!x.mul_scalar(2.0).unwrap().is_inference());
    // An inference tensor cannot be saved for backward outside inference mode.
    let e = x.mul(&y).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    assert!(e.message().contains("inference"), "{e}");
    let _guard = ctorch::set_grad_mode(GradMode::Inference);
    assert_eq!(GradMode::current(), GradMode::Inference);
}

#[test]
fn hooks_see_and_replace_gradients() {
    let x = leaf(&[1.0, 2.0], &[2]);
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    let look = x
        .register_hook(move |g| {
            assert_eq!(g.size(), vec![2]);
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(None)
        })
        .unwrap();
    let double = x.register_hook(|g| Ok(Some(g.mul_scalar(2.0)?))).unwrap();
    assert_ne!(look, double);
    x.mul(&x).unwrap().sum().unwrap().backward().unwrap();
    assert_eq!(values(&x.grad().unwrap()), vec![4.0, 8.0]);
    assert_eq!(seen.load(Ordering::SeqCst), 1);
    // Removing a hook drops its closure.
    assert_eq!(Arc::strong_count(&seen), 2);
    x.remove_hook(look).unwrap();
    assert_eq!(Arc::strong_count(&seen), 1);
    x.remove_hook(double).unwrap();
    assert_eq!(x.remove_hook(double).unwrap_err().kind(), ErrorKind::InvalidArgument);
    x.set_grad(None).unwrap();
    x.mul(&x).unwrap().sum().unwrap().backward().unwrap();
    assert_eq!(values(&x.grad().unwrap()), vec![2.0, 4.0]);
    assert_eq!(seen.load(Ordering::SeqCst), 1);

    let plain = Tensor::from_slice(&[1.0f32]);
    let e = plain.register_hook(|_| Ok(None)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
}

#[test]
fn a_hook_on_a_computed_tensor_changes_what_flows_back() {
    let x = leaf(&[1.0, 2.0], &[2]);
    let y = x.mul_scalar(3.0).unwrap();
    y.register_hook(|g| Ok(Some(g.mul_scalar(0.5)?))).unwrap();
    y.sum().unwrap().backward().unwrap();
    assert_eq!(values(&x.grad().unwrap()), vec![1.5, 1.5]);
}

#[test]
fn a_hook_error_reaches_the_caller() {
    let x = leaf(&[1.0], &[1]);
    x.register_hook(|_| Err(Error::new(ErrorKind::Shape, "clipping: the budget for this step is spent"))).unwrap();
    let e = x.mul_scalar(2.0).unwrap().sum().unwrap().backward().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    assert_eq!(e.message(), "tensor hook: clipping: the budget for this step is spent");
    assert!(x.grad().is_none());
}

#[test]
fn a_hook_returning_the_wrong_sizes_is_refused() {
    let x = leaf(&[1.0, 2.0], &[2]);
    x.register_hook(|_| Ok(Some(Tensor::from_slice(&[1.0f32, 2.0, 3.0])))).unwrap();
    let e = x.sum().unwrap().backward().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape, "{e}");
}

#[test]
fn a_hook_panic_resurfaces_in_backward() {
    let x = leaf(&[1.0], &[1]);
    x.register_hook(|_| panic!("hook exploded")).unwrap();
    let loss = x.mul_scalar(2.0).unwrap().sum().unwrap();
    let payload = catch_unwind(AssertUnwindSafe(|| loss.backward())).unwrap_err();
    assert!(panic_text(&*payload).contains("hook exploded"), "{:?}", panic_text(&*payload));
    // The library is still usable afterwards.
    let y = leaf(&[3.0], &[1]);
    y.mul(&y).unwrap().sum().unwrap().backward().unwrap();
    assert_eq!(values(&y.grad().unwrap()), vec![6.0]);
}

#[test]
fn backward_runs_on_another_thread() {
    let x = leaf(&[1.0, 2.0, 3.0], &[3]);
    let loss = x.mul(&x).unwrap().sum().unwrap();
    let hook_thread = Arc::new(std::sync::Mutex::new(None));
    let record = Arc::clone(&hook_thread);
    x.register_hook(move |_| {
        *record.lock().unwrap() = Some(std::thread::current().id());
        Ok(None)
    })
    .unwrap();
    let worker = std::thread::spawn(move || {
        loss.backward().unwrap();
        std::thread::current().id()
    })
    .join()
    .unwrap();
    assert_eq!(*hook_thread.lock().unwrap(), Some(worker));
    assert_eq!(values(&x.grad().unwrap()), vec![2.0, 4.0, 6.0]);
    assert_eq!(x.grad().unwrap().kind(), DType::Float32);
}

#[test]
fn an_in_place_write_through_a_view_goes_into_its_base_history() {
    // h = x * 1; h[1:3] *= w: loss = x0 + x1 w0 + x2 w1.
    let x = leaf(&[1.0, 2.0, 3.0], &[3]);
    let w = leaf(&[4.0, 5.0], &[2]);
    let h = x.mul_scalar(1.0).unwrap();
    h.narrow(0, 1, 2).unwrap().mul_(&w).unwrap();
    assert_eq!(h.grad_fn_name().as_deref(), Some("CopySlices"));
    assert_eq!(values(&h), vec![1.0, 8.0, 15.0]);
    h.sum().unwrap().backward().unwrap();
    assert_eq!(values(&x.grad().unwrap()), vec![1.0, 4.0, 5.0]);
    assert_eq!(values(&w.grad().unwrap()), vec![2.0, 3.0]);
    // A view of a leaf that requires grad is refused, as the leaf itself is.
    let e = x.narrow(0, 0, 2).unwrap().mul_(&w).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("of a leaf tensor that requires grad"), "{}", e.message());
    assert_eq!(values(&x), vec![1.0, 2.0, 3.0]);
}
