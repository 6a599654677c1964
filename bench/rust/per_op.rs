//! Per-operator cost of the Rust binding on 1-element tensors, timed alternately in one run beside
//! the same `ct_tensor_add` + `ct_tensor_release` called through the raw C ABI: `&a + &b` (the typed
//! C function) and `a.add(&b)`, a generated method, which calls its overload through the handle
//! `ct_op_find` gave it (`ct_op_call_op`). The ratios are what the safe API costs over C (targets: 1.2x typed, 1.3x generated).
//!
//!   cargo bench --manifest-path bindings/rust/Cargo.toml --bench per_op
//! (scripts/bench.sh runs it.)

use std::hint::black_box;
use std::ptr;
use std::time::Instant;

use ctorch::{sys, Tensor};

const CALLS: usize = 200_000;
const ROUNDS: usize = 15;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Nanoseconds per call of `f` over one round.
fn round(mut f: impl FnMut()) -> f64 {
    let t0 = Instant::now();
    for _ in 0..CALLS {
        f();
    }
    t0.elapsed().as_secs_f64() * 1e9 / CALLS as f64
}

fn main() {
    let a = Tensor::from_slice(&[1.5f32]);
    let b = Tensor::from_slice(&[2.5f32]);
    let through_c = || unsafe {
        let mut out = ptr::null_mut();
        let status = sys::ct_tensor_add(black_box(a.as_ptr()), black_box(b.as_ptr()), &mut out);
        assert_eq!(status, sys::CT_OK);
        sys::ct_tensor_release(black_box(out));
    };
    let through_rust = || {
        let c = (black_box(&a) + black_box(&b)).expect("add");
        drop(black_box(c));
    };
    let through_generated = || {
        let c = black_box(&a).add(black_box(&b)).expect("add");
        drop(black_box(c));
    };
    // Same result both ways before timing anything.
    assert_eq!((&a + &b).unwrap().to_vec::<f32>().unwrap(), vec![4.0]);
    assert_eq!(a.add(&b).unwrap().to_vec::<f32>().unwrap(), vec![4.0]);
    let (mut c_ns, mut rust_ns, mut generated_ns) = (Vec::new(), Vec::new(), Vec::new());
    round(through_c);
    round(through_rust);
    round(through_generated);
    for _ in 0..ROUNDS {
        c_ns.push(round(through_c));
        rust_ns.push(round(through_rust));
        generated_ns.push(round(through_generated));
    }
    let (c, r, g) = (median(c_ns), median(rust_ns), median(generated_ns));
    println!("Rust binding, per-op cost of an add of 1-element float32 tensors (median of {ROUNDS} rounds of {CALLS} calls)");
    println!("{:<37} {:>12} {:>12} {:>8}", "operation", "C ABI ns", "ctorch ns", "ratio");
    println!("{:<37} {:>12.1} {:>12.1} {:>7.2}x", "&a + &b (ct_tensor_add + release)", c, r, r / c);
    println!("{:<37} {:>12.1} {:>12.1} {:>7.2}x", "a.add(&b) (generated, ct_op_call_op)", c, g, g / c);
}
