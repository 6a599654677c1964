//! Symbolic shapes from Rust: expressions, guards, symbolic meta tensors through operators.

use ctorch::ops::{self, Value};
use ctorch::symbolic::{sym_ite, sym_max, sym_min, sym_not, sym_sum, ShapeEnv, SymBool, SymFloat, SymInt};
use ctorch::{DType, Device, ErrorKind, Result, Tensor};

fn env_with_symbol(hint: i64, min: i64, max: i64) -> Result<(ShapeEnv, SymInt)> {
    let env = ShapeEnv::new()?;
    let s0 = env.create_symbol("", hint, min, max)?;
    Ok((env, s0))
}

#[test]
fn expressions_simplify_as_documented() -> Result<()> {
    let (_env, s0) = env_with_symbol(8, 1, 1024)?;
    assert!(s0.is_symbolic());
    assert_eq!(s0.to_string(), "s0");
    assert_eq!((&s0 * 4)?.floordiv(4)?.to_string(), "s0");
    assert_eq!(s0.max(1)?.to_string(), "s0", "max(s0, 1) is s0 when s0 >= 1");
    assert_eq!((2 * (&s0 + 1)?)?.to_string(), "2*s0 + 2");
    let zero = (&s0 - &s0)?;
    assert!(!zero.is_symbolic());
    assert_eq!(zero.maybe_int(), Some(0));
    assert_eq!(s0.maybe_int(), None);
    // A size is known to be >= 0: the comparison is a plain true.
    assert_eq!(s0.ge(0)?.maybe_bool(), Some(true));
    // Python's rules for // and % of negatives.
    let minus7 = SymInt::new(-7)?;
    assert_eq!(minus7.floordiv(2)?.maybe_int(), Some(-4));
    assert_eq!((&minus7 % 2)?.maybe_int(), Some(1));
    assert_eq!((-&minus7)?.maybe_int(), Some(7));
    // `/` is true division.
    let half: SymFloat = (&s0 / 2)?;
    assert!(half.is_symbolic());
    assert_eq!(half.evaluate(&[9])?, 4.5);
    assert_eq!((&half * 2.0)?.to_sym_int()?.evaluate(&[9])?, 9);
    assert_eq!((-SymFloat::new(0.0)?)?.maybe_float().map(f64::is_sign_negative), Some(true));
    assert_eq!(s0.pow(2)?.evaluate(&[5])?, 25);
    // Numbers on either side, and ints mixed into float arithmetic.
    assert_eq!((10 - &s0)?.evaluate(&[3])?, 7);
    assert_eq!((&half + &s0)?.evaluate(&[4])?, 6.0);
    assert_eq!((1.0 / &half)?.evaluate(&[4])?, 0.5);
    assert_eq!(half.lt(&s0)?.to_string(), "float(s0)/2.0 < float(s0)");
    Ok(())
}

#[test]
fn builders_record_no_guard() -> Result<()> {
    let env = ShapeEnv::new()?;
    let s0 = env.create_symbol("batch", 8, 2, 64)?;
    let s1 = env.create_symbol("", 3, 2, 64)?;
    assert_eq!(s1.to_string(), "s1");
    let hi = sym_max(&[&s0, &s1])?;
    let lo = sym_min(&[&s0, &s1])?;
    let total = sym_sum(&[&s0, &s1, &SymInt::new(1)?])?;
    let bigger: SymBool = s0.gt(&s1)?;
    let picked = sym_ite(&bigger, &s0, 0)?;
    let not_bigger = sym_not(&bigger)?;
    let both = (&bigger & &not_bigger)?;
    assert_eq!(hi.evaluate(&[8, 3])?, 8);
    assert_eq!(lo.evaluate(&[8, 3])?, 3);
    assert_eq!(total.evaluate(&[8, 3])?, 12);
    assert_eq!(picked.evaluate(&[2, 3])?, 0);
    assert!((!&bigger)?.evaluate(&[2, 3])?);
    assert!(!both.evaluate(&[8, 3])?);
    assert!(hi.to_string().starts_with("max("), "{hi}");
    assert_eq!(sym_sum::<SymInt>(&[])?.maybe_int(), Some(0));
    assert_eq!(sym_max::<SymInt>(&[]).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(env.num_guards(), 0);
    assert_eq!(env.num_symbols(), 2);
    Ok(())
}

#[test]
fn guards_are_recorded_and_checked() -> Result<()> {
    let env = ShapeEnv::new()?;
    let s0 = env.create_symbol("", 8, 1, 1024)?;
    let s1 = env.create_symbol("", 3, 1, 1024)?;
    let big = s0.gt(4)?;
    assert!(big.is_symbolic());
    assert_eq!(env.num_guards(), 0, "a comparison records nothing until asked");
    assert!(big.guard_bool()?);
    assert_eq!(env.num_guards(), 1);
    let requests = env.guard_requests();
    assert!(s0.ge(2)?.guard_bool()?, "s0 > 4 decides s0 >= 2");
    assert_eq!(env.guard_requests(), requests, "a decided question is no request");
    assert_eq!(s1.guard_int()?, 3);
    assert_eq!(env.num_guards(), 2);
    assert!(env.guards_json()?.contains("s1 == 3"), "{}", env.guards_json()?);
    assert_eq!(env.check_guards(&[16, 3])?, None);
    assert_eq!(env.check_guards(&[3, 3])?, Some(0));
    assert_eq!(env.check_guards(&[16, 4])?, Some(1));
    assert_eq!(env.check_guards(&[16]).unwrap_err().kind(), ErrorKind::InvalidArgument);
    // An unbacked symbol has no hint to branch on.
    let u0 = env.create_unbacked()?;
    let e = u0.gt(3)?.guard_bool().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Guard, "{e}");
    Ok(())
}

