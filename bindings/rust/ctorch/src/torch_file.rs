//! PyTorch's checkpoint files, as `torch.save` writes and `torch.load(weights_only=True)` reads
//! them (ctorch.h, "Checkpoints: PyTorch files"; docs/checkpoints.md). A Rust program loads a
//! model trained in PyTorch, and PyTorch loads what it saves.
//!
//! ```
//! use ctorch::{torch_file, Tensor};
//! # fn main() -> ctorch::Result<()> {
//! let w = Tensor::from_data(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
//! let b = Tensor::from_slice(&[0.5f32, -0.5]);
//! let bytes = torch_file::save_state_dict_to_vec(&[("fc.weight", &w), ("fc.bias", &b)])?;
//! let file = torch_file::load_from_bytes(&bytes)?;
//! assert_eq!(file.names(), ["fc.weight", "fc.bias"]);
//! assert_eq!(file.get("fc.bias").unwrap().to_vec::<f32>()?, [0.5, -0.5]);
//! # Ok(())
//! # }
//! ```
//!
//! Loading never runs the file's pickle: it makes tensors, `OrderedDict`s and plain values only, and
//! anything else (a class, a function) is a `Format` error naming it, as is a damaged file. Each
//! tensor is named by the keys leading to it (`"model.fc.weight"` in `{"model": state_dict}`), and
//! [`TorchFile::structure`] gives the whole saved object as JSON.

use std::ffi::CStr;
use std::path::Path;
use std::ptr;

use ctorch_sys as sys;

use crate::checkpoint::{c_path, json};
use crate::error::{c_string, check, Result};
use crate::tensor::Tensor;

/// A loaded PyTorch file: its tensors (CPU tensors, views sharing memory as they did when saved)
/// with their names, and the saved object's structure.
#[derive(Debug)]
pub struct TorchFile {
    structure: String,
    tensors: Vec<(String, Tensor)>,
}

struct Handle(*mut sys::ct_torch_file);

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { sys::ct_torch_file_release(self.0) };
    }
}

fn read(load: impl FnOnce(*mut *mut sys::ct_torch_file) -> sys::ct_status) -> Result<TorchFile> {
    let mut raw = ptr::null_mut();
    check(load(&mut raw))?;
    let h = Handle(raw);
    let mut s = ptr::null();
    check(unsafe { sys::ct_torch_file_structure(h.0, &mut s) })?;
    // SAFETY: the structure lives as long as the handle and is copied at once.
    let structure = unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned();
    let mut n = 0;
    check(unsafe { sys::ct_torch_file_num_tensors(h.0, &mut n) })?;
    let mut tensors = Vec::with_capacity(n);
    for i in 0..n {
        let mut name = ptr::null();
        check(unsafe { sys::ct_torch_file_tensor_name(h.0, i, &mut name) })?;
        let name = unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned();
        tensors.push((name, Tensor::make(|out| unsafe { sys::ct_torch_file_tensor(h.0, i, out) })?));
    }
    Ok(TorchFile { structure, tensors })
}

/// Loads the PyTorch file at `path`. `Io` error when it cannot be read; `Format` when it is not a
/// file `torch.save` writes, is damaged, or holds a value a weights-only load refuses.
pub fn load(path: impl AsRef<Path>) -> Result<TorchFile> {
    let cpath = c_path("torch_file::load", path.as_ref())?;
    read(|out| unsafe { sys::ct_torch_load(cpath.as_ptr(), out) })
}

/// The same for a file's bytes (the tensors are copies). `Format` error as for [`load`].
pub fn load_from_bytes(bytes: &[u8]) -> Result<TorchFile> {
    read(|out| unsafe { sys::ct_torch_load_buffer(bytes.as_ptr().cast(), bytes.len(), out) })
}

impl TorchFile {
    /// The saved object as JSON: `{"ordered_dict": [["fc.weight", {"tensor": 0}], ...]}` for a state
    /// dict; `{"tensor": i}` is the i-th of [`tensors`](Self::tensors) (ctorch.h documents every form).
    pub fn structure(&self) -> &str {
        &self.structure
    }

