//! Optimizers, schedulers and gradient clipping from Rust: updates against hand-computed values
//! and against the raw C calls, state round trips, schedules, and the errors of bad input.

use std::ptr;

use ctorch::nn::utils::{clip_grad_norm, clip_grad_value};
use ctorch::optim::{LrScheduler, Optimizer, OptimizerKind, OptimizerOptions, Schedule};
use ctorch::{sys, ErrorKind, Result, Tensor};

fn param(values: &[f64]) -> Result<Tensor> {
    Tensor::from_slice(values).set_requires_grad(true)
}

/// loss = sum(p^2), so each grad is 2p.
fn backward_square(params: &[&Tensor]) -> Result<()> {
    let mut loss = Tensor::scalar(0.0f64);
    for p in params {
        loss = (&loss + &(*p * *p)?.sum()?)?;
    }
    loss.backward()
}

fn bits(t: &Tensor) -> Result<Vec<u64>> {
    Ok(t.to_vec::<f64>()?.into_iter().map(f64::to_bits).collect())
}

#[test]
fn sgd_with_momentum_matches_two_hand_computed_steps() -> Result<()> {
    let p = param(&[1.0, 2.0])?;
    let opt = Optimizer::new(&[&p], &OptimizerOptions::sgd().lr(0.1).momentum(0.9))?;
    let (lr, momentum) = (0.1f64, 0.9f64);
    let mut want = [1.0f64, 2.0];
    let mut buf = [0.0f64; 2];
    for step in 0..2 {
        opt.zero_grad(true)?;
        backward_square(&[&p])?;
        opt.step()?;
        for i in 0..2 {
            let g = 2.0 * want[i];
            buf[i] = if step == 0 { g } else { momentum * buf[i] + g };
            want[i] += -lr * buf[i];
        }
    }
    let got = p.to_vec::<f64>()?;
    assert!((got[0] - 0.46).abs() < 1e-12 && (got[1] - 0.92).abs() < 1e-12, "{got:?}");
    assert_eq!(got, want);
    Ok(())
}

#[test]
fn adam_matches_the_raw_c_calls_bit_for_bit() -> Result<()> {
    let (a, b) = (param(&[0.5, -1.5, 3.0])?, param(&[0.5, -1.5, 3.0])?);
    let opt = Optimizer::new(&[&a], &OptimizerOptions::adam().lr(0.05).weight_decay(0.01).amsgrad(true))?;
    // The same optimizer made through ctorch-sys.
    let raw = unsafe {
        let mut o: sys::ct_optimizer_options = std::mem::zeroed();
        assert_eq!(sys::ct_optimizer_options_default(sys::CT_OPTIMIZER_ADAM, &mut o), sys::CT_OK);
        o.lr = 0.05;
        o.weight_decay = 0.01;
        o.amsgrad = 1;
        let params = [b.as_ptr() as *const sys::ct_tensor];
        let mut out = ptr::null_mut();
        assert_eq!(sys::ct_optimizer_create(params.as_ptr(), 1, &o, &mut out), sys::CT_OK);
        out
    };
    for _ in 0..4 {
        opt.zero_grad(true)?;
        backward_square(&[&a])?;
        opt.step()?;
        unsafe { assert_eq!(sys::ct_optimizer_zero_grad(raw, 1), sys::CT_OK) };
        backward_square(&[&b])?;
        unsafe { assert_eq!(sys::ct_optimizer_step(raw), sys::CT_OK) };
        assert_eq!(bits(&a)?, bits(&b)?);
    }
    unsafe { sys::ct_optimizer_release(raw) };
    assert_ne!(a.to_vec::<f64>()?, vec![0.5, -1.5, 3.0]);
    Ok(())
}

#[test]
fn defaults_are_pytorchs() {
    let sgd = OptimizerOptions::sgd();
    assert_eq!((sgd.kind, sgd.lr, sgd.momentum, sgd.nesterov), (OptimizerKind::Sgd, 1e-3, 0.0, false));
    let adam = OptimizerOptions::adam();
    assert_eq!((adam.lr, adam.beta1, adam.beta2, adam.eps, adam.weight_decay), (1e-3, 0.9, 0.999, 1e-8, 0.0));
    assert_eq!(OptimizerOptions::adamw().weight_decay, 1e-2);
    let rms = OptimizerOptions::rmsprop();
    assert_eq!((rms.kind, rms.lr, rms.alpha), (OptimizerKind::RmsProp, 1e-2, 0.99));
}

