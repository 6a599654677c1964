//! Export (`torch.export`): [`export`] traces a closure once, with declared dynamic dims, into a
//! [`Program`] that runs without the closure, saves to a versioned file (docs/program-format.md)
//! and loads back in any process, from any binding.
//!
//! ```
//! use ctorch::export::{export, DynamicShapes, Program};
//! use ctorch::Tensor;
//! # fn main() -> ctorch::Result<()> {
//! let x = Tensor::ones(&[4, 3])?;
//! let shapes = DynamicShapes::new().dim(0, 0, "batch", 1, 1024);
//! let program = export(|xs: &[Tensor]| Ok(vec![xs[0].mul_scalar(2.0)?]), &[&x], 1, Some(&shapes))?;
//! let out = program.call(&[Tensor::ones(&[7, 3])?])?;
//! assert_eq!(out[0].size(), vec![7, 3]);
//! let again = Program::load_from_bytes(&program.save_to_vec()?)?;
//! assert_eq!(again.num_inputs(), 1);
//! # Ok(())
//! # }
//! ```

use std::cell::Cell;
use std::ffi::{c_void, CString};
use std::path::Path;
use std::ptr;

use ctorch_sys as sys;

use crate::callback::enter;
use crate::compile::run_traced;
use crate::error::{c_string, check, take_string, Error, ErrorKind, Result};
use crate::ops::arg;
use crate::tensor::Tensor;

/// Which dims of the example inputs are dynamic, and their ranges; every other size is static.
#[derive(Clone, Debug, Default)]
pub struct DynamicShapes {
    dims: Vec<(usize, i64, String, i64, i64)>,
}

impl DynamicShapes {
    /// No dynamic dim.
    pub fn new() -> DynamicShapes {
        DynamicShapes::default()
    }

    /// Declares dim `dim` (negative counts from the end) of input `input` dynamic, as the symbol
    /// `name` in `[min, max]` (`i64::MAX` for no upper end). Dims declared with one name are one
    /// symbol: they must be equal on every call. [`export`] checks the declarations:
    /// `InvalidArgument` error for an empty name or a bad range, `Index` error for a dim or input
    /// out of range.
    pub fn dim(mut self, input: usize, dim: i64, name: &str, min: i64, max: i64) -> DynamicShapes {
        self.dims.push((input, dim, name.to_owned(), min, max));
        self
    }

    fn to_c(&self) -> Result<CShapes> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::ct_dynamic_shapes_create(&mut out) })?;
        let shapes = CShapes(out);
        for (input, dim, name, min, max) in &self.dims {
            let cname = c_string("DynamicShapes::dim", name)?;
            check(unsafe { sys::ct_dynamic_shapes_set_dim(shapes.0, *input, *dim, cname.as_ptr(), *min, *max) })?;
        }
        Ok(shapes)
    }
}

/// Owns a `ct_dynamic_shapes` for the length of [`export`].
struct CShapes(*mut sys::ct_dynamic_shapes);

impl Drop for CShapes {
    fn drop(&mut self) {
        unsafe { sys::ct_dynamic_shapes_release(self.0) }
    }
}

/// The closure of one export: taken by its one call.
type Slot<F> = Cell<Option<F>>;

unsafe extern "C" fn export_trampoline<F>(
    user_data: *mut c_void,
    inputs: *const *const sys::ct_tensor,
    n_inputs: usize,
    outputs: *mut *mut sys::ct_tensor,
    n_outputs: usize,
) -> sys::ct_status
where
    F: FnOnce(&[Tensor]) -> Result<Vec<Tensor>>,
{
    // SAFETY: export lends a Slot<F> on its stack for the length of ct_export, which calls this
    // on the calling thread.
    let slot = &*user_data.cast::<Slot<F>>();
    let once = |inputs: &[Tensor]| match slot.take() {
        Some(f) => f(inputs),
        None => Err(Error::new(ErrorKind::Internal, "export: the library called the traced closure twice")),
    };
    run_traced("exported function", once, inputs, n_inputs, outputs, n_outputs)
}

/// Traces `f` once on proxies of `example_inputs` (real or meta tensors) and returns the program.
/// `f` returns exactly `n_outputs` tensors and is not kept. Errors: `InvalidArgument` for an
/// example outside a declared range, dims sharing a name with different sizes, or `f` returning
/// another number of tensors; `Index` for a declared dim out of range; `GraphBreak` when `f` reads
/// a proxy's data; `Guard` when `f` specializes a declared dim (the message names it); whatever
/// `f` or an operator reports. A panic in `f` resumes here.
pub fn export<F, T>(f: F, example_inputs: &[T], n_outputs: usize, dynamic_shapes: Option<&DynamicShapes>) -> Result<Program>
where
    F: FnOnce(&[Tensor]) -> Result<Vec<Tensor>>,
    T: AsRef<Tensor>,
{
    let shapes = dynamic_shapes.map(DynamicShapes::to_c).transpose()?;
    let shapes_ptr = shapes.as_ref().map_or(ptr::null(), |s| s.0 as *const _);
    let handles = arg::handles(example_inputs);
    let slot: Slot<F> = Cell::new(Some(f));
    let user_data = &slot as *const Slot<F> as *mut c_void;
    Program::make(|out| {
        enter(|| unsafe {
            sys::ct_export(
                Some(export_trampoline::<F>),
                user_data,
                handles.as_ptr(),
                handles.len(),
                n_outputs,
                shapes_ptr,
                out,
            )
        })
    })
}

