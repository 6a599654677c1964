"""Python operators of the pointwise family on Tensor: ~ & | ^ << >> % // and their reflected and
in-place forms (torch's dunder methods), through the registered operators bitwise_*, remainder and
floor_divide."""

import numbers

from . import ops as _ops
from ._tensor import Tensor, full


def _number(x):
    return isinstance(x, numbers.Number) and not isinstance(x, Tensor)


def _forward(name):
    def method(self, other):
        if not (isinstance(other, Tensor) or _number(other)):
            return NotImplemented
        return _ops.call(name, self, other)

    method.__name__ = name
    return method


def _reflected(name):
    # number OP tensor: the number as a 0-dim tensor, which promotes as the Python number would
    # (a 0-dim tensor counts only when its category is higher).
    def method(self, other):
        if not _number(other):
            return NotImplemented
        return _ops.call(name, full((), other, device=self.device), self)

    method.__name__ = "r" + name
    return method


def _inplace(name):
    def method(self, other):
        if not (isinstance(other, Tensor) or _number(other)):
            return NotImplemented
        _ops.call(name + "_", self, other)
        return self

    method.__name__ = name + "_"
    return method


def _install():
    Tensor.__invert__ = lambda self: _ops.call("bitwise_not", self)
    for dunder, name in (("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
                         ("lshift", "bitwise_left_shift"), ("rshift", "bitwise_right_shift"),
                         ("mod", "remainder"), ("floordiv", "floor_divide")):
        setattr(Tensor, f"__{dunder}__", _forward(name))
        setattr(Tensor, f"__r{dunder}__", _reflected(name))
        setattr(Tensor, f"__i{dunder}__", _inplace(name))


_install()
