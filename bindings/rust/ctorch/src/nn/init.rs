//! Initializers (`torch.nn.init`), computed by the library's `ct_init_*`: each fills a tensor in
//! place with grad mode off (so a parameter that requires grad can be initialized), drawing from
//! `generator` or, when `None`, the default generator of the tensor's device. The numbers are
//! ctorch's Philox stream: a seed reproduces them on every machine and in every language, though
//! not the numbers torch draws for the same seed.
//!
//! Errors: `InvalidArgument` for a bad bound, mode or nonlinearity name; `Shape` for the fan-based
//! ones on a tensor of fewer than 2 dims; `DType` for an integral tensor; `Device` for a meta
//! tensor or a generator of another device type.

use std::ffi::CString;
use std::ptr;

use ctorch_sys as sys;

use crate::error::{c_string, check, Result};
use crate::runtime::Generator;
use crate::tensor::Tensor;

/// Which fan the Kaiming initializers scale by (torch's `mode=`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum FanMode {
    /// `"fan_in"` (the default): keeps the forward pass's variance.
    #[default]
    FanIn,
    /// `"fan_out"`: keeps the backward pass's variance.
    FanOut,
}

impl FanMode {
    fn to_cstring(self) -> CString {
        CString::new(match self {
            FanMode::FanIn => "fan_in",
            FanMode::FanOut => "fan_out",
        })
        .expect("no NUL")
    }
}

fn gen_ptr(generator: Option<&Generator>) -> *mut sys::ct_generator {
    generator.map_or(ptr::null_mut(), Generator::as_ptr)
}

/// `init.uniform_(t, a, b)`: U(a, b).
pub fn uniform_(t: &Tensor, a: f64, b: f64, generator: Option<&Generator>) -> Result<()> {
    check(unsafe { sys::ct_init_uniform_(t.as_ptr(), a, b, gen_ptr(generator)) })
}

/// `init.normal_(t, mean, std)`: N(mean, std²).
pub fn normal_(t: &Tensor, mean: f64, std: f64, generator: Option<&Generator>) -> Result<()> {
    check(unsafe { sys::ct_init_normal_(t.as_ptr(), mean, std, gen_ptr(generator)) })
}

/// `init.xavier_uniform_(t, gain)`: U(±gain·sqrt(6 / (fan_in + fan_out))).
pub fn xavier_uniform_(t: &Tensor, gain: f64, generator: Option<&Generator>) -> Result<()> {
    check(unsafe { sys::ct_init_xavier_uniform_(t.as_ptr(), gain, gen_ptr(generator)) })
}

/// `init.xavier_normal_(t, gain)`: N(0, gain²·2 / (fan_in + fan_out)).
pub fn xavier_normal_(t: &Tensor, gain: f64, generator: Option<&Generator>) -> Result<()> {
    check(unsafe { sys::ct_init_xavier_normal_(t.as_ptr(), gain, gen_ptr(generator)) })
}

/// `init.kaiming_uniform_(t, a, mode, nonlinearity)`: U(±sqrt(3)·gain / sqrt(fan)), the gain of
/// `nonlinearity` (torch's default `"leaky_relu"`) with parameter `a` (default 0).
pub fn kaiming_uniform_(t: &Tensor, a: f64, mode: FanMode, nonlinearity: &str, generator: Option<&Generator>) -> Result<()> {
    let (mode, nl) = (mode.to_cstring(), c_string("kaiming_uniform_", nonlinearity)?);
    check(unsafe { sys::ct_init_kaiming_uniform_(t.as_ptr(), a, mode.as_ptr(), nl.as_ptr(), gen_ptr(generator)) })
}

/// `init.kaiming_normal_(t, a, mode, nonlinearity)`: N(0, (gain / sqrt(fan))²).
pub fn kaiming_normal_(t: &Tensor, a: f64, mode: FanMode, nonlinearity: &str, generator: Option<&Generator>) -> Result<()> {
    let (mode, nl) = (mode.to_cstring(), c_string("kaiming_normal_", nonlinearity)?);
    check(unsafe { sys::ct_init_kaiming_normal_(t.as_ptr(), a, mode.as_ptr(), nl.as_ptr(), gen_ptr(generator)) })
}

