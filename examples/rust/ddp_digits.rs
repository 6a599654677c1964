//! The digits recipe (examples/digits.md) trained data-parallel on several processes: every rank
//! holds the same 64-64-10 perceptron, takes its share of each batch of 64, and its gradients are
//! summed over the ranks while backward runs (a post-accumulate grad hook queues one all_reduce
//! per parameter), so each Adam step sees the gradient of the whole batch and the ranks stay equal.
//!
//!   cargo run --manifest-path bindings/rust/Cargo.toml --example ddp_digits
//!
//! starts 2 ranks on 127.0.0.1 over gloo (it launches itself with RANK, WORLD_SIZE, MASTER_ADDR
//! and a free MASTER_PORT); rank 0 prints the loss of each epoch. Options: `--world-size N`,
//! `--epochs N`, `--check` (afterwards, train the recipe in this one process over the full batches
//! and fail unless every rank's final weights are allclose to it), and the data file. Started with
//! RANK set (by torchrun's variables, or by hand on several hosts), it is that one rank.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ctorch::checkpoint::{self, Checkpoint};
use ctorch::distributed::{InitOptions, ProcessGroup, ReduceOp, Work};
use ctorch::nn::{functional as F, Linear, Module, ReLU, Sequential};
use ctorch::optim::{Optimizer, OptimizerOptions};
use ctorch::{runtime, DType, Tensor};

type Error = Box<dyn std::error::Error>;

const N_TRAIN: i64 = 1437;
const BATCH: i64 = 64;
// float32 sums of a batch's gradient split over ranks round differently from one sum over the
// whole batch (by about 1e-7 relative), and 690 Adam steps, which divide by the gradients' running
// scale, carry such differences to about 1e-4 in the weights after 30 epochs.
const RTOL: f64 = 1e-3;
const ATOL: f64 = 1e-4;

struct Args {
    world_size: i32,
    epochs: usize,
    check: bool,
    data: String,
    save: Option<PathBuf>,
}

fn parse_args() -> Result<Args, Error> {
    let mut a = Args {
        world_size: 2,
        epochs: 30,
        check: false,
        data: concat!(env!("CARGO_MANIFEST_DIR"), "/../../../examples/data/digits.safetensors").to_string(),
        save: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--world-size" => a.world_size = it.next().ok_or("--world-size needs a number")?.parse()?,
            "--epochs" => a.epochs = it.next().ok_or("--epochs needs a number")?.parse()?,
            "--check" => a.check = true,
            "--save" => a.save = Some(it.next().ok_or("--save needs a directory")?.into()),
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}").into()),
            _ => a.data = arg,
        }
    }
    Ok(a)
}

fn main() -> Result<(), Error> {
    let args = parse_args()?;
    if std::env::var_os("RANK").is_some() {
        let pg = ProcessGroup::init_with(&InitOptions::new("gloo").timeout(Duration::from_secs(120)))?;
        let rank = pg.rank();
        let model = train(&args, Some(Arc::new(pg)))?;
        if let Some(dir) = &args.save {
            checkpoint::save(dir.join(format!("rank{rank}.safetensors")), &model.state_dict()?, None)?;
        }
        return Ok(());
    }
    launch(&args)
}

