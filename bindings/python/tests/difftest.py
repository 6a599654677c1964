"""The machinery of the differential tests: inputs (In), cases (Case) and running one against PyTorch.

test_vs_torch.py holds the cases of the first operators; cases/<family>.py hold the operator
library's, each module defining CASES = {operator name: [Case, ...]}.
"""

import numpy as np
import pytest

from conftest import COMPLEX_NAMES, FLOAT_NAMES, INT_NAMES, BothRaised, assert_same_error, compare, dtype_name, pair_from_numpy, to_torch

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

# ---------------------------------------------------------------------------------------------------
# Inputs


class In:
    """An input: shape, dtype, layout ('contig', 'T' transposed, 'step' sliced with step 2,
    'expand' expanded from size 1 in dim 0) and value kind ('default', 'small', 'exp', 'pos',
    'special', or an explicit list of values)."""

    def __init__(self, shape, dtype="float32", layout="contig", kind="default"):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.layout = layout
        self.kind = kind


def gen_values(rng, shape, name, kind):
    if not isinstance(kind, str):
        return np.array(kind).reshape(shape)
    if name in COMPLEX_NAMES:  # each part as a float64 input of the same kind would be
        part = "float64"
        return gen_values(rng, shape, part, kind) + 1j * gen_values(rng, shape, part, kind)
    if name == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if kind == "special" and name in FLOAT_NAMES:
        pool = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-3, 7.0])
        return rng.choice(pool, size=shape)
    if kind == "small":  # bases for pow, factors for prod and integer matrix products
        if name == "uint8":
            return rng.integers(0, 4, size=shape).astype(np.int64)
        if name in INT_NAMES:
            return rng.choice(np.array([-2, -1, 1, 2]), size=shape).astype(np.int64)
        return rng.choice(np.array([-2.0, -1.5, -1.0, -0.5, 0.5, 1.0, 1.25, 2.0]), size=shape)
    if kind == "exp":  # exponents for pow: integers never negative
        if name in INT_NAMES:
            return rng.integers(0, 4, size=shape).astype(np.int64)
        return rng.integers(-16, 25, size=shape).astype(np.float64) / 8.0
    if kind == "pos":
        if name in INT_NAMES:
            return rng.integers(1, 11, size=shape).astype(np.int64)
        return rng.integers(1, 65, size=shape).astype(np.float64) / 8.0
    if name == "uint8":
        return rng.integers(0, 16, size=shape).astype(np.int64)
    if name in INT_NAMES:
        return rng.integers(-10, 11, size=shape).astype(np.int64)
    return rng.integers(-64, 65, size=shape).astype(np.float64) / 8.0


def build(spec, rng):
    """(ctorch tensor, torch tensor) for an In spec, laid out as asked."""
    shape = spec.shape
    if spec.layout == "contig":
        return pair_from_numpy(gen_values(rng, shape, spec.dtype, spec.kind), spec.dtype)
    if spec.layout == "T":
        assert len(shape) >= 2
        base = shape[:-2] + (shape[-1], shape[-2])
        c, t = pair_from_numpy(gen_values(rng, base, spec.dtype, spec.kind), spec.dtype)
        c, t = c.transpose(-1, -2), t.transpose(-1, -2)
        assert not c.is_contiguous() or min(shape[-2:]) <= 1
        return c, t
    if spec.layout == "step":
        base = shape[:-1] + (2 * shape[-1],)
        c, t = pair_from_numpy(gen_values(rng, base, spec.dtype, spec.kind), spec.dtype)
        return c[..., ::2], t[..., ::2]
    if spec.layout == "expand":
        base = (1,) + shape[1:]
        c, t = pair_from_numpy(gen_values(rng, base, spec.dtype, spec.kind), spec.dtype)
        return c.expand(*shape), t.expand(*shape)
    raise ValueError(spec.layout)


class Case:
    """fn(m, *tensors) is called with m = ctorch and m = torch. torch_fn, when given, computes the
    reference instead (see the module docstring). check='values' compares everything; 'meta'
    compares only shape and dtype (empty). tol=(rtol, atol) widens the dtype's tolerance where
    the two libraries round differently by design (a sum of many terms in another order)."""

    def __init__(self, id, fn, inputs=(), torch_fn=None, check="values", tol=(None, None)):
        self.id = id
        self.fn = fn
        self.inputs = list(inputs)
        self.torch_fn = torch_fn
        self.check = check
        self.tol = tol


def _half_kernel_missing(err):
    msg = str(err)
    return isinstance(err, RuntimeError) and "not implemented for" in msg and ("'Half'" in msg or
                                                                               "'BFloat16'" in msg)


