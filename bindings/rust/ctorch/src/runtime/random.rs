//! Random numbers: seeding the default generators, and private generators (`torch.Generator`)
//! that draw through the typed C functions.

use std::ffi::CString;
use std::fmt;
use std::ptr::{self, NonNull};

use ctorch_sys as sys;

use crate::callback::enter;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{check, Error, ErrorKind, Result};
use crate::tensor::Tensor;

/// Seeds every device's default generator (`torch.manual_seed`) and rewinds it to its start.
/// Never fails in practice; returns the library's status.
pub fn manual_seed(seed: u64) -> Result<()> {
    check(unsafe { sys::ct_manual_seed(seed) })
}

/// The seed of the CPU default generator (`torch.initial_seed`).
pub fn initial_seed() -> u64 {
    let mut seed = 0;
    // SAFETY: out is valid, so the call cannot fail.
    unsafe { sys::ct_initial_seed(&mut seed) };
    seed
}

/// A Philox random stream of one device type (`torch.Generator`): a seed and an offset in 128-bit
/// blocks, checkpointed as [`Generator::state`]. Draws with it leave the default generator alone.
/// A generator may be used from several threads at once (the numbers then depend on the order in
/// which the calls reserve their blocks).
pub struct Generator {
    ptr: NonNull<sys::ct_generator>,
}

// SAFETY: the C ABI: a generator is safe to use from several threads at once.
unsafe impl Send for Generator {}
unsafe impl Sync for Generator {}

impl Drop for Generator {
    fn drop(&mut self) {
        unsafe { sys::ct_generator_release(self.ptr.as_ptr()) }
    }
}

impl fmt::Debug for Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Generator(seed={}, offset={})", self.initial_seed(), self.offset())
    }
}

/// The C device argument: NULL for "the default device".
fn device_arg(device: Option<Device>) -> Option<CString> {
    device.map(Device::to_cstring)
}

fn as_c(device: &Option<CString>) -> *const std::os::raw::c_char {
    device.as_ref().map_or(ptr::null(), |d| d.as_ptr())
}

impl Generator {
    fn adopt(f: impl FnOnce(*mut *mut sys::ct_generator) -> sys::ct_status) -> Result<Generator> {
        let mut out = ptr::null_mut();
        check(f(&mut out))?;
        NonNull::new(out)
            .map(|ptr| Generator { ptr })
            .ok_or_else(|| Error::new(ErrorKind::Internal, "ctorch returned a NULL generator where one was promised"))
    }

    /// A new generator for `device`, seeded with 67280421310721 at offset 0. `Device` error for
    /// a device without random number support (meta).
    pub fn new(device: Device) -> Result<Generator> {
        let name = device.to_cstring();
        Generator::adopt(|out| unsafe { sys::ct_generator_create(name.as_ptr(), out) })
    }

    /// A handle to `device`'s default generator (`torch.default_generator`), the one operators
    /// use when given no generator: seeding it here seeds them. `Device` error for a device
    /// without random number support.
    pub fn default_for(device: Device) -> Result<Generator> {
        let name = device.to_cstring();
        Generator::adopt(|out| unsafe { sys::ct_default_generator(name.as_ptr(), out) })
    }

    /// The raw handle, borrowed for as long as `self` lives.
    pub fn as_ptr(&self) -> *mut sys::ct_generator {
        self.ptr.as_ptr()
    }

    /// Seeds the stream and rewinds it to offset 0.
    pub fn manual_seed(&self, seed: u64) -> Result<()> {
        check(unsafe { sys::ct_generator_manual_seed(self.as_ptr(), seed) })
    }

    /// The seed.
    pub fn initial_seed(&self) -> u64 {
        let mut seed = 0;
        // SAFETY: the handle is live and out valid, so the call cannot fail.
        unsafe { sys::ct_generator_initial_seed(self.as_ptr(), &mut seed) };
        seed
    }

    /// The next unused 128-bit block of the stream.
    pub fn offset(&self) -> u64 {
        let mut offset = 0;
        // SAFETY: the handle is live and out valid, so the call cannot fail.
        unsafe { sys::ct_generator_get_offset(self.as_ptr(), &mut offset) };
        offset
    }

    /// Moves the stream to `offset` (in 128-bit blocks); an earlier offset replays the stream.
    pub fn set_offset(&self, offset: u64) -> Result<()> {
        check(unsafe { sys::ct_generator_set_offset(self.as_ptr(), offset) })
    }

    /// A checkpoint of the seed and offset, for [`Generator::set_state`] on any generator of the
    /// same device type.
    pub fn state(&self) -> Result<[u8; sys::CT_GENERATOR_STATE_SIZE]> {
        let mut state = [0u8; sys::CT_GENERATOR_STATE_SIZE];
        check(unsafe { sys::ct_generator_get_state(self.as_ptr(), state.as_mut_ptr(), state.len()) })?;
        Ok(state)
    }

