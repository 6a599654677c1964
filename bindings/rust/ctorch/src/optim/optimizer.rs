//! `Optimizer`: one `ct_optimizer` (a parameter group, its hyperparameters and its state).

use std::ffi::{c_void, CStr, CString};
use std::ptr;

use ctorch_sys as sys;

use crate::callback::{enter, guard};
use crate::error::{check, Error, ErrorKind, Result};
use crate::ops::arg;
use crate::tensor::Tensor;

/// The update rule (`ct_optimizer_kind`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OptimizerKind {
    /// `torch.optim.SGD`: momentum, dampening, Nesterov, weight decay.
    Sgd,
    /// `torch.optim.Adam`: L2 weight decay added to the gradient, amsgrad.
    Adam,
    /// `torch.optim.AdamW`: decoupled weight decay.
    AdamW,
    /// `torch.optim.RMSprop`: alpha, centered, momentum, weight decay.
    RmsProp,
    /// `torch.optim.Adagrad`: lr decay, initial accumulator value.
    Adagrad,
    /// `torch.optim.Adamax`: Adam with an infinity-norm second moment.
    Adamax,
    /// `torch.optim.NAdam`: Nesterov momentum in Adam, momentum decay.
    NAdam,
    /// `torch.optim.RAdam`: rectified Adam.
    RAdam,
    /// `torch.optim.Adadelta`: rho, lr scaling the delta.
    Adadelta,
    /// `torch.optim.ASGD`: averaged SGD (the average is the state `"ax"`).
    Asgd,
    /// `torch.optim.Rprop`: resilient backpropagation, per-element step sizes.
    Rprop,
    /// `torch.optim.LBFGS`: steps with a closure ([`Optimizer::step_with`]).
    Lbfgs,
}

impl OptimizerKind {
    fn to_c(self) -> sys::ct_optimizer_kind {
        match self {
            OptimizerKind::Sgd => sys::CT_OPTIMIZER_SGD,
            OptimizerKind::Adam => sys::CT_OPTIMIZER_ADAM,
            OptimizerKind::AdamW => sys::CT_OPTIMIZER_ADAMW,
            OptimizerKind::RmsProp => sys::CT_OPTIMIZER_RMSPROP,
            OptimizerKind::Adagrad => sys::CT_OPTIMIZER_ADAGRAD,
            OptimizerKind::Adamax => sys::CT_OPTIMIZER_ADAMAX,
            OptimizerKind::NAdam => sys::CT_OPTIMIZER_NADAM,
            OptimizerKind::RAdam => sys::CT_OPTIMIZER_RADAM,
            OptimizerKind::Adadelta => sys::CT_OPTIMIZER_ADADELTA,
            OptimizerKind::Asgd => sys::CT_OPTIMIZER_ASGD,
            OptimizerKind::Rprop => sys::CT_OPTIMIZER_RPROP,
            OptimizerKind::Lbfgs => sys::CT_OPTIMIZER_LBFGS,
        }
    }

    fn from_c(kind: sys::ct_optimizer_kind) -> Result<OptimizerKind> {
        match kind {
            sys::CT_OPTIMIZER_SGD => Ok(OptimizerKind::Sgd),
            sys::CT_OPTIMIZER_ADAM => Ok(OptimizerKind::Adam),
            sys::CT_OPTIMIZER_ADAMW => Ok(OptimizerKind::AdamW),
            sys::CT_OPTIMIZER_RMSPROP => Ok(OptimizerKind::RmsProp),
            sys::CT_OPTIMIZER_ADAGRAD => Ok(OptimizerKind::Adagrad),
            sys::CT_OPTIMIZER_ADAMAX => Ok(OptimizerKind::Adamax),
            sys::CT_OPTIMIZER_NADAM => Ok(OptimizerKind::NAdam),
            sys::CT_OPTIMIZER_RADAM => Ok(OptimizerKind::RAdam),
            sys::CT_OPTIMIZER_ADADELTA => Ok(OptimizerKind::Adadelta),
            sys::CT_OPTIMIZER_ASGD => Ok(OptimizerKind::Asgd),
            sys::CT_OPTIMIZER_RPROP => Ok(OptimizerKind::Rprop),
            sys::CT_OPTIMIZER_LBFGS => Ok(OptimizerKind::Lbfgs),
            k => Err(Error::new(ErrorKind::Internal, format!("optimizer kind {k} is unknown to this crate: update it"))),
        }
    }
}

