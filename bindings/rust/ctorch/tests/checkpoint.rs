//! Checkpoints from Rust: safetensors round trips through files and bytes, metadata, lazy tensors
//! outliving their checkpoint, and the errors of bad files and bad arguments.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use ctorch::checkpoint::{self, Checkpoint};
use ctorch::nn::{Linear, Module, ReLU, Sequential};
use ctorch::{DType, ErrorKind, Result, Tensor};

/// A fresh path in the temp dir, removed when dropped.
struct TempPath(PathBuf);

impl TempPath {
    fn new(tag: &str) -> TempPath {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        TempPath(std::env::temp_dir().join(format!("ctorch-rust-{}-{tag}-{n}.safetensors", std::process::id())))
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn sample() -> Result<Vec<(String, Tensor)>> {
    Ok(vec![
        ("weight".into(), Tensor::from_data(&[1.5f32, -2.0, 3.25, 4.0, 0.0, -1.0], &[2, 3])?),
        ("steps".into(), Tensor::from_slice(&[7i64, -9])),
        ("mask".into(), Tensor::from_slice(&[true, false, true])),
        ("pixels".into(), Tensor::from_slice(&[0u8, 255, 16])),
        ("scalar".into(), Tensor::scalar(0.5f64)),
    ])
}

fn assert_same(ckpt: &Checkpoint, want: &[(String, Tensor)]) -> Result<()> {
    let mut names = ckpt.names();
    names.sort();
    let mut want_names: Vec<&str> = want.iter().map(|(n, _)| n.as_str()).collect();
    want_names.sort();
    assert_eq!(names, want_names);
    assert_eq!(ckpt.len(), want.len());
    for (name, t) in want {
        let got = ckpt.get(name)?;
        assert_eq!((got.size(), got.kind()), (t.size(), t.kind()), "{name}");
        assert!(got.eq(t)?.all()?.int64_value()? == 1, "{name}: {got} vs {t}");
    }
    Ok(())
}

#[test]
fn a_file_round_trip_keeps_names_dtypes_values_and_metadata() -> Result<()> {
    let path = TempPath::new("roundtrip");
    let tensors = sample()?;
    checkpoint::save(&path.0, &tensors, Some(&[("step", "100"), ("note", "a \"quoted\"\nline")]))?;
    let ckpt = Checkpoint::open(&path.0)?;
    assert_same(&ckpt, &tensors)?;
    let meta = ckpt.metadata()?.expect("metadata was saved");
    assert_eq!(meta["step"], "100");
    assert_eq!(meta["note"], "a \"quoted\"\nline");
    assert_eq!(ckpt.metadata_value("step")?.as_deref(), Some("100"));
    assert_eq!(ckpt.metadata_value("absent")?, None);
    Ok(())
}

#[test]
fn bytes_round_trip_as_the_file_does() -> Result<()> {
    let tensors = sample()?;
    let bytes = checkpoint::save_to_vec(&tensors, None)?;
    let ckpt = Checkpoint::open_from_bytes(&bytes)?;
    assert_same(&ckpt, &tensors)?;
    assert_eq!(ckpt.metadata()?, None);
    assert_eq!(ckpt.metadata_json()?, "null");
    let path = TempPath::new("same-bytes");
    checkpoint::save(&path.0, &tensors, None)?;
    assert_eq!(std::fs::read(&path.0).unwrap(), bytes, "the file holds exactly these bytes");
    let empty_meta = checkpoint::save_to_vec(&tensors, Some(&[]))?;
    assert_eq!(Checkpoint::open_from_bytes(&empty_meta)?.metadata()?.map(|m| m.len()), Some(0));
    Ok(())
}

#[test]
fn views_are_saved_in_row_major_order() -> Result<()> {
    let t = Tensor::from_data(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?.transpose(0, 1)?;
    let ckpt = Checkpoint::open_from_bytes(&checkpoint::save_to_vec(&[("t", &t)], None)?)?;
    let back = ckpt.get("t")?;
    assert_eq!(back.size(), vec![3, 2]);
    assert_eq!(back.to_vec::<f32>()?, vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    Ok(())
}

#[test]
fn tensors_outlive_their_checkpoint() -> Result<()> {
    let path = TempPath::new("lazy");
    let w = Tensor::arange(0, 1000)?.to(DType::Float32)?;
    checkpoint::save(&path.0, &[("w", &w)], None)?;
    let ckpt = Checkpoint::open(&path.0)?;
    let (a, b) = (ckpt.get("w")?, ckpt.clone().get("w")?);
    drop(ckpt);
    assert_eq!(a.to_vec::<f32>()?, w.to_vec::<f32>()?);
    a.add_scalar_(1)?; // changes this process's pages, which both tensors share, never the file
    assert_eq!(b.to_vec::<f32>()?[0], 1.0);
    assert_eq!(Checkpoint::open(&path.0)?.get("w")?.to_vec::<f32>()?[0], 0.0);
    Ok(())
}

#[test]
fn malformed_bytes_are_a_format_error() {
    for bad in [&b""[..], b"garbage", b"\x08\0\0\0\0\0\0\0{\"a\":1} ", b"\xff\xff\xff\xff\xff\xff\xff\xff{}"] {
        let e = Checkpoint::open_from_bytes(bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Format, "{bad:?}: {e}");
        assert!(!e.message().is_empty());
    }
    let mut truncated = checkpoint::save_to_vec(&sample().unwrap(), None).unwrap();
    truncated.pop();
    assert_eq!(Checkpoint::open_from_bytes(&truncated).unwrap_err().kind(), ErrorKind::Format);
}

#[test]
fn a_missing_file_is_an_io_error() {
    let path = TempPath::new("missing");
    assert_eq!(Checkpoint::open(&path.0).unwrap_err().kind(), ErrorKind::Io);
    let dir_path = std::env::temp_dir().join("no-such-dir-ctorch-rust").join("x.safetensors");
    let e = checkpoint::save(&dir_path, &[("w", &Tensor::zeros(&[1]).unwrap())], None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
}

#[test]
fn bad_names_and_arguments_are_refused() -> Result<()> {
    let t = Tensor::zeros(&[2])?;
    let ckpt = Checkpoint::open_from_bytes(&checkpoint::save_to_vec(&[("t", &t)], None)?)?;
    assert_eq!(ckpt.get("nope").unwrap_err().kind(), ErrorKind::Index);
    for names in [&["a", "a"][..], &[""], &["__metadata__"], &["nul\0"]] {
        let tensors: Vec<(&str, &Tensor)> = names.iter().map(|n| (*n, &t)).collect();
        assert_eq!(checkpoint::save_to_vec(&tensors, None).unwrap_err().kind(), ErrorKind::InvalidArgument, "{names:?}");
    }
    let meta = Tensor::empty_with(&[2], None, Some(ctorch::Device::META))?;
    assert_eq!(checkpoint::save_to_vec(&[("m", &meta)], None).unwrap_err().kind(), ErrorKind::Device);
    Ok(())
}

#[test]
fn a_model_saved_as_a_state_dict_loads_back() -> Result<()> {
    let make = || -> Result<Sequential> { Ok(Sequential::new().add(Linear::new(4, 4)?).add(ReLU).add(Linear::new(4, 2)?)) };
    let (a, b) = (make()?, make()?);
    let path = TempPath::new("model");
    checkpoint::save(&path.0, &a.state_dict()?, Some(&[("epoch", "3")]))?;
    b.load_state_dict(&Checkpoint::open(&path.0)?.tensors()?)?;
    let x = Tensor::randn(&[3, 4])?;
    assert_eq!(a.forward(&x)?.to_vec::<f32>()?, b.forward(&x)?.to_vec::<f32>()?);
    Ok(())
}

#[test]
fn checkpoints_are_shared_between_threads() -> Result<()> {
    let ckpt = Checkpoint::open_from_bytes(&checkpoint::save_to_vec(&sample()?, None)?)?;
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let c = ckpt.clone();
            std::thread::spawn(move || c.get("weight").and_then(|t| t.to_vec::<f32>()))
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap()?, vec![1.5, -2.0, 3.25, 4.0, 0.0, -1.0]);
    }
    Ok(())
}
