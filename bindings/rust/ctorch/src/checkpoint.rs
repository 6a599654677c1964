//! Checkpoints: safetensors files (ctorch.h, "Checkpoints"; docs/checkpoints.md). Files written
//! here open in the reference `safetensors` package and in PyTorch, and theirs open here.
//!
//! ```
//! use ctorch::checkpoint::{self, Checkpoint};
//! use ctorch::Tensor;
//! # fn main() -> ctorch::Result<()> {
//! let w = Tensor::from_data(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
//! let bytes = checkpoint::save_to_vec(&[("weight", &w)], Some(&[("step", "100")]))?;
//! let ckpt = Checkpoint::open_from_bytes(&bytes)?;
//! assert_eq!(ckpt.names(), ["weight"]);
//! assert_eq!(ckpt.get("weight")?.to_vec::<f32>()?, [1.0, 2.0, 3.0, 4.0]);
//! assert_eq!(ckpt.metadata_value("step")?.as_deref(), Some("100"));
//! # Ok(())
//! # }
//! ```
//!
//! Opening validates the whole header first: a malformed or hostile file is a `Format` error
//! naming the field and its byte offset, never a crash. A [`Checkpoint`] is a reference-counted
//! handle on a private mapping of the file; tensors got from it read the file lazily and keep the
//! mapping alive after the checkpoint is dropped. Writing into such a tensor changes this
//! process's copy only, never the file.

pub(crate) mod json;

use std::collections::BTreeMap;
use std::ffi::{CStr, CString};
use std::path::Path;
use std::ptr;

use ctorch_sys as sys;

use crate::error::{c_string, check, take_string, Error, ErrorKind, Result};
use crate::tensor::Tensor;

crate::handle::ref_counted!(
    /// An opened safetensors file: one reference to an immutable `ct_checkpoint`. `Clone` adds a
    /// reference; any number of threads may use one at once.
    Checkpoint, sys::ct_checkpoint, sys::ct_checkpoint_retain, sys::ct_checkpoint_release
);

impl std::fmt::Debug for Checkpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checkpoint").field("names", &self.names()).finish()
    }
}

pub(crate) fn c_path(what: &str, path: &Path) -> Result<CString> {
    let s = path.to_str().ok_or_else(|| {
        Error::new(ErrorKind::InvalidArgument, format!("{what}: the path {path:?} is not valid UTF-8"))
    })?;
    c_string(what, s)
}

/// The C arguments of a save: names, handles and the metadata JSON.
struct SaveArgs {
    names: Vec<CString>,
    name_ptrs: Vec<*const std::os::raw::c_char>,
    handles: Vec<*const sys::ct_tensor>,
    metadata: Option<CString>,
}

impl SaveArgs {
    fn new<S: AsRef<str>, T: AsRef<Tensor>>(what: &str, tensors: &[(S, T)], metadata: Option<&[(&str, &str)]>) -> Result<SaveArgs> {
        let names = tensors.iter().map(|(n, _)| c_string(what, n.as_ref())).collect::<Result<Vec<_>>>()?;
        let name_ptrs = names.iter().map(|n| n.as_ptr()).collect();
        let handles = tensors.iter().map(|(_, t)| t.as_ref().as_ptr() as *const _).collect();
        let metadata = metadata.map(|m| c_string(what, &json::object_of_strings(m))).transpose()?;
        Ok(SaveArgs { names, name_ptrs, handles, metadata })
    }

    fn metadata_ptr(&self) -> *const std::os::raw::c_char {
        self.metadata.as_ref().map_or(ptr::null(), |m| m.as_ptr())
    }
}

/// Writes named tensors to a safetensors file at `path`, replacing it atomically (a temporary
/// file beside it, synced, then renamed). `metadata`, when given, is stored as `__metadata__`
/// (string to string). Device tensors are copied to the host, views written in row-major order,
/// autograd state is not saved. `InvalidArgument` error for an empty, repeated or reserved
/// (`"__metadata__"`) name, or a name or path with a NUL byte; `Device` for a meta tensor; `Io`
/// when the file cannot be written (nothing is left at `path`).
pub fn save<S: AsRef<str>, T: AsRef<Tensor>>(path: impl AsRef<Path>, tensors: &[(S, T)], metadata: Option<&[(&str, &str)]>) -> Result<()> {
    let cpath = c_path("checkpoint::save", path.as_ref())?;
    let args = SaveArgs::new("checkpoint::save", tensors, metadata)?;
    debug_assert_eq!(args.names.len(), args.handles.len());
    check(unsafe {
        sys::ct_checkpoint_save(cpath.as_ptr(), args.name_ptrs.as_ptr(), args.handles.as_ptr(), args.handles.len(), args.metadata_ptr())
    })
}

