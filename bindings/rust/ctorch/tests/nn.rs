//! ctorch::nn from Rust: initializers (bounds, reproducibility, errors), Linear and Sequential
//! (shapes forward and backward, parameter names, state dicts), activations and losses.

use ctorch::nn::functional::{self as F, Reduction};
use ctorch::nn::init::{self, FanMode};
use ctorch::nn::{Func, Linear, Module, ReLU, Sequential, Tanh};
use ctorch::{Device, ErrorKind, Generator, Result, Tensor};

fn seeded(seed: u64) -> Result<Generator> {
    let g = Generator::new(Device::CPU)?;
    g.manual_seed(seed)?;
    Ok(g)
}

fn bits(t: &Tensor) -> Result<Vec<u32>> {
    Ok(t.to_vec::<f32>()?.into_iter().map(f32::to_bits).collect())
}

#[test]
fn uniform_stays_in_its_bounds_and_repeats_with_the_seed() -> Result<()> {
    let (a, b) = (Tensor::empty(&[100, 50])?, Tensor::empty(&[100, 50])?);
    init::uniform_(&a, -0.25, 0.5, Some(&seeded(7)?))?;
    init::uniform_(&b, -0.25, 0.5, Some(&seeded(7)?))?;
    let v = a.to_vec::<f32>()?;
    assert!(v.iter().all(|x| (-0.25..=0.5).contains(x)));
    assert!(v.iter().any(|x| *x < 0.0) && v.iter().any(|x| *x > 0.25), "the draws fill the range");
    assert_eq!(bits(&a)?, bits(&b)?);
    init::uniform_(&b, -0.25, 0.5, Some(&seeded(8)?))?;
    assert_ne!(bits(&a)?, bits(&b)?);
    Ok(())
}

#[test]
fn normal_has_its_mean_and_std() -> Result<()> {
    let t = Tensor::empty(&[20000])?;
    init::normal_(&t, 2.0, 0.5, Some(&seeded(1)?))?;
    let v = t.to_vec::<f32>()?;
    let mean = v.iter().map(|x| *x as f64).sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|x| (*x as f64 - mean).powi(2)).sum::<f64>() / v.len() as f64;
    assert!((mean - 2.0).abs() < 0.02 && (var.sqrt() - 0.5).abs() < 0.02, "mean {mean}, std {}", var.sqrt());
    Ok(())
}

#[test]
fn fan_based_bounds_follow_torch() -> Result<()> {
    let w = Tensor::empty(&[30, 20])?;
    init::xavier_uniform_(&w, 2.0, Some(&seeded(3)?))?;
    let bound = 2.0 * (6.0f64 / 50.0).sqrt();
    assert!(w.to_vec::<f32>()?.iter().all(|x| (*x as f64).abs() <= bound + 1e-6));
    init::kaiming_uniform_(&w, 0.0, FanMode::FanOut, "relu", Some(&seeded(3)?))?;
    let bound = 3f64.sqrt() * 2f64.sqrt() / 30f64.sqrt();
    assert!(w.to_vec::<f32>()?.iter().all(|x| (*x as f64).abs() <= bound + 1e-6));
    init::xavier_normal_(&w, 1.0, None)?;
    init::kaiming_normal_(&w, 0.0, FanMode::FanIn, "leaky_relu", None)?;
    assert_eq!(init::calculate_fan_in_and_fan_out(&Tensor::empty(&[3, 4, 5])?)?, (20, 15));
    assert!((init::calculate_gain("relu", 0.0)? - 2f64.sqrt()).abs() < 1e-15);
    assert!((init::calculate_gain("tanh", 0.0)? - 5.0 / 3.0).abs() < 1e-15);
    Ok(())
}

#[test]
fn linear_init_is_kaiming_uniform_with_a_sqrt5_then_the_bias() -> Result<()> {
    let (w1, b1) = (Tensor::empty(&[8, 16])?, Tensor::empty(&[8])?);
    init::linear_(&w1, Some(&b1), Some(&seeded(11)?))?;
    let (w2, b2) = (Tensor::empty(&[8, 16])?, Tensor::empty(&[8])?);
    let g = seeded(11)?;
    init::kaiming_uniform_(&w2, 5f64.sqrt(), FanMode::FanIn, "leaky_relu", Some(&g))?;
    init::uniform_(&b2, -0.25, 0.25, Some(&g))?;
    assert_eq!(bits(&w1)?, bits(&w2)?);
    assert_eq!(bits(&b1)?, bits(&b2)?);
    assert!(w1.to_vec::<f32>()?.iter().all(|x| x.abs() <= 0.25));
    Ok(())
}

