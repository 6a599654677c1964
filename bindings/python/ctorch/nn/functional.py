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


# ---- embedding (indexing family) ----


# ---- normalization, losses and attention ----