/// The bytes [`save`] would write. Errors as [`save`]'s, without `Io`.
pub fn save_to_vec<S: AsRef<str>, T: AsRef<Tensor>>(tensors: &[(S, T)], metadata: Option<&[(&str, &str)]>) -> Result<Vec<u8>> {
    let args = SaveArgs::new("checkpoint::save_to_vec", tensors, metadata)?;
    let (mut data, mut size) = (ptr::null_mut(), 0);
    check(unsafe {
        sys::ct_checkpoint_save_buffer(args.name_ptrs.as_ptr(), args.handles.as_ptr(), args.handles.len(), args.metadata_ptr(), &mut data, &mut size)
    })?;
    if data.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: the library wrote `size` bytes at `data`, freed once here.
    let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size) }.to_vec();
    unsafe { sys::ct_string_release(data) };
    Ok(bytes)
}

impl Checkpoint {
    /// Maps and validates the safetensors file at `path` (tensor data is not read). `Io` error
    /// when it cannot be opened or mapped; `Format` when it breaks a rule of the format (the
    /// message names the rule, the tensor and the byte offset).
    pub fn open(path: impl AsRef<Path>) -> Result<Checkpoint> {
        let cpath = c_path("Checkpoint::open", path.as_ref())?;
        Checkpoint::make(|out| unsafe { sys::ct_checkpoint_open(cpath.as_ptr(), out) })
    }

    /// The same for a file's bytes, which are copied: `bytes` may be dropped at once. `Format`
    /// error as for [`open`](Self::open).
    pub fn open_from_bytes(bytes: &[u8]) -> Result<Checkpoint> {
        Checkpoint::make(|out| unsafe { sys::ct_checkpoint_open_buffer(bytes.as_ptr().cast(), bytes.len(), out) })
    }

    /// How many tensors the file holds.
    pub fn len(&self) -> usize {
        let mut n = 0;
        // SAFETY: self is live and out valid, so the call cannot fail.
        unsafe { sys::ct_checkpoint_num_tensors(self.as_ptr(), &mut n) };
        n
    }

    /// Whether the file holds no tensor.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The tensors' names, in the order of their data in the file.
    pub fn names(&self) -> Vec<String> {
        (0..self.len())
            .filter_map(|i| {
                let mut s = ptr::null();
                // SAFETY: i < len; the name lives as long as self and is copied at once.
                let status = unsafe { sys::ct_checkpoint_name(self.as_ptr(), i, &mut s) };
                (status == sys::CT_OK && !s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned())
            })
            .collect()
    }

    /// The tensor called `name`: a contiguous CPU tensor viewing the mapped file (read lazily,
    /// not copied, when aligned), which keeps the mapping alive. `Index` error when no tensor has
    /// this name; `DType` for a dtype ctorch lacks (U16, U32, U64, C64, 8-, 6- and 4-bit floats);
    /// `Format` for a BOOL tensor holding a byte other than 0 and 1.
    pub fn get(&self, name: &str) -> Result<Tensor> {
        let cname = c_string("Checkpoint::get", name)?;
        Tensor::make(|out| unsafe { sys::ct_checkpoint_get(self.as_ptr(), cname.as_ptr(), out) })
    }

    /// Every tensor with its name, in file order (`safetensors.torch.load_file`): a state for
    /// [`crate::nn::Module::load_state_dict`]. Errors as [`get`](Self::get)'s.
    pub fn tensors(&self) -> Result<Vec<(String, Tensor)>> {
        self.names().into_iter().map(|n| Ok((n.clone(), self.get(&n)?))).collect()
    }

    /// The `__metadata__` object as compact JSON text (`{"step":"100"}`), or `"null"` when the
    /// file has none.
    pub fn metadata_json(&self) -> Result<String> {
        let mut s = ptr::null_mut();
        check(unsafe { sys::ct_checkpoint_metadata_json(self.as_ptr(), &mut s) })?;
        Ok(take_string(s))
    }

    /// The `__metadata__` entries, or `None` when the file has none (`safe_open(...).metadata()`).
    pub fn metadata(&self) -> Result<Option<BTreeMap<String, String>>> {
        json::parse_object_of_strings(&self.metadata_json()?)
    }

    /// The metadata value stored under `key`, or `None` when there is none.
    pub fn metadata_value(&self, key: &str) -> Result<Option<String>> {
        let ckey = c_string("Checkpoint::metadata_value", key)?;
        let mut s = ptr::null();
        check(unsafe { sys::ct_checkpoint_metadata_get(self.as_ptr(), ckey.as_ptr(), &mut s) })?;
        // SAFETY: a non-NULL value lives as long as self and is copied at once.
        Ok((!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()))
    }
}