def torch_reference(fn, tensors):
    """fn(torch, *tensors); where torch 1.13 has no CPU kernel for float16/bfloat16, the same on
    float32 inputs, rounded back to the half type."""
    try:
        return fn(torch, *tensors)
    except RuntimeError as e:
        if not _half_kernel_missing(e):
            raise
    halves = {t.dtype for t in tensors if t.dtype in (torch.float16, torch.bfloat16)}
    others = {t.dtype for t in tensors if t.dtype in (torch.float32, torch.float64)}
    up = [t.float() if t.dtype in (torch.float16, torch.bfloat16) else t for t in tensors]
    result = fn(torch, *up)
    if len(halves) == 1 and not others and result.dtype == torch.float32:
        result = result.to(halves.pop())
    return result


def run_case(case, rng):
    pairs = [build(s, rng) for s in case.inputs]
    cts = [c for c, _ in pairs]
    ths = [t for _, t in pairs]
    ref_fn = case.torch_fn or case.fn
    got = assert_same_error(lambda: case.fn(ctorch, *cts), lambda: torch_reference(ref_fn, ths))
    if isinstance(got, BothRaised):
        return
    c, t = got
    if case.check == "meta":
        assert tuple(c.shape) == tuple(t.shape)
        assert dtype_name(c.dtype) == dtype_name(t.dtype)
    else:
        compare(c, t, *case.tol)


# ---------------------------------------------------------------------------------------------------
# The same cases on the meta device


def build_meta(spec, size=lambda n: n):
    """A meta-device ctorch tensor with the sizes, dtype and strides build() gives spec; size maps
    each of the spec's sizes to the one used (build_symbolic makes symbols of them)."""
    shape, dt = tuple(size(n) for n in spec.shape), getattr(ctorch, spec.dtype)

    def empty(sizes):
        return ctorch.empty(sizes, dtype=dt, device="meta")

    if spec.layout == "contig":
        return empty(shape)
    if spec.layout == "T":
        return empty(shape[:-2] + (shape[-1], shape[-2])).transpose(-1, -2)
    if spec.layout == "step":
        return empty(shape[:-1] + (2 * shape[-1],))[..., ::2]
    if spec.layout == "expand":
        return empty((1,) + shape[1:]).expand(*shape)
    raise ValueError(spec.layout)


def _signature(result):
    """Sizes and dtypes of a result (a tensor or a sequence of them)."""
    if isinstance(result, (tuple, list)):
        return [_signature(r) for r in result]
    if isinstance(result, ctorch.Tensor):
        return (tuple(result.shape), dtype_name(result.dtype))
    return result


def run_case_on_meta(case, rng, data_dependent=False):
    """Runs the case with ctorch on the CPU and on the meta device. Both give the same sizes and
    dtypes, or both raise; a meta call may succeed where the CPU's error depends on values, which
    meta tensors lack (an IndexError: an index out of range; an InvalidArgumentError: a probability
    above 1; a LinAlgError: a singular matrix). data_dependent operators (nonzero) must refuse meta."""
    cpu_inputs = [build(s, rng)[0] for s in case.inputs]
    meta_inputs = [build_meta(s) for s in case.inputs]
    cpu_error = meta_error = None
    try:
        cpu = case.fn(ctorch, *cpu_inputs)
    except (ctorch.Error, TypeError, ValueError, IndexError) as e:
        cpu_error = e
    try:
        meta = case.fn(ctorch, *meta_inputs)
    except (ctorch.Error, TypeError, ValueError, IndexError) as e:
        meta_error = e
    if data_dependent:
        assert meta_error is not None, "an operator whose result size depends on the data ran on meta"
        return
    if cpu_error is not None:
        assert meta_error is not None or isinstance(cpu_error, (IndexError, ctorch.InvalidArgumentError,
                                                                ctorch.LinAlgError)), \
            f"the CPU raised {type(cpu_error).__name__}: {cpu_error}\nbut meta returned {_signature(meta)}"
        return
    assert meta_error is None, f"meta raised {type(meta_error).__name__}: {meta_error}\nbut the CPU returned {_signature(cpu)}"
    assert _signature(meta) == _signature(cpu)
    for r in (meta if isinstance(meta, (tuple, list)) else [meta]):
        if isinstance(r, ctorch.Tensor):
            assert r.is_meta


def _on_cuda(c, spec):
    """The ctorch tensor c (built on the cpu by build) on cuda with the same layout: its base moves,
    then the same view is taken there."""
    if spec.layout == "T":
        return c.transpose(-1, -2).cuda().transpose(-1, -2)
    if spec.layout == "step":
        base = ctorch.empty(*(spec.shape[:-1] + (2 * spec.shape[-1],)), dtype=c.dtype, device="cuda")
        view = base[..., ::2]
        view.copy_(c.cuda())
        return view
    if spec.layout == "expand":
        return c[:1].cuda().expand(*spec.shape) if spec.shape else c.cuda()
    return c.cuda()