#[test]
fn bad_symbols_and_mixed_envs_are_invalid_arguments() -> Result<()> {
    let (_a, s0) = env_with_symbol(8, 1, 64)?;
    let (_b, t0) = env_with_symbol(8, 1, 64)?;
    let e = (&s0 + &t0).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    assert_eq!(s0.lt(&t0).unwrap_err().kind(), ErrorKind::InvalidArgument);
    let e = Tensor::empty_symbolic(&[&s0, &t0], DType::Float32).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    let env = ShapeEnv::new()?;
    assert_eq!(env.create_symbol("", 100, 1, 64).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(env.create_symbol("x\0y", 8, 1, 64).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(SymInt::new(i64::MIN).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(s0.floordiv(0).unwrap_err().kind(), ErrorKind::InvalidArgument);
    Ok(())
}

#[test]
fn symbolic_meta_tensors_through_operators() -> Result<()> {
    let (env, s0) = env_with_symbol(8, 2, 1024)?;
    let x = Tensor::empty_symbolic(&[&s0, &SymInt::new(3)?], DType::Float32)?;
    assert!(x.is_symbolic());
    assert_eq!(x.device(), Device::META);
    assert_eq!(x.size_of(0).unwrap_err().kind(), ErrorKind::Guard);
    let sizes: Vec<String> = x.sym_sizes()?.iter().map(ToString::to_string).collect();
    assert_eq!(sizes, ["s0", "3"]);
    assert_eq!(x.sym_stride(0)?.maybe_int(), Some(3));
    assert_eq!(x.sym_strides()?.len(), 2);
    assert_eq!(x.sym_numel()?.to_string(), "3*s0");

    let both = Tensor::cat(&[&x, &x])?;
    assert_eq!(both.sym_size(0)?.to_string(), "2*s0");
    let w = Tensor::empty_with(&[3, 5], Some(DType::Float32), Some(Device::META))?;
    let y = x.matmul(&w)?;
    assert_eq!(y.sym_size(0)?.to_string(), "s0");
    assert_eq!(y.sym_size(-1)?.maybe_int(), Some(5));
    assert_eq!(y.sym_numel()?.evaluate(&[16])?, 80);
    assert_eq!(y.sym_size(2).unwrap_err().kind(), ErrorKind::Index);
    // Shapes that cannot fit fail as on real tensors.
    assert_eq!(x.matmul(&x).unwrap_err().kind(), ErrorKind::Shape);

    // item() of a meta integer of the env is an unbacked symbol.
    let n = Tensor::empty_symbolic(&[&s0], DType::Int64)?.sum()?;
    let u0 = n.sym_item()?;
    assert!(u0.is_symbolic());
    assert_eq!(env.num_symbols(), 2);
    let e = Tensor::from_slice(&[1i64]).sym_item().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Device, "{e}");
    assert!(!Tensor::from_slice(&[1.0f32]).is_symbolic());
    Ok(())
}

#[test]
fn operators_by_name_take_symbolic_sizes() -> Result<()> {
    let (_env, s0) = env_with_symbol(8, 2, 1024)?;
    let x = Tensor::empty_symbolic(&[&s0, &SymInt::new(3)?], DType::Float32)?;
    let flat = [(&s0 * 3)?];
    let out = ops::call("reshape", &[(&x).into(), Value::SymInts(&flat)])?;
    assert_eq!(out[0].sym_sizes()?.len(), 1);
    assert_eq!(out[0].sym_size(0)?.to_string(), "3*s0");
    let half = s0.floordiv(2)?;
    let narrowed = ops::call("narrow", &[(&x).into(), 0i64.into(), 0i64.into(), (&half).into()])?;
    assert_eq!(narrowed[0].sym_size(0)?.to_string(), "s0//2");
    Ok(())
}

#[test]
fn handles_are_shared_across_threads() -> Result<()> {
    fn send_sync<T: Send + Sync + Clone>() {}
    send_sync::<ShapeEnv>();
    send_sync::<SymInt>();
    send_sync::<SymFloat>();
    send_sync::<SymBool>();
    let (env, s0) = env_with_symbol(8, 1, 64)?;
    let copy = s0.clone();
    drop(s0);
    let env2 = env.clone();
    drop(env);
    let text = std::thread::spawn(move || -> Result<String> {
        let s1 = env2.create_symbol("", 4, 1, 64)?;
        Ok((&copy + &s1)?.to_string())
    })
    .join()
    .expect("no panic")?;
    assert_eq!(text, "s0 + s1");
    Ok(())
}
