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
# torch.nn.functional's activations take `inplace` (and elu no scale arguments); the operators
# (gelu, softplus and the rest) are reached by name. inplace=True runs the in-place operator
# (elu_), or writes the result into input where there is none (selu).


def _activation(name, *args, inplace=False):
    if not inplace:
        return _ops.call(name, *args)
    if _ops.overloads(name + "_"):
        _ops.call(name + "_", *args)
    else:
        args[0].copy_(_ops.call(name, *args))
    return args[0]


def relu(input, inplace=False):
    return _activation("relu", input, inplace=inplace)


def elu(input, alpha=1.0, inplace=False):
    return _activation("elu", input, alpha, inplace=inplace)


def selu(input, inplace=False):
    return _activation("selu", input, inplace=inplace)


def silu(input, inplace=False):
    return _activation("silu", input, inplace=inplace)


def mish(input, inplace=False):
    return _activation("mish", input, inplace=inplace)


def hardswish(input, inplace=False):
    return _activation("hardswish", input, inplace=inplace)


def hardsigmoid(input, inplace=False):
    return _activation("hardsigmoid", input, inplace=inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _activation("leaky_relu", input, negative_slope, inplace=inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _activation("hardtanh", input, min_val, max_val, inplace=inplace)


# ---- linear, convolution and pooling ----


# ---- embedding (indexing family) ----


# ---- normalization, losses and attention ----
