"""Random numbers with torch's names: Generator, manual_seed, rand, randn, randint, randperm,
bernoulli, multinomial, dropout, and the in-place Tensor.uniform_ / normal_ / bernoulli_.

Numbers come from ctorch's counter-based Philox stream: one seed gives the same numbers whatever the
thread count, but not the numbers torch gives for that seed."""

import os as _os

from . import _C
from . import _dtype as _d
from . import _symbolic
from ._errors import refuse_copies
from ._tensor import Tensor, _handle, _sizes as _size, _symbolic_factory, _wrap, device

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
           "bernoulli", "multinomial", "dropout", "poisson", "binomial"]


class Generator:
    """A Philox random stream of one device, as torch.Generator: seed, offset and a checkpointable state."""

    __slots__ = ("_h", "device")

    def __init__(self, device="cpu"):
        self.device = _as_device(device)
        self._h = _C.ct_generator_create(str(self.device))

    @classmethod
    def _adopt(cls, handle, dev):
        g = object.__new__(cls)
        g._h, g.device = handle, dev
        return g

    def __del__(self):
        h = getattr(self, "_h", None)
        if h and _C is not None:  # at interpreter exit the module may be gone (the process frees it)
            _C.ct_generator_release(h)
            self._h = None

    # As torch's Generator, which cannot be pickled either. A copy would release the handle twice.
    __copy__, __deepcopy__, __reduce_ex__ = refuse_copies(
        "ctorch.Generator", "save its state with get_state() and give it to set_state() of a new Generator")

    def manual_seed(self, seed):
        """Seeds the stream and rewinds it to its start; returns self."""
        _C.ct_generator_manual_seed(self._h, int(seed) & 0xFFFFFFFFFFFFFFFF)
        return self

    def seed(self):
        """Seeds the stream from the operating system's entropy; returns the seed."""
        s = int.from_bytes(_os.urandom(8), "little")
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return _C.ct_generator_initial_seed(self._h)

    def get_offset(self):
        """How many 128-bit Philox blocks have been drawn since seeding."""
        return _C.ct_generator_get_offset(self._h)

    def set_offset(self, offset):
        _C.ct_generator_set_offset(self._h, int(offset))
        return self

    def get_state(self):
        """The state (seed and offset) as a uint8 tensor, for set_state."""
        from . import tensor

        return tensor(list(_C.ct_generator_get_state(self._h)), dtype=_d.uint8)

    def set_state(self, new_state):
        data = bytes(new_state.tolist()) if isinstance(new_state, Tensor) else bytes(new_state)
        _C.ct_generator_set_state(self._h, data)
        return self

    def __repr__(self):
        return f"<ctorch.Generator device={self.device} seed={self.initial_seed()} offset={self.get_offset()}>"


def _as_device(dev):
    return dev if isinstance(dev, device) else device(dev)


default_generator = Generator._adopt(_C.ct_default_generator("cpu"), device("cpu"))


def manual_seed(seed):
    """Seeds every device's default generator; returns the CPU one."""
    _C.ct_manual_seed(int(seed) & 0xFFFFFFFFFFFFFFFF)
    return default_generator


def seed():
    """Seeds the default generator from the operating system's entropy; returns the seed."""
    return default_generator.seed()


def initial_seed():
    return _C.ct_initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


def _gen(generator):
    if generator is None:
        return None
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a ctorch.Generator, got {type(generator).__name__}")
    return generator._h


def _dev(dev):
    return None if dev is None else str(dev)


def _finish(t, requires_grad):
    return t.requires_grad_() if requires_grad else t


