//! Exported programs from Rust: dynamic dims, calls at other sizes, saving and loading, and the
//! errors of bad inputs and bad files.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use ctorch::export::{export, DynamicShapes, Program};
use ctorch::{DType, Error, ErrorKind, Result, Tensor};

/// Captures a weight, so the program holds a constant.
fn model(w: Tensor) -> impl Fn(&[Tensor]) -> Result<Vec<Tensor>> {
    move |xs: &[Tensor]| {
        let h = xs[0].matmul(&w)?;
        Ok(vec![(h.relu()? * 2.0)?, h.sum_with(Some(&[-1]), false)?])
    }
}

fn bits(t: &Tensor) -> Result<Vec<u32>> {
    Ok(t.to_vec::<f32>()?.into_iter().map(f32::to_bits).collect())
}

fn exported() -> Result<(Program, Tensor)> {
    let w = Tensor::randn(&[4, 3])?;
    let shapes = DynamicShapes::new().dim(0, 0, "batch", 1, 64);
    let program = export(model(w.clone()), &[Tensor::randn(&[8, 4])?], 2, Some(&shapes))?;
    Ok((program, w))
}

fn assert_same(program: &Program, w: &Tensor, batch: i64) -> Result<()> {
    let x = Tensor::randn(&[batch, 4])?;
    let got = program.call(&[&x])?;
    let want = model(w.clone())(&[x])?;
    assert_eq!(got.len(), 2);
    for (g, e) in got.iter().zip(&want) {
        assert_eq!(g.size(), e.size());
        assert_eq!(bits(g)?, bits(e)?);
    }
    Ok(())
}

/// A fresh path in the temp dir, removed when dropped.
struct TempPath(PathBuf);

