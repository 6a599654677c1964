"""ctorch.nn.Parameter: a tensor that a Module registers as one of its parameters (torch.nn.Parameter)."""

from .. import _C
from .._tensor import Tensor, _new

__all__ = ["Parameter"]


class Parameter(Tensor):
    """Parameter(data=None, requires_grad=True): a leaf tensor sharing data's storage (data itself is
    not changed), requiring grad by default. Assigning one to a Module attribute registers it.
    copy.copy, copy.deepcopy and pickle give Parameters, as for any Tensor (Tensor.__deepcopy__)."""

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .. import empty

            data = empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Parameter: data must be a Tensor, got {type(data).__name__}")
        p = _new(cls)
        p._h = _C.ct_tensor_detach(data._h)
        if requires_grad:
            _C.ct_tensor_set_requires_grad(p._h, 1)
        return p

    def __init__(self, data=None, requires_grad=True):  # Tensor.__init__ refuses direct construction
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__
