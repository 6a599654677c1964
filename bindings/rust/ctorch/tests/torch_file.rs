//! PyTorch files from Rust: a checkpoint torch.save wrote (tests/data/checkpoint.pt, made by
//! tests/data/make_torch_files.py) loads with its names, values and structure; a state dict saved
//! here loads back, into a module too; damaged bytes are a Format error.

use ctorch::nn::{Linear, Module};
use ctorch::{torch_file, ErrorKind, Tensor};

const CHECKPOINT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../tests/data/checkpoint.pt");

#[test]
fn a_checkpoint_torch_wrote_loads() {
    let file = torch_file::load(CHECKPOINT).unwrap();
    assert_eq!(file.names(), ["model.weight", "model.bias"]);
    assert_eq!(file.get("model.weight").unwrap().to_vec::<f32>().unwrap(), [0.0, 0.25, 0.5, 0.75, 1.0, 1.25]);
    assert_eq!(file.get("model.weight").unwrap().size(), [2, 3]);
    assert_eq!(
        file.structure(),
        r#"{"dict":[["model",{"ordered_dict":[["weight",{"tensor":0}],["bias",{"tensor":1}]]}],["epoch",5],["history",[0.25,0.125]]]}"#
    );
    let state = file.state_dict("model");
    assert_eq!(state.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["weight", "bias"]);
    let fc = Linear::new(3, 2).unwrap();
    fc.load_state_dict(&state).unwrap();
    let y = fc.forward(&Tensor::from_data(&[1.0f32, 1.0, 1.0], &[1, 3]).unwrap()).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), [1.25, 2.5]); // 0 + .25 + .5 + .5, .75 + 1 + 1.25 - .5
}

#[test]
fn a_saved_state_dict_loads_back() {
    let w = Tensor::from_data(&[1i64, 2, 3, 4], &[2, 2]).unwrap();
    let v = Tensor::from_slice(&[true, false]);
    let bytes = torch_file::save_state_dict_to_vec(&[("w", &w), ("mask\"x", &v)]).unwrap();
    let file = torch_file::load_from_bytes(&bytes).unwrap();
    assert_eq!(file.names(), ["w", "mask\"x"]);
    assert_eq!(file.get("w").unwrap().to_vec::<i64>().unwrap(), [1, 2, 3, 4]);
    assert_eq!(file.get("mask\"x").unwrap().to_vec::<bool>().unwrap(), [true, false]);
    let path = std::env::temp_dir().join(format!("ctorch_rust_torch_file_{}.pt", std::process::id()));
    torch_file::save(&path, r#"{"tuple": [{"tensor": 0}, 3, "x"]}"#, &[&w]).unwrap();
    assert_eq!(torch_file::load(&path).unwrap().structure(), r#"{"tuple":[{"tensor":0},3,"x"]}"#);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn damaged_files_and_bad_structures_are_format_errors() {
    let bytes = std::fs::read(CHECKPOINT).unwrap();
    let err = torch_file::load_from_bytes(&bytes[..bytes.len() / 2]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Format);
    let w = Tensor::from_slice(&[1.0f32]);
    assert_eq!(torch_file::save_to_vec(r#"{"tensor": 3}"#, &[&w]).unwrap_err().kind(), ErrorKind::Format);
    assert_eq!(torch_file::load("/nonexistent/x.pt").unwrap_err().kind(), ErrorKind::Io);
}