impl TempPath {
    fn new(tag: &str) -> TempPath {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        TempPath(std::env::temp_dir().join(format!("ctorch-rust-{}-{tag}-{n}.ctp", std::process::id())))
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn a_dynamic_batch_serves_other_sizes() -> Result<()> {
    let (program, w) = exported()?;
    assert_eq!((program.num_inputs(), program.num_outputs()), (1, 2));
    for batch in [1, 3, 8, 64] {
        assert_same(&program, &w, batch)?;
    }
    assert!(program.graph()?.contains("matmul"), "{}", program.graph()?);
    let json = program.json()?;
    assert!(json.contains("\"batch\""), "{json}");
    Ok(())
}

#[test]
fn programs_round_trip_through_files_and_bytes() -> Result<()> {
    let (program, w) = exported()?;
    let path = TempPath::new("round-trip");
    program.save(&path.0)?;
    let from_file = Program::load(&path.0)?;
    assert_same(&from_file, &w, 5)?;
    let bytes = program.save_to_vec()?;
    assert_eq!(std::fs::read(&path.0).expect("the saved file"), bytes);
    let from_bytes = Program::load_from_bytes(&bytes)?;
    assert_same(&from_bytes, &w, 2)?;
    assert_eq!(from_bytes.json()?, program.json()?);
    // Clones share the program, also across threads.
    fn send_sync<T: Send + Sync + Clone>() {}
    send_sync::<Program>();
    let shared = from_bytes.clone();
    drop(from_bytes);
    std::thread::spawn(move || assert_same(&shared, &w, 7)).join().expect("no panic")?;
    Ok(())
}

#[test]
fn bad_inputs_are_refused_with_their_kind() -> Result<()> {
    let (program, _) = exported()?;
    let e = program.call(&[Tensor::randn(&[65, 4])?]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape, "{e}");
    assert!(e.message().contains("batch"), "{e}");
    let e = program.call(&[Tensor::randn(&[8, 5])?]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape, "{e}");
    let e = program.call(&[Tensor::randn(&[8, 4])?.to(DType::Float64)?]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType, "{e}");
    let e = program.call::<Tensor>(&[]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    Ok(())
}

#[test]
fn bad_files_are_format_or_io_errors() -> Result<()> {
    let (program, _) = exported()?;
    let bytes = program.save_to_vec()?;
    let e = Program::load_from_bytes(&bytes[..bytes.len() / 2]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Format, "{e}");
    let e = Program::load_from_bytes(b"not a program").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Format, "{e}");
    let truncated = TempPath::new("truncated");
    std::fs::write(&truncated.0, &bytes[..bytes.len() - 1]).expect("write the file");
    assert_eq!(Program::load(&truncated.0).unwrap_err().kind(), ErrorKind::Format);
    let missing = TempPath::new("missing");
    let e = Program::load(&missing.0).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
    let e = program.save(missing.0.join("no-such-dir").join("p.ctp")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
    Ok(())
}

#[test]
fn export_reports_what_went_wrong_in_the_trace() -> Result<()> {
    let x = [Tensor::randn(&[8, 4])?];
    let batch = DynamicShapes::new().dim(0, 0, "batch", 1, 64);
    // Reading a proxy's data.
    let e = export(|xs: &[Tensor]| Ok(vec![xs[0].mul_scalar(xs[0].sum()?.double_value()?)?]), &x, 1, None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::GraphBreak, "{e}");
    // Specializing a declared dim.
    let e = export(|xs: &[Tensor]| Ok(vec![xs[0].mul_scalar(xs[0].size_of(0)?)?]), &x, 1, Some(&batch)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Guard, "{e}");
    assert!(e.message().contains("batch"), "{e}");
    // The closure's own error, and a result of another length.
    let e = export(|_: &[Tensor]| Err(Error::new(ErrorKind::DType, "exported closure says no")), &x, 1, None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType, "{e}");
    assert!(e.message().contains("exported closure says no"), "{e}");
    let e = export(|xs: &[Tensor]| Ok(vec![xs[0].clone()]), &x, 3, None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    // Bad declarations.
    let e = export(|xs: &[Tensor]| Ok(vec![xs[0].clone()]), &x, 1, Some(&DynamicShapes::new().dim(0, 0, "", 1, 9))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    let e = export(|xs: &[Tensor]| Ok(vec![xs[0].clone()]), &x, 1, Some(&DynamicShapes::new().dim(0, 5, "d", 1, 9))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Index, "{e}");
    let e = export(|xs: &[Tensor]| Ok(vec![xs[0].clone()]), &x, 1, Some(&DynamicShapes::new().dim(0, 0, "b", 9, 64))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "an example outside its range: {e}");
    Ok(())
}

#[test]
fn a_panic_in_the_exported_closure_resurfaces() -> Result<()> {
    let x = [Tensor::randn(&[2, 4])?];
    let payload = catch_unwind(AssertUnwindSafe(|| {
        export(|_: &[Tensor]| -> Result<Vec<Tensor>> { panic!("boom while exporting") }, &x, 1, None)
    }))
    .expect_err("the panic resurfaces");
    let text = payload.downcast_ref::<&str>().copied().unwrap_or_default();
    assert_eq!(text, "boom while exporting");
    Ok(())
}

#[test]
fn the_closure_runs_once_and_may_borrow() -> Result<()> {
    let calls = AtomicUsize::new(0);
    let scale = Tensor::scalar(3.0f32);
    let program = export(
        |xs: &[Tensor]| {
            calls.fetch_add(1, Ordering::Relaxed);
            Ok(vec![(&xs[0] * &scale)?])
        },
        &[Tensor::ones(&[2])?],
        1,
        None,
    )?;
    assert_eq!(calls.load(Ordering::Relaxed), 1);
    assert_eq!(program.call(&[Tensor::from_slice(&[1.0f32, 2.0])])?[0].to_vec::<f32>()?, vec![3.0, 6.0]);
    assert_eq!(calls.load(Ordering::Relaxed), 1, "a call runs the graph, not the closure");
    Ok(())
}
