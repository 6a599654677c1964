//! Compiled functions from Rust: results equal eager ones bitwise, the cache and its metrics, graph
//! breaks, errors and panics from the closure, gradients, and ownership of the closure.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use ctorch::compile::{compile, wait_kernels, CompileOptions, Compiled, Dynamic};
use ctorch::{sys, Error, ErrorKind, Result, Tensor};

fn gelu_ish(xs: &[Tensor]) -> Result<Vec<Tensor>> {
    let (x, y) = (&xs[0], &xs[1]);
    Ok(vec![((x * x.mul_scalar(1.702)?.sigmoid()?)? + y)?])
}

fn bits(t: &Tensor) -> Result<Vec<u32>> {
    Ok(t.to_vec::<f32>()?.into_iter().map(f32::to_bits).collect())
}

/// One counter of `Compiled::metrics_json` (a flat object of numbers).
fn metric(f: &Compiled, name: &str) -> i64 {
    let json = f.metrics_json().expect("metrics");
    let key = format!("\"{name}\":");
    let rest = json[json.find(&key).unwrap_or_else(|| panic!("{name} in {json}")) + key.len()..].trim_start();
    let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    rest[..end].parse().unwrap_or_else(|_| panic!("{name} in {json}"))
}

#[test]
fn results_equal_eager_bitwise() -> Result<()> {
    let f = compile(gelu_ish, 1, &CompileOptions::new())?;
    let inputs = [Tensor::randn(&[5, 37])?, Tensor::randn(&[5, 37])?];
    let compiled = f.call(&inputs)?;
    assert_eq!(compiled.len(), 1);
    assert_eq!(bits(&compiled[0])?, bits(&gelu_ish(&inputs)?[0])?);
    let graph = f.graph(0)?;
    assert!(graph.contains("sigmoid") && graph.contains("mul") && graph.contains("add"), "{graph}");
    assert!(graph.contains("fused"), "{graph}");
    assert_eq!(f.graph(1).unwrap_err().kind(), ErrorKind::Index);

    let reductions = |xs: &[Tensor]| -> Result<Vec<Tensor>> {
        let x = &xs[0];
        Ok(vec![x.exp()?.sum_with(Some(&[-1]), false)?, (x.relu()? - x.tanh()?)?])
    };
    let g = compile(reductions, 2, &CompileOptions::new().backend("eager"))?;
    let x = [Tensor::randn(&[3, 8])?];
    for (c, e) in g.call(&x)?.iter().zip(reductions(&x)?) {
        assert_eq!(bits(c)?, bits(&e)?);
    }
    Ok(())
}

/// Softmax and RMSNorm over the last dim: row kernels with reductions.
fn row_kernels(xs: &[Tensor]) -> Result<Vec<Tensor>> {
    let (x, w) = (&xs[0], &xs[1]);
    let e = (x - x.amax_with(Some(&[-1]), true)?)?.exp()?;
    let softmax = (&e / e.sum_with(Some(&[-1]), true)?)?;
    let ms = (x * x)?.mean_with(Some(&[-1]), true)?;
    let rms = ((x * ms.add_scalar(1e-6)?.rsqrt()?)? * w)?;
    Ok(vec![softmax, rms])
}

#[test]
fn max_autotune_builds_cpp_kernels_with_eager_bits() -> Result<()> {
    // The system compiler builds the kernels; they must give the eager results bit for bit.
    let f = compile(row_kernels, 2, &CompileOptions::new().mode("max-autotune"))?;
    let inputs = [Tensor::randn(&[9, 130])?, Tensor::randn(&[130])?];
    for (c, e) in f.call(&inputs)?.iter().zip(row_kernels(&inputs)?) {
        assert_eq!(bits(c)?, bits(&e)?);
    }
    let graph = f.graph(0)?;
    assert!(graph.contains("fused_cpp["), "{graph}");
    Ok(())
}

#[test]
fn hot_kernels_are_built_in_the_background() -> Result<()> {
    // "cpp_kernels" "auto" (the default) builds a kernel once it is hot: here from its first call.
    let f = compile(row_kernels, 2, &CompileOptions::new().option("cpp_kernels_hot_ms", 0))?;
    let inputs = [Tensor::randn(&[11, 130])?, Tensor::randn(&[130])?];
    for _ in 0..2 {
        for (c, e) in f.call(&inputs)?.iter().zip(row_kernels(&inputs)?) {
            assert_eq!(bits(c)?, bits(&e)?);
        }
        wait_kernels();
    }
    let graph = f.graph(0)?;
    assert!(graph.contains("fused_cpp["), "{graph}");
    Ok(())
}

