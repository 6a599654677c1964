//! Custom autograd functions from closures: gradients, second derivatives, errors, panics and
//! the lifetime of the closures.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use ctorch::{Error, ErrorKind, Function, GradFlags, Tensor};

fn leaf(data: &[f64]) -> Tensor {
    Tensor::from_slice(data).set_requires_grad(true).unwrap()
}

fn values(t: &Tensor) -> Vec<f64> {
    t.to_vec::<f64>().unwrap()
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload.downcast_ref::<String>().cloned().or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

/// exp, saving its output for backward as torch's does.
fn my_exp() -> Function {
    Function::new(
        "MyExp",
        |ctx, x| {
            let y = x[0].exp()?;
            ctx.save_for_backward(&y)?;
            Ok(vec![y])
        },
        |ctx, g| Ok(vec![Some(g[0].mul(&ctx.saved_tensors()?[0])?)]),
    )
}

/// x^2 with a backward built from differentiable operators, so it has a second derivative.
fn square() -> Function {
    Function::new(
        "Square",
        |ctx, x| {
            ctx.save_for_backward(&x[0])?;
            Ok(vec![x[0].mul(&x[0])?])
        },
        |ctx, g| {
            let x = &ctx.saved_tensors()?[0];
            Ok(vec![Some(g[0].mul(x)?.mul_scalar(2.0)?)])
        },
    )
}

#[test]
fn custom_exp_matches_the_builtin_gradient() {
    let f = my_exp();
    assert_eq!(f.name(), "MyExp");
    let x = leaf(&[0.0, 1.0, -2.0]);
    let y = f.apply(&[&x], 1).unwrap().remove(0);
    assert!(y.requires_grad());
    assert_eq!(y.grad_fn_name().as_deref(), Some("MyExpBackward"));
    assert_eq!(values(&y), values(&x.exp().unwrap()));
    let w = Tensor::from_slice(&[1.0f64, 2.0, 3.0]);
    let custom = ctorch::grad(&[y.mul(&w).unwrap().sum().unwrap()], &[&x], None, GradFlags::default()).unwrap();
    let builtin = ctorch::grad(&[x.exp().unwrap().mul(&w).unwrap().sum().unwrap()], &[&x], None, GradFlags::default()).unwrap();
    let expected: Vec<f64> = [0.0f64, 1.0, -2.0].iter().zip([1.0, 2.0, 3.0]).map(|(x, w)| x.exp() * w).collect();
    assert_eq!(values(custom[0].as_ref().unwrap()), values(builtin[0].as_ref().unwrap()));
    assert_eq!(values(custom[0].as_ref().unwrap()), expected);
}

#[test]
fn one_function_applied_many_times() {
    let f = square();
    let g = f.clone();
    let a = leaf(&[3.0]);
    let b = leaf(&[-4.0]);
    let ya = f.apply(&[&a], 1).unwrap().remove(0);
    let owned: Vec<Tensor> = vec![b.clone()];
    let yb = g.apply(&owned, 1).unwrap().remove(0);
    ctorch::backward(&[ya.sum().unwrap(), yb.sum().unwrap()], None, GradFlags::default()).unwrap();
    assert_eq!(values(&a.grad().unwrap()), vec![6.0]);
    assert_eq!(values(&b.grad().unwrap()), vec![-8.0]);
    // Without an input requiring grad nothing is recorded.
    let plain = Tensor::from_slice(&[5.0f64]);
    let y = f.apply(&[&plain], 1).unwrap().remove(0);
    assert!(!y.requires_grad() && y.grad_fn_name().is_none());
    assert_eq!(values(&y), vec![25.0]);
}

#[test]
fn second_derivative_through_a_custom_function() {
    let x = leaf(&[3.0, -1.0]);
    let y = square().apply(&[&x], 1).unwrap().remove(0).mul(&x).unwrap().sum().unwrap();
    // y = x^3: dy/dx = 3x^2, d2y/dx2 = 6x.
    let dy = ctorch::grad(&[&y], &[&x], None, GradFlags::default().create_graph(true)).unwrap().remove(0).unwrap();
    assert_eq!(values(&dy), vec![27.0, 3.0]);
    let d2 = ctorch::grad(&[dy.sum().unwrap()], &[&x], None, GradFlags::default()).unwrap().remove(0).unwrap();
    assert_eq!(values(&d2), vec![18.0, -6.0]);
}

#[test]
fn several_outputs_and_inputs_without_a_gradient() {
    // (a, b) -> (a * b, a + b); b gets no gradient from this backward.
    let f = Function::new(
        "MulAdd",
        |ctx, x| {
            ctx.save_for_backward(&x[1])?;
            Ok(vec![x[0].mul(&x[1])?, x[0].add(&x[1])?])
        },
        |ctx, g| {
            let b = &ctx.saved_tensors()?[0];
            Ok(vec![Some(g[0].mul(b)?.add(&g[1])?), None])
        },
    );
    let a = leaf(&[2.0, 3.0]);
    let b = leaf(&[10.0, 20.0]);
    let outs = f.apply(&[&a, &b], 2).unwrap();
    assert_eq!(values(&outs[0]), vec![20.0, 60.0]);
    assert_eq!(values(&outs[1]), vec![12.0, 23.0]);
    // Only the first output gets a gradient; the second's arrives as zeros.
    outs[0].sum().unwrap().backward().unwrap();
    assert_eq!(values(&a.grad().unwrap()), vec![10.0, 20.0]);
    assert!(b.grad().is_none());
}

#[test]
fn an_error_in_forward_reaches_the_caller() {
    let f = Function::new(
        "Picky",
        |_, x| {
            Err(Error::new(ErrorKind::Shape, format!("x must be 2-D, got {} dims. Reshape it first", x[0].dim())))
        },
        |_, _| Ok(vec![None]),
    );
    let e = f.apply(&[leaf(&[1.0])], 1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    assert!(e.message().contains("Picky"), "{e}");
    assert!(e.message().contains("x must be 2-D, got 1 dims. Reshape it first"), "{e}");
}

#[test]
fn an_error_in_backward_reaches_the_caller() {
    let f = Function::new(
        "Opaque",
        |_, x| Ok(vec![x[0].mul_scalar(2.0)?]),
        |_, _| Err(Error::new(ErrorKind::NotImplemented, "Opaque has no gradient for x yet")),
    );
    let x = leaf(&[1.0]);
    let y = f.apply(&[&x], 1).unwrap().remove(0);
    let e = y.sum().unwrap().backward().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotImplemented);
    assert!(e.message().contains("OpaqueBackward"), "{e}");
    assert!(e.message().contains("Opaque has no gradient for x yet"), "{e}");
}

#[test]
fn wrong_numbers_of_tensors_are_errors() {
    let f = Function::new("Twice", |_, x| Ok(vec![x[0].clone(), x[0].clone()]), |_, _| Ok(vec![]));
    let x = leaf(&[1.0]);
    let e = f.apply(&[&x], 1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("returned 2 tensors for 1 outputs"), "{e}");
    let outs = f.apply(&[&x], 2).unwrap();
    let e = outs[0].sum().unwrap().backward().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("returned 0 tensors for 1 inputs"), "{e}");
}

