//! An exported program from Rust: trace a function once with a dynamic batch dim, save the program
//! to a file, load it back and run it on another batch size, without the function.
//!
//!   cargo run --manifest-path bindings/rust/Cargo.toml --example exported

use ctorch::{export, DynamicShapes, Program, Tensor};

fn main() -> ctorch::Result<()> {
    // A small linear layer with its weights captured as constants of the program.
    let w = Tensor::from_data(&[0.5f32, -1.0, 2.0, 0.25, 1.0, -0.5], &[3, 2])?;
    let b = Tensor::from_slice(&[0.1f32, -0.1]);
    let model = |xs: &[Tensor]| -> ctorch::Result<Vec<Tensor>> { Ok(vec![(&xs[0].matmul(&w)? + &b)?.relu()?]) };
    let example = Tensor::ones(&[4, 3])?;
    let dims = DynamicShapes::new().dim(0, 0, "batch", 1, 1024);
    let program = export(model, &[&example], 1, Some(&dims))?;
    println!("graph:\n{}", program.graph()?);
    println!("signature: {}", program.json()?);

    let path = std::env::temp_dir().join(format!("ctorch-example-{}.ctp", std::process::id()));
    program.save(&path)?;
    let loaded = Program::load(&path)?;
    std::fs::remove_file(&path).ok();

    let x = Tensor::from_data(&[1.0f32, 2.0, 3.0, -1.0, 0.0, 1.0], &[2, 3])?;
    let y = loaded.call(&[&x])?;
    println!("loaded program on a batch of 2: {}", y[0]);
    println!("eager:                          {}", (&x.matmul(&w)? + &b)?.relu()?);
    match loaded.call(&[&Tensor::ones(&[2, 4])?]) {
        Err(e) => println!("a [2, 4] input is refused: {e}"),
        Ok(_) => println!("unexpected: a [2, 4] input was accepted"),
    }
    Ok(())
}