def _symbolic_sizes(size):
    """size as a list when it holds SymInts (a symbolic meta tensor is drawn: no values, so no
    generator is used), else None."""
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    return list(size) if _symbolic._has_symint(size) else None


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False):
    dtype = dtype or _d.get_default_dtype()
    if _symbolic_sizes(size) is not None:
        return _finish(_symbolic_factory("rand", _symbolic_sizes(size), dtype, device), requires_grad)
    return _finish(_wrap(_C.ct_tensor_rand(_size(size), dtype.code, _dev(device), _gen(generator))), requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False):
    dtype = dtype or _d.get_default_dtype()
    if _symbolic_sizes(size) is not None:
        return _finish(_symbolic_factory("randn", _symbolic_sizes(size), dtype, device), requires_grad)
    return _finish(_wrap(_C.ct_tensor_randn(_size(size), dtype.code, _dev(device), _gen(generator))), requires_grad)


def randint(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """randint(high, size) or randint(low, high, size), as torch.randint."""
    args = list(args)
    if size is None:
        if not args:
            raise TypeError("randint() missing required argument 'size'")
        size = args.pop()
    low, high = (0, args[0]) if len(args) == 1 else tuple(args)
    dtype = dtype or _d.int64
    t = _C.ct_tensor_randint(int(low), int(high), tuple(size), dtype.code, _dev(device), _gen(generator))
    return _finish(_wrap(t), requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    dtype = dtype or _d.int64
    return _finish(_wrap(_C.ct_tensor_randperm(int(n), dtype.code, _dev(device), _gen(generator))), requires_grad)


def rand_like(input, *, dtype=None, device=None, requires_grad=False):
    return rand(input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


def randn_like(input, *, dtype=None, device=None, requires_grad=False):
    return randn(input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False):
    if high is None:
        low, high = 0, low
    return randint(low, high, input.shape, dtype=dtype or input.dtype, device=device or input.device,
                   requires_grad=requires_grad)


def bernoulli(input, p=None, *, generator=None):
    """1 with probability input[i] (or p, for every element of input's shape and dtype), else 0."""
    if p is None:
        return _wrap(_C.ct_tensor_bernoulli(_handle(input), _gen(generator)))
    out = _wrap(_C.ct_tensor_empty(tuple(input.shape), input.dtype.code, str(input.device)))
    return _bernoulli_(out, p, generator=generator)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    return _wrap(_C.ct_tensor_multinomial(_handle(input), int(num_samples), int(bool(replacement)), _gen(generator)))


def poisson(input, generator=None):
    """Counts drawn from Poisson(input[i]) (torch.poisson), in input's dtype."""
    return _wrap(_C.ct_tensor_poisson(_handle(input), _gen(generator)))


def binomial(count, prob, generator=None):
    """Successes of count[i] trials of probability prob[i] (torch.binomial), broadcast."""
    return _wrap(_C.ct_tensor_binomial(_handle(count), _handle(prob), _gen(generator)))


def dropout(input, p=0.5, train=True, *, generator=None):
    """Zeroes each element with probability p and scales the rest by 1 / (1 - p) when train is True
    (torch.dropout / torch.nn.functional.dropout); returns input itself when train is False."""
    t = _wrap(_C.ct_tensor_dropout(_handle(input), float(p), int(bool(train)), _gen(generator)))
    return input if t._h == input._h else t


# ---- Tensor methods ----

def _uniform_(self, from_=0, to=1, *, generator=None):
    _C.ct_tensor_uniform_(self._h, float(from_), float(to), _gen(generator))
    return self


def _normal_(self, mean=0, std=1, *, generator=None):
    _C.ct_tensor_normal_(self._h, float(mean), float(std), _gen(generator))
    return self


def _bernoulli_(self, p=0.5, *, generator=None):
    if isinstance(p, Tensor):
        drawn = bernoulli(p.expand(self.shape) if p.shape != self.shape else p, generator=generator)
        return self.copy_(drawn)
    _C.ct_tensor_bernoulli_(self._h, float(p), _gen(generator))
    return self


Tensor.uniform_ = _uniform_
Tensor.normal_ = _normal_
Tensor.bernoulli_ = _bernoulli_
Tensor.bernoulli = bernoulli
Tensor.multinomial = multinomial
