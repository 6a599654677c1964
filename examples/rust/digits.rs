//! The digits recipe (examples/digits.md) in Rust: a 64-64-10 perceptron trained with Adam on the
//! handwritten digits, the same library calls in the same order as every other language, so the
//! epoch losses are the same bits everywhere.
//!
//!   cargo run --manifest-path bindings/rust/Cargo.toml --example digits [path/to/digits.safetensors]

use ctorch::checkpoint::Checkpoint;
use ctorch::nn::{functional as F, Linear, Module, ReLU, Sequential};
use ctorch::optim::{Optimizer, OptimizerOptions};
use ctorch::{no_grad, runtime, DType, Tensor};

const N_TRAIN: i64 = 1437;
const BATCH: i64 = 64;
const EPOCHS: usize = 30;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../../../examples/data/digits.safetensors").to_string());

    // 1-2. Seed, then the data through the checkpoint API; pixels 0..16 become floats in [0, 1].
    runtime::manual_seed(0)?;
    let data = Checkpoint::open(&path)?;
    let (pixels, labels) = (data.get("pixels")?, data.get("labels")?);
    let x = pixels.to(DType::Float32)?.div_scalar(16)?;

    // 3. The 80/20 split: the first 1437 entries of a permutation train, the other 360 test.
    let n = labels.size()[0];
    let perm = Tensor::randperm(n)?;
    let train = perm.narrow(0, 0, N_TRAIN)?;
    let test = perm.narrow(0, N_TRAIN, n - N_TRAIN)?;

    // 4. The model. Linear::new makes the recipe's calls: empty weight and bias, init_linear_
    //    (torch's nn.Linear defaults from the default generator), then requires grad.
    let model = Sequential::new().add(Linear::new(64, 64)?).add(ReLU).add(Linear::new(64, 10)?);

    // 5. Adam with torch's defaults and lr 0.01 over [W1, b1, W2, b2].
    let opt = Optimizer::new(&model.parameters(), &OptimizerOptions::adam().lr(0.01))?;

    // 6-7. Training: one permutation of the training set per epoch, batches of 64.
    for epoch in 1..=EPOCHS {
        let order = Tensor::randperm(N_TRAIN)?;
        let mut total = 0.0f64;
        for start in (0..N_TRAIN).step_by(BATCH as usize) {
            let len = BATCH.min(N_TRAIN - start);
            let idx = train.index_select(0, &order.narrow(0, start, len)?)?;
            let (xb, yb) = (x.index_select(0, &idx)?, labels.index_select(0, &idx)?);
            let loss = F::cross_entropy(&model.forward(&xb)?, &yb)?;
            opt.zero_grad(true)?;
            loss.backward()?;
            opt.step()?;
            total += loss.double_value()? * len as f64;
        }
        let loss = total / N_TRAIN as f64;
        println!("epoch {epoch:2}  loss {loss:.9}  bits {:016x}", loss.to_bits());
    }

    // 8. Held-out accuracy, without recording a graph.
    let _no_grad = no_grad();
    let (x_test, y_test) = (x.index_select(0, &test)?, labels.index_select(0, &test)?);
    let pred = model.forward(&x_test)?.argmax_with(Some(1), false)?;
    let correct = pred.eq(&y_test)?.sum()?.int64_value()?;
    let total = y_test.numel();
    println!("held-out accuracy {:.2}% ({correct}/{total})", 100.0 * correct as f64 / total as f64);
    Ok(())
}
