"""Dropout (torch.nn.Dropout): zeroes elements with probability p in training mode only."""

from .. import functional as F
from .module import Module

__all__ = ["Dropout"]


class Dropout(Module):
    """In training mode, each element is zeroed with probability p and the rest scaled by 1/(1-p)
    (from the default generator); in eval mode, the identity."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"
