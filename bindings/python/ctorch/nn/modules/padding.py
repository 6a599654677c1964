"""The padding layers (torch.nn.ZeroPad2d, ConstantPad1d, ReflectionPad2d, ReplicationPad3d,
CircularPad1d, ...): F.pad with the mode and padding given to the constructor. An int pads every
side of the last N dims by it; a tuple gives (before, after) pairs from the last dim backwards."""

from .. import functional as F
from .module import Module

__all__ = [f"{kind}Pad{n}d" for kind in ("Zero", "Constant", "Reflection", "Replication", "Circular")
           for n in (1, 2, 3)]


class _Pad(Module):
    _mode = "constant"
    _dims = 1

    def __init__(self, padding, value=None):
        super().__init__()
        self.padding = (padding,) * (2 * self._dims) if isinstance(padding, int) else tuple(padding)
        if len(self.padding) != 2 * self._dims:
            raise ValueError(f"{type(self).__name__}: padding must be an int or {2 * self._dims} ints, "
                             f"got {padding!r}")
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, self._mode, self.value)

    def extra_repr(self):
        return f"{self.padding}" + (f", value={self.value}" if self._mode == "constant" else "")


def _constant_init(self, padding, value):
    _Pad.__init__(self, padding, value)


def _zero_init(self, padding):
    _Pad.__init__(self, padding, 0.0)


def _define(kind, mode, dims, init):
    name = f"{kind}Pad{dims}d"
    doc = f"torch.nn.{name}: F.pad(input, padding, {mode!r}) over the last {dims} dims."
    cls = type(name, (_Pad,), {"_mode": mode, "_dims": dims, "__module__": __name__, "__doc__": doc})
    if init is not None:
        cls.__init__ = init
    globals()[name] = cls


for _n in (1, 2, 3):
    _define("Zero", "constant", _n, _zero_init)
    _define("Constant", "constant", _n, _constant_init)
    _define("Reflection", "reflect", _n, None)
    _define("Replication", "replicate", _n, None)
    _define("Circular", "circular", _n, None)
