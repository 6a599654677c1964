"""ctorch.nn: neural-network building blocks. ctorch.nn.functional holds the functions
(F.conv2d, F.cross_entropy, ...) under PyTorch's names."""

from . import functional  # noqa: F401