/// The hyperparameters of an optimizer (`ct_optimizer_options`, torch's `param_groups[0]`).
///
/// Start from PyTorch's defaults for a kind ([`OptimizerOptions::sgd`], [`adam`](Self::adam),
/// [`adamw`](Self::adamw), [`rmsprop`](Self::rmsprop), [`adagrad`](Self::adagrad),
/// [`adamax`](Self::adamax), [`nadam`](Self::nadam), [`radam`](Self::radam),
/// [`adadelta`](Self::adadelta), [`asgd`](Self::asgd), [`rprop`](Self::rprop),
/// [`lbfgs`](Self::lbfgs), which ask the library) and change what you
/// need with the builder methods: `OptimizerOptions::adam().lr(3e-4).weight_decay(1e-4)`. Each
/// field is public too; fields a kind does not use are ignored. Values are checked when an
/// optimizer is made or updated, not here.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct OptimizerOptions {
    /// The update rule.
    pub kind: OptimizerKind,
    /// Learning rate, >= 0.
    pub lr: f64,
    /// SGD, RMSprop: momentum factor, >= 0 (0: no momentum buffer).
    pub momentum: f64,
    /// SGD: the momentum buffer adds `(1 - dampening) * grad`.
    pub dampening: f64,
    /// L2 penalty (SGD, Adam, RMSprop) or decoupled decay (AdamW), >= 0.
    pub weight_decay: f64,
    /// Adam, AdamW: the first moment's decay, in [0, 1).
    pub beta1: f64,
    /// Adam, AdamW: the second moment's decay, in [0, 1).
    pub beta2: f64,
    /// Adam, AdamW, RMSprop: added to the denominator, >= 0.
    pub eps: f64,
    /// RMSprop: smoothing constant; ASGD: the power of eta's decay; >= 0.
    pub alpha: f64,
    /// SGD: Nesterov momentum (needs momentum > 0 and dampening 0).
    pub nesterov: bool,
    /// Adam, AdamW: keep the maximum of the second moments.
    pub amsgrad: bool,
    /// RMSprop: normalize by the estimated variance of the gradient.
    pub centered: bool,
    /// Every kind: ascend the objective instead of descending it.
    pub maximize: bool,
    /// Adagrad: the step's lr is `lr / (1 + (step - 1) * lr_decay)`, >= 0.
    pub lr_decay: f64,
    /// Adagrad: where the sum of squared gradients starts, >= 0.
    pub initial_accumulator_value: f64,
    /// NAdam: the momentum schedule's decay, >= 0.
    pub momentum_decay: f64,
    /// Adadelta: the running averages' coefficient, in [0, 1].
    pub rho: f64,
    /// NAdam, RAdam: AdamW's decoupled weight decay instead of the L2 penalty.
    pub decoupled_weight_decay: bool,
    /// ASGD: the decay term, >= 0.
    pub lambd: f64,
    /// ASGD: the step after which averaging starts, >= 0.
    pub t0: f64,
    /// Rprop: the step's factor after a sign change, in (0, 1).
    pub etaminus: f64,
    /// Rprop: the step's factor while the sign holds, > 1.
    pub etaplus: f64,
    /// Rprop: the smallest step, >= 0.
    pub step_size_min: f64,
    /// Rprop: the largest step, >= `step_size_min`.
    pub step_size_max: f64,
    /// LBFGS: iterations per step, >= 1.
    pub max_iter: i64,
    /// LBFGS: closure calls per step; 0 means `max_iter * 5 / 4`, torch's default.
    pub max_eval: i64,
    /// LBFGS: stop when the gradient's largest magnitude is this small, >= 0.
    pub tolerance_grad: f64,
    /// LBFGS: stop when a step or the loss changes less, >= 0.
    pub tolerance_change: f64,
    /// LBFGS: curvature pairs kept, >= 1.
    pub history_size: i64,
    /// LBFGS: the strong-Wolfe line search (`line_search_fn="strong_wolfe"`) instead of a fixed step `lr`.
    pub strong_wolfe: bool,
}

