"""Dropout, Dropout1d, Dropout2d and Dropout3d (torch.nn.Dropout...): zero elements (or whole
channels) with probability p in training mode only."""

from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


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


class Dropout1d(Dropout):
    """Zeroes whole channels of [N, C, L] (or [C, L]) with probability p in training mode."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """Zeroes whole channels of [N, C, H, W] (or [C, H, W]) with probability p in training mode."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    """Zeroes whole channels of [N, C, D, H, W] (or [C, D, H, W]) with probability p in training mode."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    """Dropout for selu networks (F.alpha_dropout): dropped elements take selu's negative saturation,
    mean and variance kept; the identity in eval mode."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(Dropout):
    """AlphaDropout of whole channels (F.feature_alpha_dropout)."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