#[test]
fn initializer_errors_have_their_kinds() -> Result<()> {
    let v = Tensor::empty(&[5])?;
    assert_eq!(init::xavier_uniform_(&v, 1.0, None).unwrap_err().kind(), ErrorKind::Shape);
    assert_eq!(init::linear_(&v, None, None).unwrap_err().kind(), ErrorKind::Shape);
    let ints = Tensor::zeros_with(&[2, 2], Some(ctorch::DType::Int64), None)?;
    assert_eq!(init::uniform_(&ints, 0.0, 1.0, None).unwrap_err().kind(), ErrorKind::DType);
    assert_eq!(init::uniform_(&v, 1.0, 0.0, None).unwrap_err().kind(), ErrorKind::InvalidArgument);
    let w = Tensor::empty(&[2, 2])?;
    let e = init::kaiming_uniform_(&w, 0.0, FanMode::FanIn, "swish", None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(init::calculate_gain("nope", 0.0).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(init::calculate_gain("re\0lu", 0.0).unwrap_err().kind(), ErrorKind::InvalidArgument);
    Ok(())
}

#[test]
fn initializing_a_parameter_records_no_history() -> Result<()> {
    let w = Tensor::empty(&[4, 4])?.set_requires_grad(true)?;
    init::normal_(&w, 0.0, 1.0, None)?;
    assert!(w.is_leaf() && w.grad_fn_name().is_none());
    Ok(())
}

#[test]
fn linear_forward_and_backward_shapes() -> Result<()> {
    let layer = Linear::new_with(4, 3, true, None, Some(&seeded(5)?))?;
    assert_eq!(layer.weight.size(), vec![3, 4]);
    assert!(layer.weight.requires_grad() && layer.bias.as_ref().unwrap().requires_grad());
    let x = Tensor::randn(&[2, 4])?;
    let y = layer.forward(&x)?;
    assert_eq!(y.size(), vec![2, 3]);
    y.sum()?.backward()?;
    assert_eq!(layer.weight.grad().unwrap().size(), vec![3, 4]);
    assert_eq!(layer.bias.as_ref().unwrap().grad().unwrap().to_vec::<f32>()?, vec![2.0; 3]);
    let names: Vec<String> = layer.named_parameters().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["weight", "bias"]);
    let no_bias = Linear::new_with(4, 3, false, Some(ctorch::DType::Float64), None)?;
    assert_eq!(no_bias.parameters().len(), 1);
    assert_eq!(no_bias.forward(&x.to(ctorch::DType::Float64)?)?.size(), vec![2, 3]);
    assert_eq!(layer.forward(&Tensor::randn(&[2, 5])?).unwrap_err().kind(), ErrorKind::Shape);
    Ok(())
}

#[test]
fn sequential_composes_modules_and_closures() -> Result<()> {
    let model = Sequential::new()
        .add(Linear::new(6, 5)?)
        .add(ReLU)
        .add(Linear::new(5, 4)?)
        .add(Tanh)
        .add_fn(|x| x.mul_scalar(2.0));
    assert_eq!(model.len(), 5);
    let names: Vec<String> = model.named_parameters().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["0.weight", "0.bias", "2.weight", "2.bias"]);
    let y = model.forward(&Tensor::randn(&[7, 6])?)?;
    assert_eq!(y.size(), vec![7, 4]);
    assert!(y.to_vec::<f32>()?.iter().all(|v| v.abs() <= 2.0), "tanh then doubled");
    y.sum()?.backward()?;
    for p in model.parameters() {
        assert_eq!(p.grad().unwrap().size(), p.size());
    }
    let nested = Sequential::new().add(model).add(Func::new(|x| x.sum_with(Some(&[1]), false)));
    assert_eq!(nested.named_parameters()[3].0, "0.2.bias");
    assert_eq!(nested.forward(&Tensor::randn(&[3, 6])?)?.size(), vec![3]);
    Ok(())
}

#[test]
fn state_dict_loads_into_another_model() -> Result<()> {
    let make = || -> Result<Sequential> { Ok(Sequential::new().add(Linear::new(3, 3)?).add(ReLU).add(Linear::new(3, 2)?)) };
    let (a, b) = (make()?, make()?);
    let x = Tensor::randn(&[4, 3])?;
    assert_ne!(bits(&a.forward(&x)?)?, bits(&b.forward(&x)?)?);
    let state = a.state_dict()?;
    assert!(state.iter().all(|(_, t)| !t.requires_grad()));
    b.load_state_dict(&state)?;
    assert_eq!(bits(&a.forward(&x)?)?, bits(&b.forward(&x)?)?);
    assert!(b.parameters().iter().all(|p| p.requires_grad() && p.is_leaf()));

    let missing = state[..3].to_vec();
    assert_eq!(b.load_state_dict(&missing).unwrap_err().kind(), ErrorKind::InvalidArgument);
    let mut wrong = state.clone();
    wrong[0].1 = Tensor::zeros(&[2, 3])?;
    assert_eq!(b.load_state_dict(&wrong).unwrap_err().kind(), ErrorKind::Shape);
    let mut extra = state;
    extra.push(("4.weight".into(), Tensor::zeros(&[1])?));
    assert_eq!(b.load_state_dict(&extra).unwrap_err().kind(), ErrorKind::InvalidArgument);
    Ok(())
}