impl OptimizerOptions {
    /// PyTorch's defaults for `kind`, as `ct_optimizer_options_default` gives them.
    pub fn default_for(kind: OptimizerKind) -> OptimizerOptions {
        // SAFETY: ct_optimizer_options is plain data; the call fills it for any known kind.
        let mut raw: sys::ct_optimizer_options = unsafe { std::mem::zeroed() };
        let status = unsafe { sys::ct_optimizer_options_default(kind.to_c(), &mut raw) };
        assert_eq!(status, sys::CT_OK, "ct_optimizer_options_default refused a kind of ct_optimizer_kind");
        OptimizerOptions::from_c(&raw, kind)
    }

    /// `torch.optim.SGD`'s defaults: lr 1e-3, no momentum, dampening or weight decay.
    pub fn sgd() -> OptimizerOptions {
        OptimizerOptions::default_for(OptimizerKind::Sgd)
    }

    /// `torch.optim.Adam`'s defaults: lr 1e-3, betas (0.9, 0.999), eps 1e-8.
    pub fn adam() -> OptimizerOptions {
        OptimizerOptions::default_for(OptimizerKind::Adam)
    }

    /// `torch.optim.AdamW`'s defaults: as Adam, with weight decay 1e-2.
    pub fn adamw() -> OptimizerOptions {
        OptimizerOptions::default_for(OptimizerKind::AdamW)
    }

    /// `torch.optim.RMSprop`'s defaults: lr 1e-2, alpha 0.99, eps 1e-8.
    pub fn rmsprop() -> OptimizerOptions {
        OptimizerOptions::default_for(OptimizerKind::RmsProp)
    }

    /// `torch.optim.Adagrad`'s defaults: lr 1e-2, eps 1e-10.
    pub fn adagrad() -> OptimizerOptions {
        OptimizerOptions::default_for(OptimizerKind::Adagrad)
    }

    /// `torch.optim.Adamax`'s defaults: lr 2e-3, betas (0.9, 0.999), eps 1e-8.
    pub fn adamax() -> OptimizerOptions {
        OptimizerOptions::default_for(OptimizerKind::Adamax)
    }

    /// `torch.optim.NAdam`'s defaults: lr 2e-3, betas (0.9, 0.999), eps 1e-8, momentum decay 4e-3.
    pub fn nadam() -> OptimizerOptions {
        OptimizerOptions::default_for(OptimizerKind::NAdam)
    }

    /// `torch.optim.RAdam`'s defaults: lr 1e-3, betas (0.9, 0.999), eps 1e-8.
    pub fn radam() -> OptimizerOptions {
        OptimizerOptions::default_for(OptimizerKind::RAdam)
    }

    /// `torch.optim.Adadelta`'s defaults: lr 1, rho 0.9, eps 1e-6.
    pub fn adadelta() -> OptimizerOptions {
        OptimizerOptions::default_for(OptimizerKind::Adadelta)
    }

    /// `torch.optim.ASGD`'s defaults: lr 1e-2, lambd 1e-4, alpha 0.75, t0 1e6.
    pub fn asgd() -> OptimizerOptions {
        OptimizerOptions::default_for(OptimizerKind::Asgd)
    }