    /// Restores a checkpoint from [`Generator::state`]. `InvalidArgument` error when `state` is not
    /// `CT_GENERATOR_STATE_SIZE` (24) bytes; `Format` error when the bytes are not a state (the
    /// generator is then unchanged).
    pub fn set_state(&self, state: &[u8]) -> Result<()> {
        if state.len() != sys::CT_GENERATOR_STATE_SIZE {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "Generator::set_state: a state is {} bytes, got {}; pass what Generator::state returned",
                    sys::CT_GENERATOR_STATE_SIZE,
                    state.len()
                ),
            ));
        }
        check(unsafe { sys::ct_generator_set_state(self.as_ptr(), state.as_ptr(), state.len()) })
    }

    // ---- drawing ----
    //
    // The draws allocate, so they run under `enter`: a memory-pressure handler that panics has its
    // panic resumed here.

    /// Uniform values on [0, 1) of `sizes` (`torch.rand(..., generator=g)`); `dtype` None is the
    /// default dtype, `device` None the thread's default device. `DType` error for an integral
    /// dtype, `Device` error when the generator belongs to another device type,
    /// `InvalidArgument` error for a negative size.
    pub fn rand(&self, sizes: &[i64], dtype: Option<DType>, device: Option<Device>) -> Result<Tensor> {
        let (dtype, device) = (dtype.unwrap_or_else(crate::runtime::default_dtype), device_arg(device));
        Tensor::make(|out| {
            enter(|| unsafe { sys::ct_tensor_rand(sizes.as_ptr(), sizes.len(), dtype.to_c(), as_c(&device), self.as_ptr(), out) })
        })
    }

    /// Standard normal values of `sizes` (`torch.randn`); the arguments and errors of
    /// [`Generator::rand`].
    pub fn randn(&self, sizes: &[i64], dtype: Option<DType>, device: Option<Device>) -> Result<Tensor> {
        let (dtype, device) = (dtype.unwrap_or_else(crate::runtime::default_dtype), device_arg(device));
        Tensor::make(|out| {
            enter(|| unsafe { sys::ct_tensor_randn(sizes.as_ptr(), sizes.len(), dtype.to_c(), as_c(&device), self.as_ptr(), out) })
        })
    }

    /// Integers uniform on [low, high) of `sizes` (`torch.randint`); `dtype` None is int64.
    /// `InvalidArgument` error for `low >= high` or a range `dtype` does not hold exactly;
    /// `Device` error as for [`Generator::rand`].
    pub fn randint(&self, low: i64, high: i64, sizes: &[i64], dtype: Option<DType>, device: Option<Device>) -> Result<Tensor> {
        let (dtype, device) = (dtype.unwrap_or(DType::Int64), device_arg(device));
        Tensor::make(|out| {
            enter(|| unsafe {
                sys::ct_tensor_randint(low, high, sizes.as_ptr(), sizes.len(), dtype.to_c(), as_c(&device), self.as_ptr(), out)
            })
        })
    }

    /// A random permutation of 0..n (`torch.randperm`); `dtype` None is int64. `InvalidArgument`
    /// error for a negative `n` or one `dtype` does not hold.
    pub fn randperm(&self, n: i64, dtype: Option<DType>, device: Option<Device>) -> Result<Tensor> {
        let (dtype, device) = (dtype.unwrap_or(DType::Int64), device_arg(device));
        Tensor::make(|out| enter(|| unsafe { sys::ct_tensor_randperm(n, dtype.to_c(), as_c(&device), self.as_ptr(), out) }))
    }

    /// Fills `t` in place with values uniform on [from, to) (`Tensor.uniform_`). `InvalidArgument`
    /// error for bounds that are not finite or `from > to`, `DType` error for an integral `t`.
    pub fn uniform_(&self, t: &Tensor, from: f64, to: f64) -> Result<()> {
        check(enter(|| unsafe { sys::ct_tensor_uniform_(t.as_ptr(), from, to, self.as_ptr()) }))
    }

    /// Fills `t` in place with normal values (`Tensor.normal_`). `InvalidArgument` error for a
    /// non-finite mean or a negative std, `DType` error for an integral `t`.
    pub fn normal_(&self, t: &Tensor, mean: f64, std: f64) -> Result<()> {
        check(enter(|| unsafe { sys::ct_tensor_normal_(t.as_ptr(), mean, std, self.as_ptr()) }))
    }

    /// Fills `t` in place with 1 with probability `p`, else 0 (`Tensor.bernoulli_(p)`); any dtype.
    /// `InvalidArgument` error for `p` outside [0, 1].
    pub fn bernoulli_(&self, t: &Tensor, p: f64) -> Result<()> {
        check(enter(|| unsafe { sys::ct_tensor_bernoulli_(t.as_ptr(), p, self.as_ptr()) }))
    }

    /// 1 with probability `p[i]`, else 0, per element of the floating tensor `p`
    /// (`torch.bernoulli`). `InvalidArgument` error for a probability outside [0, 1] (the message
    /// gives the first and its index), `DType` error for an integral `p`.
    pub fn bernoulli(&self, p: &Tensor) -> Result<Tensor> {
        Tensor::make(|out| enter(|| unsafe { sys::ct_tensor_bernoulli(p.as_ptr(), self.as_ptr(), out) }))
    }

    /// `num_samples` int64 category indices per row of the 1-D or 2-D weights `probs`
    /// (`torch.multinomial`). `InvalidArgument` error for a bad weight, a row without positive
    /// weight, or more samples than categories without replacement; `Shape` error for other ranks.
    pub fn multinomial(&self, probs: &Tensor, num_samples: i64, replacement: bool) -> Result<Tensor> {
        Tensor::make(|out| {
            enter(|| unsafe { sys::ct_tensor_multinomial(probs.as_ptr(), num_samples, replacement as i32, self.as_ptr(), out) })
        })
    }

    /// Zeroes each element with probability `p` and scales the rest by 1 / (1 - p) when `train`
    /// (`torch.nn.functional.dropout`); with `train` false, `input` itself. Differentiable.
    /// `InvalidArgument` error for `p` outside [0, 1], `DType` error for an integral input in
    /// training.
    pub fn dropout(&self, input: &Tensor, p: f64, train: bool) -> Result<Tensor> {
        Tensor::make(|out| enter(|| unsafe { sys::ct_tensor_dropout(input.as_ptr(), p, train as i32, self.as_ptr(), out) }))
    }
}
