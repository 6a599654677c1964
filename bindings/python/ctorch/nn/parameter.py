"""ctorch.nn.Parameter: a tensor that a Module registers as one of its parameters (torch.nn.Parameter)."""

from .. import _C
from .._tensor import Tensor, _new

__all__ = ["Parameter", "UninitializedParameter"]


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


class UninitializedParameter(Parameter):
    """A parameter of a lazy module before its first call: no shape yet (an empty placeholder).
    materialize(shape) gives this object memory (it is then a Parameter); an optimizer refuses it
    before then, since the library optimizer would keep the placeholder's memory."""

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from .. import empty
        return super().__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def materialize(self, shape, device=None, dtype=None):
        from .. import empty
        data = empty(shape, device=device or self.device, dtype=dtype or self.dtype)
        self._become(data)

    def _become(self, data):
        """Takes data's storage (detached) as this parameter's, keeping requires_grad."""
        requires_grad = self.requires_grad
        old, self._h = self._h, _C.ct_tensor_detach(data._h)
        _C.ct_tensor_release(old)
        if requires_grad:
            _C.ct_tensor_set_requires_grad(self._h, 1)
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return "<UninitializedParameter>"

    __str__ = __repr__