    /// `torch.optim.Rprop`'s defaults: lr 1e-2, etas (0.5, 1.2), step sizes (1e-6, 50).
    pub fn rprop() -> OptimizerOptions {
        OptimizerOptions::default_for(OptimizerKind::Rprop)
    }

    /// `torch.optim.LBFGS`'s defaults: lr 1, max_iter 20, max_eval 25, tolerance_grad 1e-7,
    /// tolerance_change 1e-9, history_size 100, no line search.
    pub fn lbfgs() -> OptimizerOptions {
        OptimizerOptions::default_for(OptimizerKind::Lbfgs)
    }

    /// Sets ASGD's decay term.
    pub fn lambd(mut self, lambd: f64) -> OptimizerOptions {
        self.lambd = lambd;
        self
    }

    /// Sets the step after which ASGD averages.
    pub fn t0(mut self, t0: f64) -> OptimizerOptions {
        self.t0 = t0;
        self
    }

    /// Sets Rprop's step-size factors (torch's `etas`).
    pub fn etas(mut self, etaminus: f64, etaplus: f64) -> OptimizerOptions {
        self.etaminus = etaminus;
        self.etaplus = etaplus;
        self
    }

    /// Sets Rprop's smallest and largest step (torch's `step_sizes`).
    pub fn step_sizes(mut self, min: f64, max: f64) -> OptimizerOptions {
        self.step_size_min = min;
        self.step_size_max = max;
        self
    }

    /// Sets LBFGS's iterations per step.
    pub fn max_iter(mut self, max_iter: i64) -> OptimizerOptions {
        self.max_iter = max_iter;
        self
    }

    /// Sets LBFGS's closure calls per step (0: `max_iter * 5 / 4`).
    pub fn max_eval(mut self, max_eval: i64) -> OptimizerOptions {
        self.max_eval = max_eval;
        self
    }

    /// Sets LBFGS's gradient tolerance.
    pub fn tolerance_grad(mut self, tolerance: f64) -> OptimizerOptions {
        self.tolerance_grad = tolerance;
        self
    }

    /// Sets LBFGS's change tolerance.
    pub fn tolerance_change(mut self, tolerance: f64) -> OptimizerOptions {
        self.tolerance_change = tolerance;
        self
    }

    /// Sets how many curvature pairs LBFGS keeps.
    pub fn history_size(mut self, history_size: i64) -> OptimizerOptions {
        self.history_size = history_size;
        self
    }

    /// Turns LBFGS's strong-Wolfe line search on or off.
    pub fn strong_wolfe(mut self, strong_wolfe: bool) -> OptimizerOptions {
        self.strong_wolfe = strong_wolfe;
        self
    }

    /// Sets the learning rate.
    pub fn lr(mut self, lr: f64) -> OptimizerOptions {
        self.lr = lr;
        self
    }

    /// Sets the momentum factor (SGD, RMSprop).
    pub fn momentum(mut self, momentum: f64) -> OptimizerOptions {
        self.momentum = momentum;
        self
    }

    /// Sets SGD's dampening.
    pub fn dampening(mut self, dampening: f64) -> OptimizerOptions {
        self.dampening = dampening;
        self
    }

    /// Sets the weight decay.
    pub fn weight_decay(mut self, weight_decay: f64) -> OptimizerOptions {
        self.weight_decay = weight_decay;
        self
    }

    /// Sets Adam's and AdamW's `betas`.
    pub fn betas(mut self, beta1: f64, beta2: f64) -> OptimizerOptions {
        self.beta1 = beta1;
        self.beta2 = beta2;
        self
    }

    /// Sets `eps` (Adam, AdamW, RMSprop).
    pub fn eps(mut self, eps: f64) -> OptimizerOptions {
        self.eps = eps;
        self
    }

    /// Sets RMSprop's smoothing constant.
    pub fn alpha(mut self, alpha: f64) -> OptimizerOptions {
        self.alpha = alpha;
        self
    }