#[test]
fn losses_match_their_formulas() -> Result<()> {
    let logits = Tensor::from_data(&[0.0f64, 0.0, 1.0, 3.0], &[2, 2])?;
    let target = Tensor::from_slice(&[1i64, 0]);
    let ce = F::cross_entropy(&logits, &target)?.double_value()?;
    // Row 0: logits [0, 0], class 1: ln 2. Row 1: logits [1, 3], class 0: ln(e + e^3) - 1.
    let want = (2f64.ln() + ((1f64.exp() + 3f64.exp()).ln() - 1.0)) / 2.0;
    assert!((ce - want).abs() < 1e-12, "{ce} vs {want}");
    let sum = F::cross_entropy_with(&logits, &target, None, Reduction::Sum, -100, 0.0)?.double_value()?;
    assert!((sum - 2.0 * ce).abs() < 1e-12);
    let ignored = F::cross_entropy_with(&logits, &Tensor::from_slice(&[1i64, -100]), None, Reduction::Mean, -100, 0.0)?;
    assert!((ignored.double_value()? - 2f64.ln()).abs() < 1e-12);

    let (a, b) = (Tensor::from_slice(&[1.0f32, 2.0]), Tensor::zeros(&[2])?);
    assert_eq!(F::mse_loss(&a, &b)?.double_value()?, 2.5);
    assert_eq!(F::mse_loss_with(&a, &b, Reduction::None)?.to_vec::<f32>()?, vec![1.0, 4.0]);
    assert_eq!(F::mse_loss(&a, &Tensor::zeros(&[3])?).unwrap_err().kind(), ErrorKind::Shape);
    assert_eq!(F::relu(&Tensor::from_slice(&[-1.0f32, 2.0]))?.to_vec::<f32>()?, vec![0.0, 2.0]);
    Ok(())
}

#[test]
fn modules_are_send_and_sync() -> Result<()> {
    let model = Sequential::new().add(Linear::new(2, 2)?).add(ReLU);
    let y = std::thread::spawn(move || model.forward(&Tensor::ones(&[1, 2])?)).join().unwrap()?;
    assert_eq!(y.size(), vec![1, 2]);
    Ok(())
}

#[test]
fn structured_initializers_orthogonal_trunc_normal_sparse_eye_dirac() -> Result<()> {
    // orthogonal_: the columns of a tall [6, 4] are orthonormal, times gain.
    let q = Tensor::empty_with(&[6, 4], Some(ctorch::DType::Float64), None)?;
    init::orthogonal_(&q, 1.5, Some(&seeded(2)?))?;
    let v = q.to_vec::<f64>()?;
    for i in 0..4 {
        for j in 0..4 {
            let dot: f64 = (0..6).map(|r| v[r * 4 + i] * v[r * 4 + j]).sum();
            assert!((dot - if i == j { 2.25 } else { 0.0 }).abs() < 1e-12, "{i} {j} {dot}");
        }
    }
    let t = Tensor::empty(&[4000])?;
    init::trunc_normal_(&t, 0.0, 1.0, -0.5, 0.5, None)?;
    assert!(t.to_vec::<f32>()?.iter().all(|x| x.abs() <= 0.5));
    let s = Tensor::empty(&[10, 3])?;
    init::sparse_(&s, 0.5, 0.01, None)?;
    let sv = s.to_vec::<f32>()?;
    assert!((0..3).all(|c| (0..10).filter(|r| sv[r * 3 + c] == 0.0).count() == 5));
    let e = Tensor::empty(&[2, 3])?;
    init::eye_(&e)?;
    assert_eq!(e.to_vec::<f32>()?, [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    let d = Tensor::empty(&[2, 2, 3])?;
    init::dirac_(&d, 1)?;
    assert_eq!(d.to_vec::<f32>()?, [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    assert_eq!(init::dirac_(&d, 3).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(init::orthogonal_(&t, 1.0, None).unwrap_err().kind(), ErrorKind::Shape);
    assert_eq!(init::trunc_normal_(&t, 0.0, 0.0, -2.0, 2.0, None).unwrap_err().kind(), ErrorKind::InvalidArgument);
    Ok(())
}
