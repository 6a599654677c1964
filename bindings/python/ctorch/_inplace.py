"""In-place forms torch has and ctorch's operator library does not register: each computes its
functional form and writes it into self with copy_ (which casts to self's dtype, refuses a leaf
that requires grad, and records the write for autograd), as torch's in-place comparisons write 0/1
in self's dtype. And the random fills torch has beside uniform_ and normal_, by inverse transform
of uniform_ draws (ctorch's generator, so not torch's streams): exponential_, cauchy_,
log_normal_, geometric_, random_."""

import math

from . import ops
from ._tensor import Tensor

# Tensor method name -> functional operator (called as ops.call(op, self, *args, **kwargs)).
_FUNCTIONAL = {
    "eq_": "eq", "ne_": "ne", "lt_": "lt", "le_": "le", "gt_": "gt", "ge_": "ge", "greater_": "gt",
    "greater_equal_": "ge", "less_": "lt", "less_equal_": "le", "not_equal_": "ne", "logical_not_": "logical_not",
    "true_divide_": "div", "pow_": "pow", "tril_": "tril", "triu_": "triu", "cumsum_": "cumsum",
    "cumprod_": "cumprod", "addmm_": "addmm", "addmv_": "addmv", "addr_": "addr", "addbmm_": "addbmm",
    "baddbmm_": "baddbmm",
}


def _inplace(name, op):
    def method(self, *args, **kwargs):
        return self.copy_(ops.call(op, self, *args, **kwargs))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In place: self.copy_({op}(self, ...))."
    return method


def polygamma(self, n):
    """polygamma(n, self): the n-th derivative of digamma (torch's argument order differs as a method)."""
    return ops.call("polygamma", n, self)


def polygamma_(self, n):
    return self.copy_(polygamma(self, n))


def mvlgamma(self, p):
    """The log of the multivariate gamma function of dimension p: sum over i < p of lgamma(x - i/2),
    plus p (p - 1) / 4 log(pi) (defined for elements above (p - 1) / 2; computed, as torch does, for
    the others too)."""
    from ._errors import InvalidArgumentError
    from . import _C
    if p < 1:
        raise InvalidArgumentError(_C.CT_ERROR_INVALID_ARGUMENT, f"mvlgamma: p has to be greater than or equal to 1, "
                                   f"got {p}")
    if not self.dtype.is_floating_point:
        from ._errors import DTypeError
        raise DTypeError(_C.CT_ERROR_DTYPE, f"mvlgamma: self is {self.dtype}; it takes a floating tensor")
    out = self.lgamma()
    for i in range(1, p):
        out = out + (self - i / 2).lgamma()
    return out + p * (p - 1) / 4 * math.log(math.pi)


def mvlgamma_(self, p):
    return self.copy_(mvlgamma(self, p))


def renorm(self, p, dim, maxnorm):
    """Each slice along dim whose p-norm exceeds maxnorm scaled down to maxnorm (norm + 1e-7)."""
    from . import where
    d = dim + self.dim() if dim < 0 else dim
    others = [i for i in range(self.dim()) if i != d]
    norms = self.norm(p, others, True) if others else self.abs().pow(p).pow(1.0 / p)
    factor = where(norms > maxnorm, maxnorm / (norms + 1e-7), norms.new_ones(()))
    return self * factor


def renorm_(self, p, dim, maxnorm):
    return self.copy_(renorm(self, p, dim, maxnorm))


# ---- random fills by inverse transform of uniform draws in (0, 1)

def _uniform(self, generator):
    from . import empty_like, float64
    return empty_like(self, dtype=float64).uniform_(0.0, 1.0, generator=generator)


def exponential_(self, lambd=1.0, *, generator=None):
    return self.copy_(-(1 - _uniform(self, generator)).log() / lambd)


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    return self.copy_(median + sigma * (math.pi * (_uniform(self, generator) - 0.5)).tan())


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    from . import empty_like, float64
    return self.copy_(empty_like(self, dtype=float64).normal_(mean, std, generator=generator).exp())


def geometric_(self, p, *, generator=None):
    """The number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    return self.copy_(((1 - _uniform(self, generator)).log() / math.log1p(-p)).ceil().clamp_min(1))


def random_(self, from_=0, to=None, *, generator=None):
    """Integers uniform in [from_, to); with one bound, [0, from_); with none, [0, 2^mantissa] for
    floating dtypes and [0, max] for integral ones, as torch draws them."""
    if to is None and from_ != 0:
        from_, to = 0, from_
    if to is None:
        if self.dtype.is_floating_point:
            digits = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[self.dtype.name]
            to = 2 ** digits + 1
        else:
            from . import iinfo
            to = iinfo(self.dtype).max + 1 if self.dtype.name != "bool" else 2
    return self.copy_((_uniform(self, generator) * (to - from_)).floor() + from_)


def _install():
    for name, op in _FUNCTIONAL.items():
        setattr(Tensor, name, _inplace(name, op))
    for fn in (polygamma, polygamma_, mvlgamma, mvlgamma_, renorm, renorm_, exponential_, cauchy_, log_normal_,
               geometric_, random_):
        setattr(Tensor, fn.__name__, fn)
