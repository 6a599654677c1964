"""ctorch.Error and its subclasses: each C status maps to the builtin class torch raises for the same
mistake, so `except RuntimeError` / `except TypeError` keep working when porting torch code."""

import builtins

from . import _C

__all__ = ["Error", "InvalidArgumentError", "ShapeError", "DTypeError", "DeviceError", "OutOfMemoryError",
           "NotImplementedError_", "IndexError", "GuardError", "GraphBreakError", "RecompileLimitError", "FileError",
           "FormatError", "BackendError", "InternalError", "LinAlgError", "DistError", "DistBackendError",
           "DistTimeoutError"]


class Error(Exception):
    """A failed ctorch call. `status` is the C status number, `status_name` its name."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.status_name = _C.ct_status_name(status)

    def __reduce__(self):  # BaseException's passes args, (message,), to a constructor taking two
        return (type(self), (self.status, str(self)), self.__dict__)


class InvalidArgumentError(Error, builtins.ValueError, builtins.RuntimeError):
    """torch raises ValueError for some invalid arguments and RuntimeError for others (autograd's
    refusals: backward twice, in-place on a leaf, a changed saved tensor), so it is both."""


class ArgumentTypeError(InvalidArgumentError, builtins.TypeError):
    """No overload of an operator accepts the arguments' kinds (an int where a tensor goes, a string
    for a dim): the TypeError torch raises, and still the InvalidArgumentError ctorch reports."""


class ShapeError(Error, builtins.RuntimeError):
    pass


class DTypeError(Error, builtins.TypeError):
    pass


class DeviceError(Error, builtins.RuntimeError):
    pass


class OutOfMemoryError(Error, builtins.MemoryError):
    pass


class NotImplementedError_(Error, builtins.NotImplementedError):
    pass


class IndexError(Error, builtins.IndexError):
    pass


class GuardError(Error, builtins.RuntimeError):
    """A symbolic value had to be concrete and could not be: `if` or int() on a value that depends on
    an unbacked symbol (item() of a traced tensor), or an operator without a symbolic shape rule.
    torch raises a RuntimeError (GuardOnDataDependentSymNode) for the first."""


class GraphBreakError(Error, builtins.RuntimeError):
    """A traced function read a traced tensor's data (item(), printing ...) or did something the graph
    cannot describe, under fullgraph=True or while exporting. torch raises a RuntimeError subclass
    (torch._dynamo.exc.Unsupported) for the same."""


class RecompileLimitError(Error, builtins.RuntimeError):
    """Under fullgraph=True, a call that would need a compiled entry beyond recompile_limit."""


class FileError(Error, builtins.OSError):
    """A program file could not be read or written (CT_ERROR_IO)."""


class FormatError(Error, builtins.ValueError):
    """A malformed, truncated or newer-version program file (CT_ERROR_FORMAT)."""


class BackendError(Error, builtins.RuntimeError):
    """A device backend or plugin failed (at import: a plugin on CTORCH_BACKEND_PATH did not load)."""


class InternalError(Error, builtins.RuntimeError):
    pass


class LinAlgError(Error, builtins.RuntimeError):
    """A matrix a linear-algebra function cannot factor or invert: singular, not positive-definite, or
    an iteration that did not converge (CT_ERROR_LINALG); torch.linalg.LinAlgError."""


class DistError(Error, builtins.RuntimeError):
    """A distributed operation failed (torch.distributed.DistError)."""


class DistBackendError(DistError):
    """The engine under a process group failed: a peer's connection closed, a rank died, the engine
    reported an error (CT_ERROR_DISTRIBUTED); torch.distributed.DistBackendError."""


class DistTimeoutError(DistBackendError, builtins.TimeoutError):
    """A distributed operation or rendezvous did not finish within the group's timeout
    (CT_ERROR_TIMEOUT); the message names the ranks that did not arrive. torch has no class of its
    own for this: its gloo timeouts are DistBackendError (RuntimeError), which this is, and
    it is also the builtin TimeoutError, so `except TimeoutError` catches it."""


_by_status = {
    _C.CT_ERROR_INVALID_ARGUMENT: InvalidArgumentError,
    _C.CT_ERROR_SHAPE: ShapeError,
    _C.CT_ERROR_DTYPE: DTypeError,
    _C.CT_ERROR_DEVICE: DeviceError,
    _C.CT_ERROR_OUT_OF_MEMORY: OutOfMemoryError,
    _C.CT_ERROR_NOT_IMPLEMENTED: NotImplementedError_,
    _C.CT_ERROR_INDEX: IndexError,
    _C.CT_ERROR_GUARD: GuardError,
    _C.CT_ERROR_GRAPH_BREAK: GraphBreakError,
    _C.CT_ERROR_RECOMPILE_LIMIT: RecompileLimitError,
    _C.CT_ERROR_IO: FileError,
    _C.CT_ERROR_FORMAT: FormatError,
    _C.CT_ERROR_BACKEND: BackendError,
    _C.CT_ERROR_LINALG: LinAlgError,
    _C.CT_ERROR_TIMEOUT: DistTimeoutError,
    _C.CT_ERROR_DISTRIBUTED: DistBackendError,
}


def refuse_copies(name, advice):
    """(__copy__, __deepcopy__, __reduce_ex__) for a class whose objects own a C handle that cannot be
    copied: each raises TypeError naming the class (name, or the object's class when None) and saying
    what to do instead. Copying the object field by field would give two owners of one handle, each
    releasing it."""

    def refuse(self, what):
        cls = type(self)
        raise TypeError(f"cannot {what} {name or cls.__module__ + '.' + cls.__qualname__}: {advice}")

    def copy_(self):
        refuse(self, "copy")

    def deepcopy_(self, memo):
        refuse(self, "deepcopy")

    def reduce_ex(self, protocol):
        refuse(self, "pickle")

    return copy_, deepcopy_, reduce_ex


def _make(status, message):
    # ct_op_call's and ct_op_call_op's words for arguments no schema takes (src/capi/boxed.cpp).
    if status == _C.CT_ERROR_INVALID_ARGUMENT and (": no overload of '" in message or
                                                   " does not accept these arguments: " in message):
        return ArgumentTypeError(status, message)
    return _by_status.get(status, InternalError)(status, message)


_C.ct_py_set_error_factory(_make)