    /// Turns SGD's Nesterov momentum on or off.
    pub fn nesterov(mut self, nesterov: bool) -> OptimizerOptions {
        self.nesterov = nesterov;
        self
    }

    /// Turns Adam's and AdamW's amsgrad on or off.
    pub fn amsgrad(mut self, amsgrad: bool) -> OptimizerOptions {
        self.amsgrad = amsgrad;
        self
    }

    /// Turns RMSprop's centered variant on or off.
    pub fn centered(mut self, centered: bool) -> OptimizerOptions {
        self.centered = centered;
        self
    }

    /// Ascends the objective instead of descending it.
    pub fn maximize(mut self, maximize: bool) -> OptimizerOptions {
        self.maximize = maximize;
        self
    }

    /// Sets Adagrad's lr decay.
    pub fn lr_decay(mut self, lr_decay: f64) -> OptimizerOptions {
        self.lr_decay = lr_decay;
        self
    }

    /// Sets where Adagrad's sum of squared gradients starts.
    pub fn initial_accumulator_value(mut self, value: f64) -> OptimizerOptions {
        self.initial_accumulator_value = value;
        self
    }

    /// Sets NAdam's momentum decay.
    pub fn momentum_decay(mut self, momentum_decay: f64) -> OptimizerOptions {
        self.momentum_decay = momentum_decay;
        self
    }

    /// Sets Adadelta's rho.
    pub fn rho(mut self, rho: f64) -> OptimizerOptions {
        self.rho = rho;
        self
    }

    /// Turns NAdam's and RAdam's decoupled weight decay on or off.
    pub fn decoupled_weight_decay(mut self, decoupled: bool) -> OptimizerOptions {
        self.decoupled_weight_decay = decoupled;
        self
    }

    fn from_c(raw: &sys::ct_optimizer_options, kind: OptimizerKind) -> OptimizerOptions {
        OptimizerOptions {
            kind,
            lr: raw.lr,
            momentum: raw.momentum,
            dampening: raw.dampening,
            weight_decay: raw.weight_decay,
            beta1: raw.beta1,
            beta2: raw.beta2,
            eps: raw.eps,
            alpha: raw.alpha,
            nesterov: raw.nesterov != 0,
            amsgrad: raw.amsgrad != 0,
            centered: raw.centered != 0,
            maximize: raw.maximize != 0,
            lr_decay: raw.lr_decay,
            initial_accumulator_value: raw.initial_accumulator_value,
            momentum_decay: raw.momentum_decay,
            rho: raw.rho,
            decoupled_weight_decay: raw.decoupled_weight_decay != 0,
            lambd: raw.lambd,
            t0: raw.t0,
            etaminus: raw.etaminus,
            etaplus: raw.etaplus,
            step_size_min: raw.step_size_min,
            step_size_max: raw.step_size_max,
            max_iter: raw.max_iter,
            max_eval: raw.max_eval,
            tolerance_grad: raw.tolerance_grad,
            tolerance_change: raw.tolerance_change,
            history_size: raw.history_size,
            strong_wolfe: raw.strong_wolfe != 0,
        }
    }