#[test]
fn options_and_lr_read_back_and_bad_values_are_refused() -> Result<()> {
    let p = param(&[1.0])?;
    let opt = Optimizer::rmsprop(&[&p], 0.02)?;
    assert_eq!(opt.lr(), 0.02);
    opt.set_lr(0.5)?;
    assert_eq!(opt.options()?.lr, 0.5);
    opt.set_options(&opt.options()?.momentum(0.9).centered(true))?;
    let o = opt.options()?;
    assert!(o.centered && o.momentum == 0.9);
    assert_eq!(opt.set_lr(-1.0).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(opt.set_options(&OptimizerOptions::adam()).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(opt.lr(), 0.5, "a refused change leaves the optimizer as it was");
    assert_eq!(opt.params()?[0].as_ptr(), p.as_ptr());
    Ok(())
}

#[test]
fn bad_parameters_are_refused_with_their_kind() -> Result<()> {
    let none: [&Tensor; 0] = [];
    assert_eq!(Optimizer::sgd(&none, 0.1).unwrap_err().kind(), ErrorKind::InvalidArgument);
    let ints = Tensor::from_slice(&[1i64, 2]);
    assert_eq!(Optimizer::sgd(&[&ints], 0.1).unwrap_err().kind(), ErrorKind::DType);
    let p = param(&[1.0])?;
    assert_eq!(Optimizer::sgd(&[&p, &p], 0.1).unwrap_err().kind(), ErrorKind::InvalidArgument);
    let e = Optimizer::new(&[&p], &OptimizerOptions::adam().betas(1.5, 0.999)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("beta1"), "{}", e.message());
    Ok(())
}

#[test]
fn saved_state_continues_with_the_same_bits() -> Result<()> {
    let (a, b) = (param(&[1.0, -2.0])?, param(&[1.0, -2.0])?);
    let opt_a = Optimizer::adamw(&[&a], 0.1)?;
    for _ in 0..3 {
        opt_a.zero_grad(true)?;
        backward_square(&[&a])?;
        opt_a.step()?;
    }
    let opt_b = Optimizer::adamw(&[&b], 0.7)?;
    {
        let _g = ctorch::no_grad();
        b.copy_(&a)?;
    }
    opt_b.load_state(&opt_a.state_to_vec()?)?;
    assert_eq!(opt_b.lr(), 0.1, "the options are part of the state");
    for opt_p in [(&opt_a, &a), (&opt_b, &b)] {
        opt_p.0.zero_grad(true)?;
        backward_square(&[opt_p.1])?;
        opt_p.0.step()?;
    }
    assert_eq!(bits(&a)?, bits(&b)?);
    Ok(())
}

#[test]
fn malformed_or_mismatched_state_is_refused() -> Result<()> {
    let p = param(&[1.0, 2.0])?;
    let opt = Optimizer::sgd(&[&p], 0.1)?;
    assert_eq!(opt.load_state(b"not optimizer state").unwrap_err().kind(), ErrorKind::Format);
    let mut state = opt.state_to_vec()?;
    state.push(0);
    assert_eq!(opt.load_state(&state).unwrap_err().kind(), ErrorKind::Format, "trailing bytes");
    let other = Optimizer::adam(&[&param(&[1.0, 2.0])?], 0.1)?;
    assert_eq!(opt.load_state(&other.state_to_vec()?).unwrap_err().kind(), ErrorKind::InvalidArgument);
    Ok(())
}

#[test]
fn zero_grad_drops_or_zeroes_the_grads() -> Result<()> {
    let p = param(&[3.0])?;
    let opt = Optimizer::sgd(&[&p], 0.1)?;
    backward_square(&[&p])?;
    opt.zero_grad(false)?;
    assert_eq!(p.grad().unwrap().to_vec::<f64>()?, vec![0.0]);
    opt.zero_grad(true)?;
    assert!(p.grad().is_none());
    opt.step()?; // no grad: the parameter is skipped
    assert_eq!(p.to_vec::<f64>()?, vec![3.0]);
    Ok(())
}

fn lrs(sched: &LrScheduler, opt: &Optimizer, steps: usize) -> Result<Vec<f64>> {
    let mut out = vec![sched.last_lr()];
    for _ in 0..steps {
        opt.step()?;
        sched.step()?;
        assert_eq!(sched.last_lr(), opt.lr());
        out.push(sched.last_lr());
    }
    Ok(out)
}

fn assert_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-12, "{got:?} vs {want:?}");
    }
}