    /// Every tensor with its name, in the order the object first refers to them.
    pub fn tensors(&self) -> &[(String, Tensor)] {
        &self.tensors
    }

    /// The tensors' names.
    pub fn names(&self) -> Vec<&str> {
        self.tensors.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// The tensor called `name`, if any.
    pub fn get(&self, name: &str) -> Option<&Tensor> {
        self.tensors.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    /// The tensors under `prefix` (`"model"` in `{"model": state_dict, "step": 3}`) with the prefix
    /// and its dot removed: a state for [`crate::nn::Module::load_state_dict`]. An empty prefix
    /// gives every tensor.
    pub fn state_dict(&self, prefix: &str) -> Vec<(String, Tensor)> {
        if prefix.is_empty() {
            return self.tensors.clone();
        }
        let head = format!("{prefix}.");
        self.tensors.iter().filter_map(|(n, t)| n.strip_prefix(&head).map(|rest| (rest.to_string(), t.clone()))).collect()
    }
}

fn state_dict_json<S: AsRef<str>>(names: &[S]) -> String {
    let mut out = String::from("{\"ordered_dict\":[");
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        json::write_string(&mut out, n.as_ref());
        out.push_str(&format!(",{{\"tensor\":{i}}}]"));
    }
    out.push_str("]}");
    out
}

/// Writes `structure` (JSON as [`TorchFile::structure`] gives it) over `tensors` to `path` as
/// `torch.save` does, replacing it atomically. `Format` error for a structure that is not of that
/// form or names a tensor it was not given; `Device` for a meta tensor; `Io` when it cannot be
/// written.
pub fn save(path: impl AsRef<Path>, structure: &str, tensors: &[&Tensor]) -> Result<()> {
    let cpath = c_path("torch_file::save", path.as_ref())?;
    let cstructure = c_string("torch_file::save", structure)?;
    let handles: Vec<*const sys::ct_tensor> = tensors.iter().map(|t| t.as_ptr() as *const _).collect();
    check(unsafe { sys::ct_torch_save(cpath.as_ptr(), cstructure.as_ptr(), handles.as_ptr(), handles.len()) })
}

/// The bytes [`save`] would write.
pub fn save_to_vec(structure: &str, tensors: &[&Tensor]) -> Result<Vec<u8>> {
    let cstructure = c_string("torch_file::save_to_vec", structure)?;
    let handles: Vec<*const sys::ct_tensor> = tensors.iter().map(|t| t.as_ptr() as *const _).collect();
    let (mut data, mut size) = (ptr::null_mut(), 0);
    check(unsafe { sys::ct_torch_save_buffer(cstructure.as_ptr(), handles.as_ptr(), handles.len(), &mut data, &mut size) })?;
    // SAFETY: the library wrote `size` bytes at `data`, freed once here.
    let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size) }.to_vec();
    unsafe { sys::ct_string_release(data) };
    Ok(bytes)
}

/// Writes named tensors as a state dict (an `OrderedDict`), as `torch.save(model.state_dict(), path)`.
pub fn save_state_dict<S: AsRef<str>, T: AsRef<Tensor>>(path: impl AsRef<Path>, tensors: &[(S, T)]) -> Result<()> {
    let names: Vec<&str> = tensors.iter().map(|(n, _)| n.as_ref()).collect();
    let refs: Vec<&Tensor> = tensors.iter().map(|(_, t)| t.as_ref()).collect();
    save(path, &state_dict_json(&names), &refs)
}

/// The bytes [`save_state_dict`] would write.
pub fn save_state_dict_to_vec<S: AsRef<str>, T: AsRef<Tensor>>(tensors: &[(S, T)]) -> Result<Vec<u8>> {
    let names: Vec<&str> = tensors.iter().map(|(n, _)| n.as_ref()).collect();
    let refs: Vec<&Tensor> = tensors.iter().map(|(_, t)| t.as_ref()).collect();
    save_to_vec(&state_dict_json(&names), &refs)
}