    /// The C struct, size-first: unknown trailing fields of a newer header keep the library's
    /// defaults because the struct starts from them.
    fn to_c(self) -> sys::ct_optimizer_options {
        let mut raw: sys::ct_optimizer_options = unsafe { std::mem::zeroed() };
        // SAFETY: raw is valid to write; the kind is one of ct_optimizer_kind.
        let status = unsafe { sys::ct_optimizer_options_default(self.kind.to_c(), &mut raw) };
        debug_assert_eq!(status, sys::CT_OK);
        raw.lr = self.lr;
        raw.momentum = self.momentum;
        raw.dampening = self.dampening;
        raw.weight_decay = self.weight_decay;
        raw.beta1 = self.beta1;
        raw.beta2 = self.beta2;
        raw.eps = self.eps;
        raw.alpha = self.alpha;
        raw.nesterov = self.nesterov as i32;
        raw.amsgrad = self.amsgrad as i32;
        raw.centered = self.centered as i32;
        raw.maximize = self.maximize as i32;
        raw.lr_decay = self.lr_decay;
        raw.initial_accumulator_value = self.initial_accumulator_value;
        raw.momentum_decay = self.momentum_decay;
        raw.rho = self.rho;
        raw.decoupled_weight_decay = self.decoupled_weight_decay as i32;
        raw.lambd = self.lambd;
        raw.t0 = self.t0;
        raw.etaminus = self.etaminus;
        raw.etaplus = self.etaplus;
        raw.step_size_min = self.step_size_min;
        raw.step_size_max = self.step_size_max;
        raw.max_iter = self.max_iter;
        raw.max_eval = self.max_eval;
        raw.tolerance_grad = self.tolerance_grad;
        raw.tolerance_change = self.tolerance_change;
        raw.history_size = self.history_size;
        raw.strong_wolfe = self.strong_wolfe as i32;
        raw
    }
}

crate::handle::ref_counted!(
    /// An optimizer over one group of parameters (`torch.optim.SGD`, `Adam`, `AdamW`, `RMSprop`,
    /// `Adagrad`, `Adamax`, `NAdam`, `RAdam`, `Adadelta`, `ASGD`, `Rprop`, `LBFGS`):
    /// one reference to a `ct_optimizer`, which retains the parameters and keeps their state
    /// (momentum buffers, moments, step counts).
    ///
    /// `Clone` adds a reference to the same optimizer (same state), as [`Tensor`]'s does. Methods
    /// take `&self`: the library serializes calls on one optimizer, so it may be shared between
    /// threads, though no other thread may use the parameters during a [`step`](Self::step).
    /// Each step computes torch's formulas in torch's order, with the same bits on every machine
    /// and thread count.
    Optimizer, sys::ct_optimizer, sys::ct_optimizer_retain, sys::ct_optimizer_release
);

impl std::fmt::Debug for Optimizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.options() {
            Ok(o) => write!(f, "Optimizer({:?}, lr={}, {} params)", o.kind, o.lr, self.num_params()),
            Err(_) => f.write_str("Optimizer(?)"),
        }
    }
}

impl Optimizer {
    /// An optimizer over `params` (each a floating leaf tensor with data, given once; usually
    /// one that requires grad; complex ones too for every kind but LBFGS, stepped as their real
    /// and imaginary parts as torch 2.x does) with `options`. `InvalidArgument` error for no
    /// parameters, one given twice, a non-leaf, or an option out of range (the message names the
    /// field and its value); `DType` for a parameter that is neither floating nor complex, or a
    /// complex one under LBFGS; `Device` for a meta parameter.
    pub fn new<T: AsRef<Tensor>>(params: &[T], options: &OptimizerOptions) -> Result<Optimizer> {
        let handles = arg::handles(params);
        let raw = options.to_c();
        Optimizer::make(|out| unsafe { sys::ct_optimizer_create(handles.as_ptr(), handles.len(), &raw, out) })
    }

    /// `torch.optim.SGD(params, lr)`: the other options keep torch's defaults.
    pub fn sgd<T: AsRef<Tensor>>(params: &[T], lr: f64) -> Result<Optimizer> {
        Optimizer::new(params, &OptimizerOptions::sgd().lr(lr))
    }

    /// `torch.optim.Adam(params, lr)`: the other options keep torch's defaults.
    pub fn adam<T: AsRef<Tensor>>(params: &[T], lr: f64) -> Result<Optimizer> {
        Optimizer::new(params, &OptimizerOptions::adam().lr(lr))
    }

    /// `torch.optim.AdamW(params, lr)`: the other options keep torch's defaults.
    pub fn adamw<T: AsRef<Tensor>>(params: &[T], lr: f64) -> Result<Optimizer> {
        Optimizer::new(params, &OptimizerOptions::adamw().lr(lr))
    }