/// Starts the ranks as copies of this program, waits for them (at most ten minutes), and with
/// --check compares their weights with one process's.
fn launch(args: &Args) -> Result<(), Error> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let dir = std::env::temp_dir().join(format!("ctorch-ddp-digits-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut rank_args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--check").collect();
    if args.check {
        rank_args.extend(["--save".to_string(), dir.display().to_string()]);
    }
    let mut ranks = Vec::new();
    for r in 0..args.world_size {
        ranks.push(
            Command::new(std::env::current_exe()?)
                .args(&rank_args)
                .env("RANK", r.to_string())
                .env("WORLD_SIZE", args.world_size.to_string())
                .env("MASTER_ADDR", "127.0.0.1")
                .env("MASTER_PORT", port.to_string())
                .spawn()?,
        );
    }
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut failed = Vec::new();
    for (r, mut child) in ranks.into_iter().enumerate() {
        let status = loop {
            if let Some(s) = child.try_wait()? {
                break Some(s);
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        if !status.is_some_and(|s| s.success()) {
            failed.push(format!("rank {r}: {}", status.map_or("did not finish in ten minutes".into(), |s| s.to_string())));
        }
    }
    if !failed.is_empty() {
        return Err(failed.join("; ").into());
    }
    if args.check {
        check(args, &dir)?;
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Trains the recipe in this process alone over the full batches and compares each rank's saved
/// weights with it.
fn check(args: &Args, dir: &Path) -> Result<(), Error> {
    println!("one process over the full batches:");
    let reference = train(args, None)?.state_dict()?;
    let rank0 = Checkpoint::open(dir.join("rank0.safetensors"))?;
    for r in 0..args.world_size {
        let saved = Checkpoint::open(dir.join(format!("rank{r}.safetensors")))?;
        for (name, want) in &reference {
            let got = saved.get(name)?;
            // Every rank applied the same summed gradients: the same bits as rank 0.
            if got.ne(&rank0.get(name)?)?.any()?.int64_value()? != 0 {
                return Err(format!("rank {r}'s {name} differs from rank 0's").into());
            }
            let diff = got.sub(want)?.abs()?;
            // The worst element's difference as a share of what allclose allows it.
            let share = diff.div(&want.abs()?.mul_scalar(RTOL)?.add_scalar(ATOL)?)?.max()?.double_value()?;
            let diff = diff.max()?.double_value()?;
            let close = got.isclose_with(want, RTOL, ATOL, false)?.all()?.int64_value()? != 0;
            println!(
                "rank {r} {name:9} max |difference| {diff:.3e} ({:.0}% of the tolerance){}",
                100.0 * share,
                if close { "" } else { "  NOT allclose" }
            );
            if !close {
                return Err(format!("rank {r}'s {name} differs from one process's (max difference {diff:e})").into());
            }
        }
    }
    println!("every rank holds rank 0's bits, allclose to one process's (rtol {RTOL:e}, atol {ATOL:e})");
    Ok(())
}

/// The recipe; with a group, each rank takes its slice of every batch and the gradients are
/// summed over the ranks.
fn train(args: &Args, pg: Option<Arc<ProcessGroup>>) -> Result<Sequential, Error> {
    let (rank, world) = pg.as_ref().map_or((0, 1), |pg| (pg.rank() as i64, pg.world_size() as i64));

    // The same seed on every rank: the same initial weights and the same permutations.
    runtime::manual_seed(0)?;
    let data = Checkpoint::open(&args.data)?;
    let (pixels, labels) = (data.get("pixels")?, data.get("labels")?);
    let x = pixels.to(DType::Float32)?.div_scalar(16)?;
    let n = labels.size()[0];
    let perm = Tensor::randperm(n)?;
    let train = perm.narrow(0, 0, N_TRAIN)?;

    let model = Sequential::new().add(Linear::new(64, 64)?).add(ReLU).add(Linear::new(64, 10)?);
    let params = model.parameters();
    let pending: Arc<Mutex<Vec<Work>>> = Arc::default();
    if let Some(pg) = &pg {
        // As DistributedDataParallel: rank 0's weights everywhere, then each gradient's sum over
        // the ranks queued as soon as backward has accumulated it.
        for p in &params {
            pg.broadcast(p, 0)?;
            let (pg, pending) = (pg.clone(), pending.clone());
            p.register_post_accumulate_grad_hook(move |leaf| {
                let grad = leaf.grad().expect("a gradient was just accumulated");
                pending.lock().unwrap().push(pg.all_reduce_async(&grad, ReduceOp::Sum)?);
                Ok(())
            })?;
        }
    }
    let opt = Optimizer::new(&params, &OptimizerOptions::adam().lr(0.01))?;

    for epoch in 1..=args.epochs {
        let order = Tensor::randperm(N_TRAIN)?;
        let mut total = 0.0f64;
        for start in (0..N_TRAIN).step_by(BATCH as usize) {
            let len = BATCH.min(N_TRAIN - start);
            // This rank's share of the batch: rows [len * rank / world, len * (rank + 1) / world).
            let (lo, hi) = (len * rank / world, len * (rank + 1) / world);
            let idx = train.index_select(0, &order.narrow(0, start + lo, hi - lo)?)?;
            let (xb, yb) = (x.index_select(0, &idx)?, labels.index_select(0, &idx)?);
            let logits = model.forward(&xb)?;
            // The batch mean is the sum over the ranks of (the rank's sum / the batch's size).
            let loss = match pg {
                None => F::cross_entropy(&logits, &yb)?,
                Some(_) => F::cross_entropy_with(&logits, &yb, None, F::Reduction::Sum, -100, 0.0)?.div_scalar(len)?,
            };
            opt.zero_grad(true)?;
            loss.backward()?;
            for work in pending.lock().unwrap().drain(..) {
                work.wait()?;
            }
            opt.step()?;
            total += loss.double_value()? * len as f64;
        }
        if let Some(pg) = &pg {
            let t = Tensor::from_slice(&[total]);
            pg.all_reduce(&t, ReduceOp::Sum)?;
            total = t.to_vec::<f64>()?[0];
        }
        if rank == 0 {
            let loss = total / N_TRAIN as f64;
            println!("epoch {epoch:2}  loss {loss:.9}  ({world} rank{})", if world == 1 { "" } else { "s" });
        }
    }
    Ok(model)
}
