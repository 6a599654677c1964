"""ctorch.utils: data (Dataset, DataLoader and samplers, as torch.utils.data) and hooks (the handle
registering a module hook returns)."""

from . import data  # noqa: F401
from . import hooks  # noqa: F401

__all__ = ["data", "hooks"]