#[test]
fn saved_tensors_outside_backward_is_an_error() {
    let f = Function::new(
        "Early",
        |ctx, x| {
            ctx.save_for_backward(&x[0])?;
            let e = ctx.saved_tensors().unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
            assert!(e.message().contains("in backward"), "{e}");
            Ok(vec![x[0].mul_scalar(1.0)?])
        },
        |_, g| Ok(vec![Some(g[0].clone())]),
    );
    f.apply(&[leaf(&[1.0])], 1).unwrap();
}

#[test]
fn panics_in_forward_and_backward_resurface() {
    let f = Function::new("Boom", |_, _| panic!("forward blew up"), |_, _| Ok(vec![None]));
    let x = leaf(&[1.0]);
    let payload = catch_unwind(AssertUnwindSafe(|| f.apply(&[&x], 1))).unwrap_err();
    assert!(panic_text(&*payload).contains("forward blew up"));

    let f = Function::new("Boom", |_, x| Ok(vec![x[0].mul_scalar(2.0)?]), |_, _| panic!("backward blew up"));
    let y = f.apply(&[&x], 1).unwrap().remove(0);
    let payload = catch_unwind(AssertUnwindSafe(|| y.sum().unwrap().backward())).unwrap_err();
    assert!(panic_text(&*payload).contains("backward blew up"));
    // The library is still usable afterwards.
    let z = square().apply(&[&x], 1).unwrap().remove(0);
    z.sum().unwrap().backward().unwrap();
    assert_eq!(values(&x.grad().unwrap()), vec![2.0]);
}

#[test]
fn closures_live_as_long_as_the_function_or_a_node() {
    let state = Arc::new(());
    let (fs, bs) = (Arc::clone(&state), Arc::clone(&state));
    let f = Function::new(
        "Held",
        move |_, x| {
            let _ = &fs;
            Ok(vec![x[0].mul_scalar(2.0)?])
        },
        move |_, g| {
            let _ = &bs;
            Ok(vec![Some(g[0].mul_scalar(2.0)?)])
        },
    );
    assert_eq!(Arc::strong_count(&state), 3);
    let x = leaf(&[1.0]);
    let y1 = f.apply(&[&x], 1).unwrap().remove(0);
    let y2 = f.apply(&[&x], 1).unwrap().remove(0);
    // Nothing recorded: this application's share is dropped before apply returns.
    let plain = f.apply(&[Tensor::from_slice(&[1.0f64])], 1).unwrap();
    drop(f);
    assert_eq!(Arc::strong_count(&state), 3, "the recorded nodes keep the closures");
    drop(y1);
    assert_eq!(Arc::strong_count(&state), 3, "y2's node still needs them");
    let loss = y2.sum().unwrap();
    drop(y2);
    loss.backward().unwrap();
    assert_eq!(values(&x.grad().unwrap()), vec![2.0]);
    drop(loss);
    assert_eq!(Arc::strong_count(&state), 1, "the last node took the closures with it");
    drop(plain);
}

#[test]
fn backward_of_a_custom_function_runs_on_another_thread() {
    let x = leaf(&[1.0, 2.0]);
    let y = my_exp().apply(&[&x], 1).unwrap().remove(0).sum().unwrap();
    std::thread::spawn(move || y.backward().unwrap()).join().unwrap();
    assert_eq!(values(&x.grad().unwrap()), vec![1.0f64.exp(), 2.0f64.exp()]);
}
