"""ctorch.backends: the switches torch.backends holds, for code that sets them on its way.

ctorch runs no cuDNN, MPS or oneDNN kernels, so those namespaces answer as torch does on a machine
without them (is_available() is False, and their flags select nothing). The switches that do have
a meaning here are wired to it: backends.cuda.matmul.allow_tf32 is
ctorch.set_float32_matmul_precision's "high" against "highest"."""

from . import cuda, cudnn, mkldnn, mps, openmp  # noqa: F401

__all__ = ["cuda", "cudnn", "mkldnn", "mps", "openmp"]
