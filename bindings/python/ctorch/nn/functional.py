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

def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Rows of weight picked by the integer tensor input (torch.nn.functional.embedding: input comes
    first here, the operator takes weight first). padding_idx's row gets no gradient; a negative
    padding_idx counts from the end."""
    if max_norm is not None:
        raise NotImplementedError("ctorch.nn.functional.embedding: max_norm is not supported; pass max_norm=None")
    if padding_idx is not None:
        rows = weight.shape[0]
        if not -rows <= padding_idx < rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = padding_idx + rows if padding_idx < 0 else padding_idx
    else:
        padding_idx = -1
    return _ops.call("embedding", weight, input, padding_idx, scale_grad_by_freq, sparse)


# ---- normalization, losses and attention ----


# ---- padding (shape family) ----


def pad(input, pad, mode="constant", value=None):
    """torch.nn.functional.pad: pad (before, after) pairs from the last dim backwards; mode 'constant'
    (value, default 0; negative pads crop), 'reflect', 'replicate' or 'circular' (the last 1, 2 or
    3 dims of a 2-5 dim input). Accepts pad as any sequence of ints, as torch does."""
    return _ops.call("pad", input, [int(p) for p in pad], mode, value)