#[test]
fn bad_cpp_kernel_options_are_refused_with_the_values_allowed() -> Result<()> {
    for (key, value, allowed) in [
        ("cpp_kernels", "maybe", "\"auto\""),
        ("cpp_kernels_hot_ms", "-1", "from 0 to 1e12"),
        ("cpp_kernels_hot_ms", "1ms", "from 0 to 1e12"),
    ] {
        let e = compile(row_kernels, 2, &CompileOptions::new().option(key, value)).err().expect("a bad value compiled");
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
        assert!(e.to_string().contains(key) && e.to_string().contains(allowed), "{e}");
    }
    Ok(())
}

#[test]
fn the_cache_serves_equal_shapes_and_recompiles_others() -> Result<()> {
    let f = compile(gelu_ish, 1, &CompileOptions::new().dynamic(Dynamic::Off).name("gelu_ish"))?;
    let a = [Tensor::randn(&[4, 8])?, Tensor::randn(&[4, 8])?];
    f.call(&a)?;
    f.call(&[Tensor::randn(&[4, 8])?, Tensor::randn(&[4, 8])?])?;
    assert_eq!((metric(&f, "calls"), metric(&f, "compiles"), metric(&f, "recompiles")), (2, 1, 0));
    assert_eq!(f.num_entries(), 1);
    let b = [Tensor::randn(&[6, 8])?, Tensor::randn(&[6, 8])?];
    assert_eq!(bits(&f.call(&b)?[0])?, bits(&gelu_ish(&b)?[0])?);
    assert_eq!(metric(&f, "recompiles"), 1);
    assert_eq!(f.num_entries(), 2);

    // Automatic: the changed dim becomes a symbol, and the new entry serves further sizes.
    let g = compile(gelu_ish, 1, &CompileOptions::new())?;
    for n in [4, 6, 9] {
        g.call(&[Tensor::randn(&[n, 8])?, Tensor::randn(&[n, 8])?])?;
    }
    assert_eq!((metric(&g, "compiles"), g.num_entries()), (2, 2));
    assert!(g.graph(1)?.contains("s0"), "{}", g.graph(1)?);
    Ok(())
}

/// Reads a proxy's data: a graph break.
fn reads_item(xs: &[Tensor]) -> Result<Vec<Tensor>> {
    let total = xs[0].sum()?.double_value()?;
    Ok(vec![xs[0].mul_scalar(total)?])
}

#[test]
fn graph_breaks_fail_under_fullgraph_and_run_eagerly_otherwise() -> Result<()> {
    let x = [Tensor::from_slice(&[1.0f32, 2.0])];
    let strict = compile(reads_item, 1, &CompileOptions::new().fullgraph(true))?;
    let e = strict.call(&x).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::GraphBreak, "{e}");

    let lenient = compile(reads_item, 1, &CompileOptions::new())?;
    assert_eq!(lenient.call(&x)?[0].to_vec::<f32>()?, vec![3.0, 6.0]);
    assert_eq!(metric(&lenient, "graph_breaks"), 1);
    assert!(metric(&lenient, "eager_calls") >= 1);
    Ok(())
}

