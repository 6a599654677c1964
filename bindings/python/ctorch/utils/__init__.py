"""ctorch.utils: data (Dataset, DataLoader and samplers, as torch.utils.data)."""

from . import data  # noqa: F401

__all__ = ["data"]
