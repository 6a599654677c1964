"""ctorch.nn.functional: PyTorch's functional neural-network API over ctorch's operators.

Every built-in operator is reachable here under its own name (F.gelu, F.conv2d, F.layer_norm),
through the boxed call; the functions below exist where torch.nn.functional's Python signature
differs from the operator's schema (keyword names, defaults, string options, composition).
"""

from .. import ops as _ops


def __getattr__(name):
    if not name.startswith("_") and any(o["builtin"] for o in _ops.overloads(name)):
        return _ops.function(name)
    raise AttributeError(f"module 'ctorch.nn.functional' has no attribute '{name}'")


# ---- activations (pointwise family) ----


# ---- linear, convolution and pooling ----

def _pair_or_empty(v):
    return [] if v is None else v


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """torch.nn.functional.max_pool2d; stride None means kernel_size; return_indices gives (values, indices)."""
    r = _ops.call("max_pool2d_with_indices", input, kernel_size, _pair_or_empty(stride), padding, dilation, ceil_mode)
    return r if return_indices else r[0]


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return _ops.call("max_pool2d_with_indices", input, kernel_size, _pair_or_empty(stride), padding, dilation, ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _ops.call("avg_pool2d", input, kernel_size, _pair_or_empty(stride), padding, ceil_mode, count_include_pad,
                     divisor_override)


def adaptive_avg_pool2d(input, output_size):
    """output_size is a number or a pair, where None keeps the input's size."""
    size = [output_size, output_size] if isinstance(output_size, int) else list(output_size)
    size = [input.shape[-2 + i] if s is None else s for i, s in enumerate(size)]
    return _ops.call("adaptive_avg_pool2d", input, size)



# ---- embedding (indexing family) ----


# ---- normalization, losses and attention ----