#[test]
fn errors_from_the_closure_reach_the_caller() -> Result<()> {
    let f = compile(
        |_: &[Tensor]| -> Result<Vec<Tensor>> { Err(Error::new(ErrorKind::Shape, "the closure refuses: sizes 3 and 4")) },
        1,
        &CompileOptions::new(),
    )?;
    let e = f.call(&[Tensor::from_slice(&[1.0f32])]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape, "{e}");
    assert!(e.message().contains("the closure refuses: sizes 3 and 4"), "{e}");

    // A result of another length than declared.
    let g = compile(|xs: &[Tensor]| Ok(vec![xs[0].clone()]), 2, &CompileOptions::new())?;
    let e = g.call(&[Tensor::from_slice(&[1.0f32])]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    assert!(e.message().contains("returned 1 tensor(s) where 2 were declared"), "{e}");

    // Operators' own errors keep their kind.
    let h = compile(|xs: &[Tensor]| Ok(vec![xs[0].matmul(&xs[1])?]), 1, &CompileOptions::new())?;
    let e = h.call(&[Tensor::ones(&[2, 3])?, Tensor::ones(&[2, 3])?]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape, "{e}");
    Ok(())
}

#[test]
fn a_panic_in_the_closure_resurfaces() -> Result<()> {
    let f = compile(
        |_: &[Tensor]| -> Result<Vec<Tensor>> { panic!("boom in the compiled closure") },
        1,
        &CompileOptions::new(),
    )?;
    let x = [Tensor::from_slice(&[1.0f32])];
    let payload = catch_unwind(AssertUnwindSafe(|| f.call(&x))).expect_err("the panic resurfaces");
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(text.contains("boom in the compiled closure"), "{text}");
    // The library is still usable on this thread.
    assert_eq!(Tensor::from_slice(&[1.0f32]).add_scalar(1.0)?.to_vec::<f32>()?, vec![2.0]);
    Ok(())
}

#[test]
fn options_are_checked() {
    let bad = [
        CompileOptions::new().backend("no-such-backend"),
        CompileOptions::new().mode("fastest"),
        CompileOptions::new().option("fusion", "maybe"),
        CompileOptions::new().option("unknown_key", true),
        CompileOptions::new().recompile_limit(0),
        CompileOptions::new().mode("max-autotune").option("cse", false),
    ];
    for options in bad {
        let e = compile(gelu_ish, 1, &options).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{options:?}: {e}");
    }
}

// Autograd through the C API (the crate's autograd methods live in another module).
fn set_requires_grad(t: &Tensor) {
    assert_eq!(unsafe { sys::ct_tensor_set_requires_grad(t.as_ptr(), 1) }, sys::CT_OK);
}
fn backward(t: &Tensor) {
    assert_eq!(unsafe { sys::ct_tensor_backward(t.as_ptr(), std::ptr::null(), 0) }, sys::CT_OK);
}
fn grad(t: &Tensor) -> Tensor {
    let mut g = std::ptr::null_mut();
    assert_eq!(unsafe { sys::ct_tensor_grad(t.as_ptr(), &mut g) }, sys::CT_OK);
    unsafe { Tensor::from_raw(g) }.expect("a gradient")
}

#[test]
fn gradients_flow_through_a_compiled_function() -> Result<()> {
    let loss = |xs: &[Tensor]| -> Result<Vec<Tensor>> { Ok(vec![(&xs[0] * xs[0].sin()?)?.sum()?]) };
    let f = compile(loss, 1, &CompileOptions::new())?;
    let data = Tensor::randn(&[7])?;
    let (a, b) = (data.deep_clone()?, data.deep_clone()?);
    set_requires_grad(&a);
    set_requires_grad(&b);
    backward(&f.call(&[&a])?[0]);
    backward(&loss(std::slice::from_ref(&b))?[0]);
    assert_eq!(bits(&grad(&a))?, bits(&grad(&b))?);
    Ok(())
}

#[test]
fn the_backward_is_compiled_too_and_reaches_captured_weights() -> Result<()> {
    let w = Tensor::randn(&[5])?.set_requires_grad(true)?;
    let weight = w.clone();
    let gate = move |xs: &[Tensor]| -> Result<Vec<Tensor>> { Ok(vec![((&xs[0] * &weight)?.sigmoid()? * &xs[0])?.sum()?]) };
    let x = Tensor::randn(&[6, 5])?.set_requires_grad(true)?;
    gate(std::slice::from_ref(&x))?[0].backward()?;
    let (want_x, want_w) = (x.grad().expect("x.grad"), w.grad().expect("w.grad"));
    x.set_grad(None)?;
    w.set_grad(None)?;
    let f = compile(gate, 1, &CompileOptions::new())?;
    let loss = f.call(&[&x])?.remove(0);
    assert_eq!(loss.grad_fn_name().as_deref(), Some("CompiledFunctionBackward"));
    loss.backward()?;
    assert_eq!(bits(&x.grad().expect("x.grad"))?, bits(&want_x)?);
    assert_eq!(bits(&w.grad().expect("w.grad"))?, bits(&want_w)?);
    let graph = f.graph(0)?;
    assert!(graph.starts_with("forward:") && graph.contains("\nbackward:\n"), "{graph}");
    Ok(())
}

#[test]
fn the_closure_lives_as_long_as_the_last_clone() -> Result<()> {
    fn send_sync<T: Send + Sync + Clone>() {}
    send_sync::<Compiled>();
    let state = Arc::new(2.0f64);
    let captured = Arc::clone(&state);
    let f = compile(move |xs: &[Tensor]| Ok(vec![xs[0].mul_scalar(*captured)?]), 1, &CompileOptions::new())?;
    assert_eq!(Arc::strong_count(&state), 2);
    let g = f.clone();
    drop(f);
    let out = std::thread::spawn(move || g.call(&[Tensor::from_slice(&[1.5f32])]).map(|o| (o, g)))
        .join()
        .expect("no panic")?;
    assert_eq!(out.0[0].to_vec::<f32>()?, vec![3.0]);
    assert_eq!(Arc::strong_count(&state), 2);
    drop(out);
    assert_eq!(Arc::strong_count(&state), 1, "the last clone drops the closure");
    Ok(())
}
