"""ctorch.nn: neural-network building blocks with torch.nn's names. Module and its layers (Linear,
Conv2d, BatchNorm2d, ...), containers and losses are here; ctorch.nn.functional holds the functions
(F.conv2d, F.cross_entropy, ...) under PyTorch's names; ctorch.nn.init the initializers and
ctorch.nn.utils gradient clipping."""

from . import functional  # noqa: F401
from . import init  # noqa: F401
from . import utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .parameter import Parameter, UninitializedParameter
from . import parallel  # noqa: F401
from .parallel import DataParallel

__all__ = ["Parameter", "functional", "init", "utils", "parallel", "DataParallel"] + _modules_all
