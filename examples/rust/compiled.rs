//! A compiled function from Rust: the closure is traced once per input signature, fused, and
//! replayed; results equal the eager ones.
//!
//!   cargo run --manifest-path bindings/rust/Cargo.toml --example compiled

use ctorch::{compile, metrics, CompileOptions, Tensor};

/// gelu(x) ~ x * sigmoid(1.702 x), plus a bias: four pointwise operators, one fused loop.
fn gelu_ish(xs: &[Tensor]) -> ctorch::Result<Vec<Tensor>> {
    let (x, bias) = (&xs[0], &xs[1]);
    let gate = x.mul_scalar(1.702)?.sigmoid()?;
    Ok(vec![((x * &gate)? + bias)?])
}

fn main() -> ctorch::Result<()> {
    let f = compile(gelu_ish, 1, &CompileOptions::new().name("gelu_ish"))?;
    let x = Tensor::from_data(&[-2.0f32, -0.5, 0.0, 0.5, 1.0, 3.0], &[2, 3])?;
    let bias = Tensor::from_slice(&[0.1f32, 0.2, 0.3]);
    let compiled = f.call(&[&x, &bias])?;
    let eager = gelu_ish(&[x.clone(), bias.clone()])?;
    println!("compiled: {}", compiled[0]);
    println!("eager:    {}", eager[0]);
    println!("bitwise equal: {}", compiled[0].to_vec::<f32>()? == eager[0].to_vec::<f32>()?);
    println!("graph of entry 0:\n{}", f.graph(0)?);
    // Another batch size: automatic dynamic shapes retrace once with a symbolic batch, then reuse.
    for rows in [4, 8, 16] {
        let xi = Tensor::rand(&[rows, 3])?;
        f.call(&[&xi, &bias])?;
    }
    println!("entries: {}, process-wide recompiles: {}", f.num_entries(), metrics::get("compile.recompiles")?);
    println!("metrics: {}", f.metrics_json()?);
    Ok(())
}
