"""ctorch.nn.utils: clip_grad_norm_ and clip_grad_value_ (torch.nn.utils), computed in the C library;
ctorch.nn.utils.rnn packs variable-length batches for the recurrent layers."""

import math as _math

from ... import _C
from ..._tensor import Tensor, _handle
from ...autograd import no_grad

from . import rnn  # noqa: E402,F401

__all__ = ["clip_grad_norm_", "clip_grad_value_", "rnn"]


def _params(parameters):
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the grads in place so that their total norm is at most max_norm; returns the total norm
    (before clipping) as a 0-dim tensor of the grads' dtype."""
    from ... import tensor

    params = _params(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    norm_type = float(norm_type)
    if error_if_nonfinite and grads and not _math.isfinite(_total_norm(grads, norm_type)):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                               "so it cannot be clipped. To disable this error and scale the gradients by the "
                               "non-finite norm anyway, set `error_if_nonfinite=False`")
    total = _C.ct_clip_grad_norm([_handle(p) for p in params], float(max_norm), norm_type)
    return tensor(total, dtype=grads[0].dtype if grads else None)


def _total_norm(grads, norm_type):
    """The total norm without clipping (for error_if_nonfinite, which must refuse before scaling)."""
    from ... import norm, stack

    with no_grad():
        if _math.isinf(norm_type):
            return max(float(g.abs().amax().item()) for g in grads)
        return float(norm(stack([norm(g, norm_type) for g in grads]), norm_type).item())


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every grad element into [-clip_value, clip_value] in place."""
    _C.ct_clip_grad_value([_handle(p) for p in _params(parameters)], float(clip_value))
