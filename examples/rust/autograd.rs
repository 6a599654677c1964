//! Autograd from Rust: gradients of a small model, a hook, a custom function from closures, and a
//! second derivative.
//!
//!   cargo run --manifest-path bindings/rust/Cargo.toml --example autograd

use ctorch::{grad, no_grad, Function, GradFlags, Tensor};

fn main() -> ctorch::Result<()> {
    // y = relu(x W + b), loss = mean(y^2); backward fills W.grad() and b.grad().
    let x = Tensor::from_data(&[1.0f32, -2.0, 3.0, 0.5, 1.5, -1.0], &[2, 3])?;
    let w = Tensor::from_data(&[0.1f32, 0.2, -0.3, 0.4, 0.5, -0.6], &[3, 2])?.set_requires_grad(true)?;
    let b = Tensor::zeros(&[2])?.set_requires_grad(true)?;
    let y = (&x.matmul(&w)? + &b)?.relu()?;
    let loss = y.square()?.mean()?;
    loss.backward()?;
    println!("loss = {}", loss);
    println!("dloss/dW =\n{}", w.grad().expect("W requires grad"));
    println!("dloss/db = {}", b.grad().expect("b requires grad"));

    // A hook sees (and may replace) a gradient as it flows.
    let h = Tensor::from_slice(&[1.0f32, 2.0]).set_requires_grad(true)?;
    h.register_hook(|g| {
        println!("hook saw gradient {g}");
        Ok(Some((g * 10.0)?))
    })?;
    h.square()?.sum()?.backward()?;
    println!("h.grad() after the hook scaled it = {}", h.grad().unwrap());

    // A custom function: forward and backward as closures.
    let cube = Function::new(
        "Cube",
        |ctx, inputs| {
            ctx.save_for_backward(&inputs[0])?;
            Ok(vec![inputs[0].pow_scalar(3)?])
        },
        |ctx, grads| {
            let x = &ctx.saved_tensors()?[0];
            Ok(vec![Some((&(&grads[0] * 3.0)? * &x.square()?)?)])
        },
    );
    let t = Tensor::from_slice(&[1.0f64, 2.0, 3.0]).set_requires_grad(true)?;
    let out = cube.apply(&[&t], 1)?;
    println!("cube(t) = {} (made by {})", out[0], out[0].grad_fn_name().unwrap());
    let dt = grad(&[out[0].sum()?], &[&t], None, GradFlags::default().create_graph(true))?;
    let dt = dt[0].as_ref().unwrap();
    println!("d/dt sum(t^3) = {dt}");
    let d2 = grad(&[dt.sum()?], &[&t], None, GradFlags::default())?;
    println!("d2/dt2 sum(t^3) = {}", d2[0].as_ref().unwrap());

    // Under no_grad nothing is recorded.
    let _guard = no_grad();
    println!("under no_grad, (t * 2).requires_grad() = {}", (&t * 2.0)?.requires_grad());
    Ok(())
}
