//! Tensor arithmetic from Rust: creation, operators, broadcasting, reductions, indexing, errors.
//!
//!   cargo run --manifest-path bindings/rust/Cargo.toml --example arithmetic

use ctorch::{DType, IndexOp, Tensor};

fn main() -> ctorch::Result<()> {
    let a = Tensor::from_data(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    let b = Tensor::from_slice(&[10.0f32, 20.0, 30.0]);
    println!("a =\n{a}");
    println!("a + b (broadcast) =\n{}", (&a + &b)?);
    println!("2 * a - 1 =\n{}", ((2.0 * &a)? - 1.0)?);
    println!("a @ a^T =\n{}", a.matmul(&a.transpose(0, 1)?)?);
    println!("row sums = {}", a.sum_with(Some(&[1]), false)?);
    println!("a[1, 1:] = {}", a.i((1, 1..))?);
    println!("softmax(a, 1) =\n{}", a.softmax(1)?);
    let ints = Tensor::arange_with(0, 6, 1, Some(DType::Int64), None)?.reshape(&[2, 3])?;
    println!("ints % 4 = {}", (&ints % 4)?);
    let values: Vec<f32> = a.exp()?.to_vec()?;
    println!("exp(a) as a Vec: {values:?}");
    // Errors carry the status kind and the library's message.
    if let Err(e) = &a + &Tensor::from_slice(&[1.0f32, 2.0]) {
        println!("a + [2] fails: {e}");
    }
    Ok(())
}