/// `init.trunc_normal_(t, mean, std, a, b)`: N(mean, std²) restricted to [a, b] (torch's
/// defaults 0, 1, -2, 2). `InvalidArgument` error for std <= 0 or bounds that are not finite a < b.
pub fn trunc_normal_(t: &Tensor, mean: f64, std: f64, a: f64, b: f64, generator: Option<&Generator>) -> Result<()> {
    check(unsafe { sys::ct_init_trunc_normal_(t.as_ptr(), mean, std, a, b, gen_ptr(generator)) })
}

/// `init.orthogonal_(t, gain)`: a (semi-)orthogonal matrix over the first dim and the rest
/// flattened, times `gain` (torch's default 1); uniformly distributed. `Shape` error below 2 dims.
pub fn orthogonal_(t: &Tensor, gain: f64, generator: Option<&Generator>) -> Result<()> {
    check(unsafe { sys::ct_init_orthogonal_(t.as_ptr(), gain, gen_ptr(generator)) })
}

/// `init.sparse_(t, sparsity, std)`: N(0, std²) (torch's default std 0.01) with
/// `ceil(sparsity · rows)` zeros in each column of a 2-D `t`.
pub fn sparse_(t: &Tensor, sparsity: f64, std: f64, generator: Option<&Generator>) -> Result<()> {
    check(unsafe { sys::ct_init_sparse_(t.as_ptr(), sparsity, std, gen_ptr(generator)) })
}

/// `init.eye_(t)`: the identity of a 2-D `t`.
pub fn eye_(t: &Tensor) -> Result<()> {
    check(unsafe { sys::ct_init_eye_(t.as_ptr()) })
}

/// `init.dirac_(t, groups)`: the Dirac delta of a 3- to 5-D convolution weight, per group
/// (`groups` must divide dim 0), so the convolution keeps its input's channels.
pub fn dirac_(t: &Tensor, groups: i64) -> Result<()> {
    check(unsafe { sys::ct_init_dirac_(t.as_ptr(), groups) })
}

/// The default initialization of `torch.nn.Linear` and `Conv*d` (`reset_parameters`): `weight`
/// (`[out, in]` or `[out, in / groups, *kernel]`) by Kaiming-uniform with a = sqrt(5), so
/// U(±1/sqrt(fan_in)), then `bias` from U(±1/sqrt(fan_in)), the weight's draws first.
pub fn linear_(weight: &Tensor, bias: Option<&Tensor>, generator: Option<&Generator>) -> Result<()> {
    let b = bias.map_or(ptr::null_mut(), Tensor::as_ptr);
    check(unsafe { sys::ct_init_linear_(weight.as_ptr(), b, gen_ptr(generator)) })
}

/// `init.calculate_gain(nonlinearity, param)`: 1 for linear, conv and sigmoid, 5/3 for tanh,
/// sqrt(2) for relu, sqrt(2 / (1 + param²)) for leaky_relu (torch's default param is 0.01: pass
/// it), 3/4 for selu. `InvalidArgument` error for an unknown name (the message lists the known).
pub fn calculate_gain(nonlinearity: &str, param: f64) -> Result<f64> {
    let nl = c_string("calculate_gain", nonlinearity)?;
    let mut gain = 0.0;
    check(unsafe { sys::ct_init_calculate_gain(nl.as_ptr(), param, &mut gain) })?;
    Ok(gain)
}

/// `(fan_in, fan_out)` of a weight of sizes `[out, in, *k]`: `in·prod(k)` and `out·prod(k)`.
/// `Shape` error for fewer than 2 dims.
pub fn calculate_fan_in_and_fan_out(t: &Tensor) -> Result<(i64, i64)> {
    let (mut fan_in, mut fan_out) = (0, 0);
    check(unsafe { sys::ct_init_calculate_fan_in_and_fan_out(t.as_ptr(), &mut fan_in, &mut fan_out) })?;
    Ok((fan_in, fan_out))
}