crate::handle::ref_counted!(
    /// An exported program: one reference to an immutable `ct_program`. `Clone` adds a reference;
    /// a program may be called from several threads at once.
    Program, sys::ct_program, sys::ct_program_retain, sys::ct_program_release
);

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Program({} inputs, {} outputs)", self.num_inputs(), self.num_outputs())
    }
}

/// A path as the C library takes it.
fn c_path(what: &str, path: &Path) -> Result<CString> {
    let s = path.to_str().ok_or_else(|| {
        Error::new(ErrorKind::InvalidArgument, format!("{what}: the path {path:?} is not valid UTF-8"))
    })?;
    c_string(what, s)
}

impl Program {
    /// Runs the program on `inputs`. Errors: `InvalidArgument` for the wrong number of inputs;
    /// `DType` or `Device` for an input unlike its spec; `Shape` for a static size that differs, a
    /// dynamic size out of its range or dims sharing a symbol that differ (the message names the
    /// input, dim and symbol); `Guard` when a guard of the export or a runtime assertion fails;
    /// whatever an operator reports.
    pub fn call<T: AsRef<Tensor>>(&self, inputs: &[T]) -> Result<Vec<Tensor>> {
        let handles = arg::handles(inputs);
        let mut outs = vec![ptr::null_mut(); self.num_outputs()];
        check(enter(|| unsafe {
            sys::ct_program_call(self.as_ptr(), handles.as_ptr(), handles.len(), outs.as_mut_ptr(), outs.len())
        }))?;
        outs.into_iter().map(Tensor::adopt).collect()
    }

    /// [`Program::call`] of a program with one output, which it returns:
    /// `let y = program.call1(&[&x])?;`. `InvalidArgument` when the program has another number
    /// of outputs (use `call`).
    pub fn call1<T: AsRef<Tensor>>(&self, inputs: &[T]) -> Result<Tensor> {
        let n = self.num_outputs();
        if n != 1 {
            let what = format!("call1: the program returns {n} tensors; use call");
            return Err(Error::new(ErrorKind::InvalidArgument, what));
        }
        Ok(self.call(inputs)?.remove(0))
    }

    /// How many inputs a call takes.
    pub fn num_inputs(&self) -> usize {
        let mut n = 0;
        unsafe { sys::ct_program_num_inputs(self.as_ptr(), &mut n) };
        n
    }

    /// How many outputs a call returns.
    pub fn num_outputs(&self) -> usize {
        let mut n = 0;
        unsafe { sys::ct_program_num_outputs(self.as_ptr(), &mut n) };
        n
    }

    /// The graph as text, one node per line.
    pub fn graph(&self) -> Result<String> {
        let mut s = ptr::null_mut();
        check(unsafe { sys::ct_program_graph(self.as_ptr(), &mut s) })?;
        Ok(take_string(s))
    }

    /// The signature as JSON: `{"inputs": [...], "outputs": [...], "env": {...}}`, sizes as
    /// expressions over the symbols (`"2*batch"`).
    pub fn json(&self) -> Result<String> {
        let mut s = ptr::null_mut();
        check(unsafe { sys::ct_program_json(self.as_ptr(), &mut s) })?;
        Ok(take_string(s))
    }

    /// Writes the program file to `path`, through a temporary file, so a failure never leaves half
    /// a program there. `Io` error when it cannot be written; `NotImplemented` when a captured
    /// tensor is not on the CPU; `InvalidArgument` for a path that is not UTF-8.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let cpath = c_path("Program::save", path.as_ref())?;
        check(unsafe { sys::ct_program_save(self.as_ptr(), cpath.as_ptr()) })
    }

    /// The bytes [`Program::save`] would write. `NotImplemented` error when a captured tensor is
    /// not on the CPU.
    pub fn save_to_vec(&self) -> Result<Vec<u8>> {
        let (mut data, mut size) = (ptr::null_mut(), 0);
        check(unsafe { sys::ct_program_save_buffer(self.as_ptr(), &mut data, &mut size) })?;
        if data.is_null() {
            return Ok(Vec::new());
        }
        // SAFETY: the library wrote `size` bytes at `data`, freed once here.
        let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size) }.to_vec();
        unsafe { sys::ct_string_release(data) };
        Ok(bytes)
    }

    /// Reads a program file. No kernel runs: operators are looked up by name (register custom
    /// ones first) and every field is validated. `Io` error when the file cannot be read;
    /// `Format` for a malformed, truncated or newer-version file (the message names the field and
    /// byte offset).
    pub fn load(path: impl AsRef<Path>) -> Result<Program> {
        let cpath = c_path("Program::load", path.as_ref())?;
        Program::make(|out| enter(|| unsafe { sys::ct_program_load(cpath.as_ptr(), out) }))
    }

    /// Reads a program from the bytes of a program file; errors as [`Program::load`] (no `Io`).
    pub fn load_from_bytes(bytes: &[u8]) -> Result<Program> {
        Program::make(|out| enter(|| unsafe { sys::ct_program_load_buffer(bytes.as_ptr().cast(), bytes.len(), out) }))
    }
}