#[test]
fn multistep_exponential_constant_polynomial_and_warm_restarts() -> Result<()> {
    let run = |schedule: Schedule, n: usize| -> Result<Vec<f64>> {
        let p = param(&[1.0])?;
        let opt = Optimizer::sgd(&[&p], 1.0)?;
        let sched = LrScheduler::new(&opt, schedule)?;
        let mut seq = vec![sched.last_lr()];
        for _ in 0..n {
            sched.step()?;
            seq.push(sched.last_lr());
        }
        Ok(seq)
    };
    assert_eq!(run(Schedule::MultiStep { milestones: vec![2, 4, 4], gamma: 0.5 }, 5)?, [1.0, 1.0, 0.5, 0.5, 0.125, 0.125]);
    assert_eq!(run(Schedule::Exponential { gamma: 0.5 }, 2)?, [1.0, 0.5, 0.25]);
    assert_eq!(run(Schedule::Constant { factor: 0.5, total_iters: 2 }, 3)?, [0.5, 0.5, 1.0, 1.0]);
    assert_eq!(run(Schedule::Polynomial { total_iters: 2, power: 1.0 }, 3)?, [1.0, 0.5, 0.0, 0.0]);
    let restarts = run(Schedule::CosineAnnealingWarmRestarts { t_0: 2, t_mult: 1, eta_min: 0.0 }, 4)?;
    assert_eq!((restarts[0], restarts[2], restarts[4]), (1.0, 1.0, 1.0));
    assert!((restarts[1] - 0.5).abs() < 1e-15);
    let p = param(&[1.0])?;
    let opt = Optimizer::sgd(&[&p], 1.0)?;
    let err = LrScheduler::new(&opt, Schedule::Constant { factor: 0.0, total_iters: 2 }).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.to_string().contains("factor"), "{err}");
    assert_eq!(LrScheduler::multi_step_lr(&opt, &[1], 0.1)?.last_epoch(), 0);
    let linear = LrScheduler::linear_lr(&opt, 0.5, 1.0, 2)?; // from lr 1: 0.5, then 0.75
    linear.step()?;
    assert_eq!((linear.last_lr(), linear.last_epoch()), (0.75, 1));
    linear.restart()?; // step(0) from the base lr
    assert_eq!((linear.last_lr(), linear.last_epoch()), (0.5, 0));
    Ok(())
}

#[test]
fn schedules_follow_torchs_sequences() -> Result<()> {
    let p = param(&[1.0])?;
    let opt = Optimizer::sgd(&[&p], 1.0)?;
    let step = LrScheduler::step_lr(&opt, 2, 0.5)?;
    assert_eq!(lrs(&step, &opt, 5)?, vec![1.0, 1.0, 0.5, 0.5, 0.25, 0.25]);
    assert_eq!(step.last_epoch(), 5);
    drop(step);

    opt.set_lr(1.0)?;
    let cosine = LrScheduler::cosine_annealing_lr(&opt, 4, 0.0)?;
    let want: Vec<f64> = (0..=4).map(|e| (1.0 + (std::f64::consts::PI * e as f64 / 4.0).cos()) / 2.0).collect();
    assert_close(&lrs(&cosine, &opt, 4)?, &want);
    drop(cosine);

    opt.set_lr(1.0)?;
    let linear = LrScheduler::new(&opt, Schedule::Linear { start_factor: 0.5, end_factor: 1.0, total_iters: 2 })?;
    assert_close(&lrs(&linear, &opt, 3)?, &[0.5, 0.75, 1.0, 1.0]);
    Ok(())
}