    /// `torch.optim.RMSprop(params, lr)`: the other options keep torch's defaults.
    pub fn rmsprop<T: AsRef<Tensor>>(params: &[T], lr: f64) -> Result<Optimizer> {
        Optimizer::new(params, &OptimizerOptions::rmsprop().lr(lr))
    }

    /// One update of every parameter that has a grad (`optimizer.step()`), with grad mode off.
    /// A step that fails changes no parameter and no state. `InvalidArgument` error for a
    /// parameter that is an inference tensor, outside inference mode; `OutOfMemory` when state
    /// cannot be allocated.
    pub fn step(&self) -> Result<()> {
        check(unsafe { sys::ct_optimizer_step(self.as_ptr()) })
    }

    /// The three lines of a training step in one call: `zero_grad(true)`, `loss.backward()`,
    /// `step()`. Errors as those give them; nothing is stepped when backward fails.
    pub fn backward_step(&self, loss: &Tensor) -> Result<()> {
        self.zero_grad(true)?;
        loss.backward()?;
        self.step()
    }

    /// `optimizer.step(closure)`: LBFGS's iterations, each calling `closure` to re-evaluate the
    /// model; other kinds call it once, then [`step`](Self::step). The closure zeroes the grads,
    /// computes the loss, calls backward and returns the loss's value. Returns the first call's
    /// loss. When the closure fails, the step fails with its error, and the parameters and the
    /// optimizer's state are as they were. `InvalidArgument` error when the closure steps this
    /// optimizer itself.
    pub fn step_with<F>(&self, mut closure: F) -> Result<f64>
    where
        F: FnMut() -> Result<f64>,
    {
        let mut loss = 0.0;
        let user_data = (&mut closure as *mut F).cast::<c_void>();
        check(enter(|| unsafe { sys::ct_optimizer_step_closure(self.as_ptr(), Some(closure_trampoline::<F>), user_data, &mut loss) }))?;
        Ok(loss)
    }

    /// `optimizer.state[p][name]` of parameter `i`: a buffer (the optimizer's own tensor, so
    /// writing into it changes the next step) or a scalar (`"step"`, a 0-dim copy); `None` while
    /// the parameter has none. `InvalidArgument` error for a name the kind does not have (see
    /// [`state_names`](Self::state_names)); `Index` for `i` past the parameters.
    pub fn state(&self, i: usize, name: &str) -> Result<Option<Tensor>> {
        let c_name = CString::new(name).map_err(|_| Error::new(ErrorKind::InvalidArgument, "Optimizer::state: the name contains a NUL byte"))?;
        let mut out = ptr::null_mut();
        check(unsafe { sys::ct_optimizer_state_get(self.as_ptr(), i, c_name.as_ptr(), &mut out) })?;
        // SAFETY: out is null or a new reference.
        Ok(unsafe { Tensor::from_raw(out) })
    }

    /// The state names of `kind`, in torch's order (`ct_optimizer_state_name`).
    pub fn state_names(kind: OptimizerKind) -> Vec<String> {
        let mut names = Vec::new();
        loop {
            let mut name = ptr::null();
            // SAFETY: on success name is a static NUL-terminated string.
            if unsafe { sys::ct_optimizer_state_name(kind.to_c(), names.len(), &mut name) } != sys::CT_OK {
                return names;
            }
            names.push(unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned());
        }
    }

    /// Clears the parameters' grads (`optimizer.zero_grad(set_to_none)`): `true` drops them
    /// (torch 2's default; the next backward allocates them afresh), `false` writes zeros into
    /// the existing ones.
    pub fn zero_grad(&self, set_to_none: bool) -> Result<()> {
        check(unsafe { sys::ct_optimizer_zero_grad(self.as_ptr(), set_to_none as i32) })
    }

    /// The learning rate (`param_groups[0]["lr"]`), which a scheduler may have changed.
    pub fn lr(&self) -> f64 {
        let mut lr = 0.0;
        // SAFETY: self is live and out valid, so the call cannot fail.
        unsafe { sys::ct_optimizer_get_lr(self.as_ptr(), &mut lr) };
        lr
    }