def _cpu_values(result):
    if isinstance(result, (tuple, list)):
        return [_cpu_values(r) for r in result]
    return result.cpu() if isinstance(result, ctorch.Tensor) else result


def _as_torch(result):
    """A cpu ctorch result as torch tensors sharing its memory, for compare's reference side."""
    if isinstance(result, (tuple, list)):
        return [_as_torch(r) for r in result]
    if not isinstance(result, ctorch.Tensor):
        return result
    if result.dtype is ctorch.bfloat16:  # numpy has no bfloat16
        return torch.from_numpy(result.float().numpy()).to(torch.bfloat16)
    return torch.from_numpy(result.contiguous().numpy().copy())


def _same_bits(a, b):
    if isinstance(a, (tuple, list)):
        return all(_same_bits(x, y) for x, y in zip(a, b))
    if not isinstance(a, ctorch.Tensor):
        return a == b
    x, y = a.cpu(), b.cpu()
    if x.dtype is ctorch.bfloat16:
        x, y = x.float(), y.float()
    return x.numpy().tobytes() == y.numpy().tobytes()


def run_case_on_cuda(case, rng, departs=lambda cpu_error, cuda_error: False):
    """Runs the case with ctorch on the CPU and on cuda: the same refusal, or results on cuda with
    the CPU's sizes and dtypes and values within each dtype's tolerance (exact for integers and
    bools); a second cuda run gives the same bits (every CUDA kernel is deterministic for a fixed
    shape); for floating inputs, the gradients of the sum of the results match the cpu's (float32
    ones within 1e-4 relative, 1e-5 absolute: cuBLAS and OpenBLAS sum in other orders). Each run
    starts from one seed, so random cases must draw the cpu's numbers too. departs(cpu_error,
    cuda_error) says whether an outcome that differs is one cuda declares (PyTorch's own, or a gap of
    ctorch's cuda that it names)."""
    cpu_inputs = [build(s, rng)[0] for s in case.inputs]
    cpu_error = cuda_error = None

    def seeded(inputs):  # one seed gives every device the same numbers (random cases: dropout ...)
        ctorch.manual_seed(0)
        return case.fn(ctorch, *inputs)

    try:
        cpu = seeded(cpu_inputs)
    except (ctorch.Error, TypeError, ValueError, IndexError) as e:
        cpu_error = e
    try:  # a strided copy of a complex input is already a cuda kernel
        cuda_inputs = [_on_cuda(c, s) for c, s in zip(cpu_inputs, case.inputs)]
        gpu = seeded(cuda_inputs)
    except (ctorch.Error, TypeError, ValueError, IndexError) as e:
        cuda_error = e
    if (cpu_error is not None or cuda_error is not None) and departs(cpu_error, cuda_error):
        return
    if cpu_error is not None:
        assert cuda_error is not None and type(cuda_error) is type(cpu_error), \
            f"the CPU raised {type(cpu_error).__name__}: {cpu_error}\nbut cuda gave {cuda_error or _signature(gpu)}"
        return
    assert cuda_error is None, f"cuda raised {type(cuda_error).__name__}: {cuda_error}"
    assert _signature(gpu) == _signature(cpu)
    for r in (gpu if isinstance(gpu, (tuple, list)) else [gpu]):
        if isinstance(r, ctorch.Tensor):
            assert r.is_cuda
    compare(_cpu_values(gpu), _as_torch(cpu))
    assert _same_bits(gpu, seeded(cuda_inputs)), "a second cuda run gave other bits"
    floating = (ctorch.float32, ctorch.float64)
    if cpu_inputs and all(t.dtype in floating for t in cpu_inputs):
        want = _gradients(seeded, cpu_inputs)
        if want is not None:
            tol = (1e-4, 1e-5) if any(t.dtype is ctorch.float32 for t in cpu_inputs) else (None, None)
            compare(_cpu_values(_gradients(seeded, cuda_inputs)), _as_torch(want), *tol)


def _gradients(seeded, inputs):
    """d(sum of the floating results)/d(inputs), or None when the case has no gradient (an
    operator without a derivative, integer results)."""
    leaves = [t.detach().requires_grad_() for t in inputs]
    try:
        out = seeded(leaves)
        outs = [o for o in (out if isinstance(out, (tuple, list)) else [out])
                if isinstance(o, ctorch.Tensor) and o.requires_grad]
        if not outs:
            return None
        loss = outs[0].sum()
        for o in outs[1:]:
            loss = loss + o.sum()
        loss.backward()
    except (ctorch.Error, TypeError, ValueError, IndexError):
        return None
    return [ctorch.zeros_like(l) if l.grad is None else l.grad for l in leaves]


