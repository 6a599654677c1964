"""ctorch.special: torch.special's functions under their torch.special names, each the registered
operator it aliases (special.i1 is special_i1, special.gammaln is lgamma, special.expit is sigmoid)."""

from . import ops as _ops

# torch.special name: the registered operator computing it.
_ALIASES = {
    "i0": "i0", "i1": "special_i1", "digamma": "digamma", "psi": "digamma", "gammaln": "lgamma",
    "polygamma": "polygamma", "logit": "logit", "xlogy": "xlogy", "sinc": "sinc", "expit": "sigmoid",
    "exp2": "exp2", "expm1": "expm1", "log1p": "log1p", "erf": "erf", "erfc": "erfc", "erfinv": "erfinv",
    "round": "round", "gammainc": "igamma", "gammaincc": "igammac",
}


def _alias(name, op):
    def fn(*args, **kwargs):
        return _ops.call(op, *args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.special.{name}: the operator {op}."
    return fn


for _name, _op in _ALIASES.items():
    globals()[_name] = _alias(_name, _op)

__all__ = sorted(_ALIASES)