    /// Sets the learning rate. `InvalidArgument` error for a negative or non-finite `lr`.
    pub fn set_lr(&self, lr: f64) -> Result<()> {
        check(unsafe { sys::ct_optimizer_set_lr(self.as_ptr(), lr) })
    }

    /// Every hyperparameter. Errors only for a kind this crate does not know (a newer library).
    pub fn options(&self) -> Result<OptimizerOptions> {
        let mut raw: sys::ct_optimizer_options = unsafe { std::mem::zeroed() };
        raw.struct_size = std::mem::size_of::<sys::ct_optimizer_options>();
        check(unsafe { sys::ct_optimizer_get_options(self.as_ptr(), &mut raw) })?;
        Ok(OptimizerOptions::from_c(&raw, OptimizerKind::from_c(raw.kind)?))
    }

    /// Replaces every hyperparameter; the kind cannot change (the state belongs to it). On
    /// failure nothing changes. `InvalidArgument` error for another kind or a value out of range.
    pub fn set_options(&self, options: &OptimizerOptions) -> Result<()> {
        let raw = options.to_c();
        check(unsafe { sys::ct_optimizer_set_options(self.as_ptr(), &raw) })
    }

    /// How many parameters the optimizer holds.
    pub fn num_params(&self) -> usize {
        let mut n = 0;
        // SAFETY: self is live and out valid, so the call cannot fail.
        unsafe { sys::ct_optimizer_num_params(self.as_ptr(), &mut n) };
        n
    }

    /// The parameters, in the order given (the tensors themselves, not copies).
    pub fn params(&self) -> Result<Vec<Tensor>> {
        (0..self.num_params()).map(|i| Tensor::make(|out| unsafe { sys::ct_optimizer_param(self.as_ptr(), i, out) })).collect()
    }

    /// The state as bytes (`optimizer.state_dict()`): kind, options, and each parameter's step
    /// count and buffers, in the library's little-endian format (ctorch.h,
    /// `ct_optimizer_state_save`), the same in every language.
    pub fn state_to_vec(&self) -> Result<Vec<u8>> {
        let (mut data, mut size) = (ptr::null_mut(), 0);
        check(unsafe { sys::ct_optimizer_state_save(self.as_ptr(), &mut data, &mut size) })?;
        if data.is_null() {
            return Ok(Vec::new());
        }
        // SAFETY: the library wrote `size` bytes at `data`, freed once here.
        let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size) }.to_vec();
        unsafe { sys::ct_string_release(data) };
        Ok(bytes)
    }

    /// Replaces options and state with bytes from [`state_to_vec`](Self::state_to_vec)
    /// (`optimizer.load_state_dict()`), for an optimizer of the same kind over parameters of the
    /// same count, dtypes and sizes; the parameters' values are not part of the state. On failure
    /// nothing changes. `InvalidArgument` error for another kind, count, dtype or sizes (the
    /// message names the parameter); `Format` for bytes that are not optimizer state, truncated
    /// or from a newer version (the message gives the byte offset).
    pub fn load_state(&self, bytes: &[u8]) -> Result<()> {
        check(unsafe { sys::ct_optimizer_state_load(self.as_ptr(), bytes.as_ptr().cast(), bytes.len()) })
    }
}

unsafe extern "C" fn closure_trampoline<F>(user_data: *mut c_void, loss: *mut f64) -> sys::ct_status
where
    F: FnMut() -> Result<f64>,
{
    guard("the optimizer's closure", || {
        // SAFETY: user_data is the &mut F step_with lent for the call, on this thread.
        let closure = unsafe { &mut *user_data.cast::<F>() };
        let value = closure()?;
        // SAFETY: the library passes a valid out pointer.
        unsafe { *loss = value };
        Ok(())
    })
}