def build_symbolic(spec, env, hints):
    """A meta tensor like build_meta(spec) whose sizes of 2 or more are new symbols of env (range
    [2, inf), hint the case's size; each hint is appended to hints). Sizes 0 and 1 stay concrete:
    they decide broadcasting and emptiness, and PyTorch specializes them too."""
    def sym(n):
        if n < 2:
            return n
        hints.append(n)
        return env.create_symbol(n, min=2)

    return build_meta(spec, sym)


def _concrete_signature(result, hints):
    """_signature with every symbolic size evaluated at the hints."""
    if isinstance(result, (tuple, list)):
        return [_concrete_signature(r, hints) for r in result]
    if isinstance(result, ctorch.Tensor):
        return (tuple(n if isinstance(n, int) else n.evaluate(hints) for n in result.shape), dtype_name(result.dtype))
    return result


def run_case_on_symbolic_meta(case, rng):
    """Runs the case on the CPU and on meta tensors with symbolic sizes (build_symbolic). Returns
    the GuardError's message when the operator has no symbolic shape rule, else None;
    otherwise the symbolic result's sizes, evaluated at the hints, must be the CPU's, and every guard
    the shape rules recorded must hold at the hints. Errors are compared as in run_case_on_meta."""
    cpu_inputs = [build(s, rng)[0] for s in case.inputs]
    env, hints = ctorch.ShapeEnv(), []
    cpu_error = sym_error = None
    try:
        cpu = case.fn(ctorch, *cpu_inputs)
    except (ctorch.Error, TypeError, ValueError, IndexError) as e:
        cpu_error = e
    try:
        sym_inputs = [build_symbolic(s, env, hints) for s in case.inputs]
        sym = case.fn(ctorch, *sym_inputs)
    except (ctorch.Error, TypeError, ValueError, IndexError) as e:
        sym_error = e
    if isinstance(sym_error, ctorch.GuardError) and "symbolic" in str(sym_error):
        return str(sym_error)
    if cpu_error is not None:
        assert sym_error is not None or isinstance(cpu_error, (IndexError, ctorch.InvalidArgumentError,
                                                               ctorch.LinAlgError)) or \
            any(s.layout != "contig" for s in case.inputs), \
            f"the CPU raised {type(cpu_error).__name__}: {cpu_error}\nbut symbolic meta returned {_signature(sym)}"
        return None
    assert sym_error is None, f"symbolic meta raised {type(sym_error).__name__}: {sym_error}\n" \
                              f"but the CPU returned {_signature(cpu)}"
    assert env.num_symbols == len(hints), "an unbacked symbol appeared: a data-dependent operator"
    assert _concrete_signature(sym, hints) == _signature(cpu)
    assert env.check_guards(hints) == -1
    return None


# ---------------------------------------------------------------------------------------------------
# The same cases through ctorch.compile


def _exact_signature(result):
    """Sizes, dtype and every value (floats as float64, exact for every float dtype; NaN as a string
    so that equal results compare equal)."""
    if isinstance(result, (tuple, list)):
        return [_exact_signature(r) for r in result]
    if isinstance(result, ctorch.Tensor):
        values = np.array(to_torch(result).numpy(), dtype=object if result.numel() == 0 else None)
        def exact(v):
            if isinstance(v, complex):  # each part, so that NaN parts compare equal too
                return (exact(v.real), exact(v.imag))
            return "nan" if isinstance(v, float) and v != v else v
        flat = [exact(v) for v in values.reshape(-1).tolist()]
        return (tuple(result.shape), dtype_name(result.dtype), flat)
    return result


def run_case_compiled(case, seed, dynamic):
    """Runs the case eagerly and through ctorch.compile (traced on proxies, optimized, fused, then
    replayed): the same values bit for bit, or the same error class. Each run gets fresh inputs
    from the same seed (a case may write to its inputs, as batch_norm does to its running stats),
    and the random generator is reseeded, so random operators draw the same numbers."""
    compiled = ctorch.compile(lambda *ts: case.fn(ctorch, *ts), dynamic=dynamic)
    results = []
    for fn in (lambda *ts: case.fn(ctorch, *ts), compiled):
        rng = np.random.default_rng(seed)
        inputs = [build(s, rng)[0] for s in case.inputs]
        ctorch.manual_seed(7)
        try:
            results.append(("ok", _exact_signature(fn(*inputs))))
        except (ctorch.Error, TypeError, ValueError, IndexError) as e:
            results.append(("error", type(e).__name__))
    eager, traced = results
    assert traced == eager, f"eager gave {eager[0]} {eager[1] if eager[0] == 'error' else ''}, compiled " \
                            f"{traced[0]} {traced[1] if traced[0] == 'error' else ''}\n" + "\n".join(compiled.graphs())
