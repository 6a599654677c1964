//! Writing an expression once and checking it once: operators and methods on a pending
//! `Result<Tensor>` (TensorResult), the single-output `call1` of compiled functions and programs,
//! `Optimizer::backward_step`, and generated methods calling their overload through its handle.

use ctorch::optim::Optimizer;
use ctorch::{compile, export, CompileOptions, ErrorKind, Result, Tensor, TensorResult};

fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-6 * (1.0 + y.abs()))
}

#[test]
fn a_chain_gives_what_its_steps_give() -> Result<()> {
    let x = Tensor::from_data(&[-1.0f32, 0.5, 2.0, 3.0], &[2, 2])?;
    let stepwise = ((&x * &x.sigmoid()?)? + 1.0)?.sum_with(Some(&[1]), false)?;
    let chained = (&x * x.sigmoid()).add_scalar(1.0).sum_with(Some(&[1]), false)?;
    assert_eq!(chained.to_vec::<f32>()?, stepwise.to_vec::<f32>()?);
    // A pending result on the left, an owned or borrowed tensor on the right, and the reverse.
    let y = Tensor::ones(&[2, 2])?;
    assert!(close(&(x.exp() - &y).to_vec::<f32>()?, &(&x.exp()? - &y)?.to_vec::<f32>()?));
    assert!(close(&(y.clone() / x.abs().add_scalar(1.0)).to_vec::<f32>()?, &(&y / &(&x.abs()? + 1.0)?)?.to_vec::<f32>()?));
    assert_eq!((x.relu() * y.clone()).to_vec::<f32>()?, x.relu()?.to_vec::<f32>()?);
    assert_eq!(x.neg().double_value().unwrap_err().kind(), ErrorKind::Shape); // 4 elements, not one
    Ok(())
}

#[test]
fn the_first_error_reaches_the_end_of_the_chain() -> Result<()> {
    let x = Tensor::zeros(&[2, 3])?;
    let wrong = Tensor::zeros(&[4])?;
    // mul fails; sum, add_scalar and to_vec do not run and do not replace its error.
    let err = (&x * wrong.sigmoid()).add_scalar(1.0).sum().to_vec::<f32>().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Shape);
    assert!(err.message().contains("mul"), "{}", err.message());
    assert!(err.message().contains("[2, 3]") && err.message().contains("[4]"), "{}", err.message());
    // An error on the right-hand side passes on the same way.
    let err = (x.reshape(&[5]) + &x).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Shape);
    assert!(err.message().contains("reshape"), "{}", err.message());
    Ok(())
}

#[test]
fn call1_returns_the_single_output() -> Result<()> {
    let x = Tensor::from_slice(&[1.0f32, -2.0, 3.0]);
    let f = compile(|xs: &[Tensor]| Ok(vec![xs[0].relu()?]), 1, &CompileOptions::new())?;
    assert_eq!(f.call1(&[&x])?.to_vec::<f32>()?, vec![1.0, 0.0, 3.0]);
    let two = compile(|xs: &[Tensor]| Ok(vec![xs[0].relu()?, xs[0].neg()?]), 2, &CompileOptions::new())?;
    let err = two.call1(&[&x]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.message().contains("returns 2 tensors"), "{}", err.message());

    let program = export(|xs: &[Tensor]| Ok(vec![xs[0].mul_scalar(2.0)?]), &[&x], 1, None)?;
    assert_eq!(program.call1(&[&x])?.to_vec::<f32>()?, vec![2.0, -4.0, 6.0]);
    let program2 = export(|xs: &[Tensor]| Ok(vec![xs[0].clone(), xs[0].neg()?]), &[&x], 2, None)?;
    assert_eq!(program2.call1(&[&x]).unwrap_err().kind(), ErrorKind::InvalidArgument);
    Ok(())
}

#[test]
fn backward_step_is_zero_grad_backward_step() -> Result<()> {
    let run = |fused: bool| -> Result<Vec<f32>> {
        let w = Tensor::from_slice(&[0.5f32, -1.5]).set_requires_grad(true)?;
        let opt = Optimizer::sgd(&[&w], 0.1)?;
        for _ in 0..3 {
            let loss = (&w * &w).sum()?;
            if fused {
                opt.backward_step(&loss)?;
            } else {
                opt.zero_grad(true)?;
                loss.backward()?;
                opt.step()?;
            }
        }
        w.detach()?.to_vec::<f32>()
    };
    assert_eq!(run(true)?, run(false)?);
    // Gradients do not accumulate across steps: each step scales w by 1 - 2 * 0.1.
    assert!(close(&run(true)?, &[0.5 * 0.8f32.powi(3), -1.5 * 0.8f32.powi(3)]));
    // A loss that is not a scalar fails in backward, and nothing is stepped.
    let w = Tensor::from_slice(&[1.0f32, 2.0]).set_requires_grad(true)?;
    let opt = Optimizer::sgd(&[&w], 0.1)?;
    assert!(opt.backward_step(&(&w * 2.0)?).is_err());
    assert_eq!(w.detach()?.to_vec::<f32>()?, vec![1.0, 2.0]);
    Ok(())
}

#[test]
fn generated_methods_report_errors_through_the_handle() -> Result<()> {
    // The handle is found on the first call and reused; errors still name the operator and shapes.
    let a = Tensor::zeros(&[2, 3])?;
    for _ in 0..2 {
        let err = a.add(&Tensor::zeros(&[4])?).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Shape);
        assert!(err.message().contains("add") && err.message().contains("[2, 3]"), "{}", err.message());
    }
    assert_eq!(a.add_with(&a, 3)?.to_vec::<f32>()?, vec![0.0; 6]);
    Ok(())
}