#[test]
fn a_scheduler_keeps_its_optimizer_alive_and_refuses_bad_settings() -> Result<()> {
    let p = param(&[1.0])?;
    let opt = Optimizer::sgd(&[&p], 0.1)?;
    assert_eq!(LrScheduler::step_lr(&opt, 0, 0.1).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(LrScheduler::linear_lr(&opt, 0.0, 1.0, 5).unwrap_err().kind(), ErrorKind::InvalidArgument);
    let sched = LrScheduler::step_lr(&opt, 1, 0.5)?;
    drop(opt);
    sched.step()?;
    assert_eq!(sched.last_lr(), 0.05);
    Ok(())
}

#[test]
fn clip_grad_norm_returns_the_norm_and_scales_the_grads() -> Result<()> {
    let (a, b) = (param(&[0.0, 0.0])?, param(&[0.0])?);
    a.set_grad(Some(&Tensor::from_slice(&[3.0f64, 4.0])))?;
    b.set_grad(Some(&Tensor::from_slice(&[12.0f64])))?;
    let total = clip_grad_norm(&[&a, &b], 1.3, 2.0)?;
    assert!((total - 13.0).abs() < 1e-12, "{total}");
    let scale = 1.3 / (13.0 + 1e-6);
    assert_close(&a.grad().unwrap().to_vec::<f64>()?, &[3.0 * scale, 4.0 * scale]);
    assert_close(&b.grad().unwrap().to_vec::<f64>()?, &[12.0 * scale]);
    // Within the bound: unchanged. The infinity norm is the largest magnitude.
    let before = a.grad().unwrap().to_vec::<f64>()?;
    assert!((clip_grad_norm(&[&a, &b], 100.0, f64::INFINITY)? - 12.0 * scale).abs() < 1e-12);
    assert_eq!(a.grad().unwrap().to_vec::<f64>()?, before);
    assert_eq!(clip_grad_norm(&[&a], -1.0, 2.0).unwrap_err().kind(), ErrorKind::InvalidArgument);
    let no_grad = param(&[1.0])?;
    assert_eq!(clip_grad_norm(&[&no_grad], 1.0, 2.0)?, 0.0);
    Ok(())
}

#[test]
fn clip_grad_value_clamps_each_element() -> Result<()> {
    let p = param(&[0.0, 0.0, 0.0])?;
    p.set_grad(Some(&Tensor::from_slice(&[-5.0f64, 0.5, 3.0])))?;
    clip_grad_value(&[&p], 1.0)?;
    assert_eq!(p.grad().unwrap().to_vec::<f64>()?, vec![-1.0, 0.5, 1.0]);
    assert_eq!(clip_grad_value(&[&p], f64::NAN).unwrap_err().kind(), ErrorKind::InvalidArgument);
    Ok(())
}

#[test]
fn optimizers_and_schedulers_are_send_and_sync() {
    fn check<T: Send + Sync + Clone>() {}
    check::<Optimizer>();
    check::<LrScheduler>();
}

#[test]
fn adagrad_adadelta_and_the_adam_variants_step_as_their_formulas() -> Result<()> {
    // Adagrad, one step on loss = sum(p^2): sum = 0.5 + g^2, p -= lr * g / (sqrt(sum) + eps).
    let p = param(&[1.0, -2.0])?;
    let opt = Optimizer::new(&[&p], &OptimizerOptions::adagrad().lr(0.1).initial_accumulator_value(0.5))?;
    assert_eq!(opt.options()?.kind, OptimizerKind::Adagrad);
    backward_square(&[&p])?;
    opt.step()?;
    let want: Vec<f64> = [1.0f64, -2.0].iter().map(|&x| x + 2.0 * x * -0.1 / ((0.5 + 4.0 * x * x).sqrt() + 1e-10)).collect();
    assert_eq!(p.to_vec::<f64>()?, want);
    // Adadelta's first step: delta = sqrt(eps) / sqrt((1 - rho) g^2 + eps) * g.
    let p = param(&[3.0])?;
    let opt = Optimizer::new(&[&p], &OptimizerOptions::adadelta())?;
    backward_square(&[&p])?;
    opt.step()?;
    let g = 6.0f64;
    let delta = (1e-6f64).sqrt() / (g * 0.1 * g + 1e-6).sqrt() * g;
    assert_eq!(p.to_vec::<f64>()?, [3.0 + delta * -1.0]);
    // Every kind steps, saves and reloads; the bad rho is refused by name.
    for options in [OptimizerOptions::adamax(), OptimizerOptions::nadam().decoupled_weight_decay(true).weight_decay(0.1),
                    OptimizerOptions::radam(), OptimizerOptions::adagrad().lr_decay(0.1)] {
        let p = param(&[0.5, -0.25])?;
        let opt = Optimizer::new(&[&p], &options)?;
        backward_square(&[&p])?;
        opt.step()?;
        assert_ne!(p.to_vec::<f64>()?, vec![0.5, -0.25]);
        assert_eq!(opt.options()?, options);
    }
    let err = Optimizer::new(&[&param(&[1.0])?], &OptimizerOptions::adadelta().rho(1.5)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.to_string().contains("rho"), "{err}");
    Ok(())
}

#[test]
fn asgd_averages_and_rprop_adapts_its_steps() -> Result<()> {
    // ASGD with t0 0: mu = 1 / max(1, step - t0) is set after each step, so steps 1 and 2 copy
    // the parameter into ax and step 3 averages: ax += (p - ax) / 2.
    let p = param(&[1.0, -2.0])?;
    let opt = Optimizer::new(&[&p], &OptimizerOptions::asgd().lr(0.1).t0(0.0))?;
    assert_eq!(Optimizer::state_names(OptimizerKind::Asgd), ["step", "eta", "mu", "ax"]);
    assert!(opt.state(0, "ax")?.is_none());
    let mut p_prev = vec![1.0f64, -2.0];
    let mut eta = 0.1f32 as f64;
    let mut ax = vec![0.0f64; 2];
    for step in 1..=3 {
        opt.zero_grad(true)?;
        backward_square(&[&p])?;
        opt.step()?;
        for i in 0..2 {
            p_prev[i] = p_prev[i] * (1.0 - 1e-4 * eta) + 2.0 * p_prev[i] * -eta;
            ax[i] = if step < 3 { p_prev[i] } else { ax[i] + (p_prev[i] - ax[i]) * 0.5 };
        }
        eta = (0.1 / (1.0 + 1e-4 * 0.1 * step as f64).powf(0.75)) as f32 as f64;
    }
    assert_eq!(p.to_vec::<f64>()?, p_prev);
    assert_eq!(opt.state(0, "ax")?.expect("ax after a step").to_vec::<f64>()?, ax);
    // Rprop: the grad 2p keeps its sign, so the step grows by etaplus: lr, then 1.2 * lr.
    let p = param(&[1.0, -2.0])?;
    let opt = Optimizer::new(&[&p], &OptimizerOptions::rprop().lr(0.1))?;
    for _ in 0..2 {
        opt.zero_grad(true)?;
        backward_square(&[&p])?;
        opt.step()?;
    }
    let got = p.to_vec::<f64>()?;
    assert_eq!(got, [1.0 - 0.1 - 0.1 * 1.2, -2.0 + 0.1 + 0.1 * 1.2]);
    assert_eq!(opt.state(0, "step_size")?.expect("step sizes").to_vec::<f64>()?, [0.1 * 1.2; 2]);
    let err = Optimizer::new(&[&param(&[1.0])?], &OptimizerOptions::rprop().etas(0.5, 0.9)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(opt.state(0, "exp_avg").is_err());
    Ok(())
}

#[test]
fn lbfgs_minimizes_a_quadratic_through_a_closure() -> Result<()> {
    // f(x) = sum((x - c)^2): LBFGS with the line search reaches c.
    let x = param(&[3.0, -1.0, 0.5])?;
    let c = Tensor::from_slice(&[1.0f64, 2.0, -3.0]);
    let opt = Optimizer::new(&[&x], &OptimizerOptions::lbfgs().strong_wolfe(true))?;
    assert!(opt.step().is_err()); // LBFGS needs the closure
    let mut calls = 0;
    let first = opt.step_with(|| {
        calls += 1;
        opt.zero_grad(true)?;
        let d = (&x - &c)?;
        let loss = (&d * &d)?.sum()?;
        loss.backward()?;
        loss.double_value()
    })?;
    assert_eq!(first, 4.0 + 9.0 + 12.25);
    assert!(calls > 1);
    for (got, want) in x.to_vec::<f64>()?.iter().zip([1.0, 2.0, -3.0]) {
        assert!((got - want).abs() < 1e-6, "{got} vs {want}");
    }
    // A failing closure fails the step with its error and leaves the parameters as they were.
    let before = x.to_vec::<f64>()?;
    let err = opt.step_with(|| Err(ctorch::Error::new(ErrorKind::Shape, "no loss today"))).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Shape);
    assert!(err.to_string().contains("no loss today"), "{err}");
    assert_eq!(x.to_vec::<f64>()?, before);
    Ok(())
}

#[test]
fn a_complex_parameter_steps_as_its_real_and_imaginary_parts() -> Result<()> {
    // loss = sum of the squared parts: the gradient is 2p. Adam's first step moves each part by lr
    // against its own gradient's sign, as torch 2.x steps complex parameters (view_as_real).
    let p = Tensor::complex(&Tensor::from_slice(&[1.0f64, 0.5]), &Tensor::from_slice(&[-3.0f64, 2.0]))?
        .set_requires_grad(true)?;
    let opt = Optimizer::new(&[&p], &OptimizerOptions::adam().lr(0.1))?;
    p.view_as_real()?.square()?.sum()?.backward()?;
    opt.step()?;
    let got = p.detach()?.view_as_real()?.to_vec::<f64>()?;
    for (g, want) in got.iter().zip([0.9, -2.9, 0.4, 1.9]) {
        assert!((g - want).abs() < 1e-7, "{got:?}");
    }
    let e = Optimizer::new(&[&p], &OptimizerOptions::lbfgs()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(e.message().contains("LBFGS optimizes only floating tensors"), "{}", e.message());
    Ok(())
}
