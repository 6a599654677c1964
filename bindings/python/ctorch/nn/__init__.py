"""ctorch.nn: neural-network building blocks. ctorch.nn.functional holds the functions
(F.conv2d, F.cross_entropy, ...) under PyTorch's names; ctorch.nn.init the initializers and
ctorch.nn.utils gradient clipping."""

from . import functional  # noqa: F401
from . import init  # noqa: F401
from . import utils  # noqa: F401
