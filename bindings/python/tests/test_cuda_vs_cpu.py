"""Every differential case of test_vs_torch.py again on cuda, against ctorch's own cpu results
(issue 9's "every operator against the CPU results"): the same refusals, the cpu's sizes and
dtypes, values within each dtype's tolerance, and bitwise-repeatable second runs. Runs only where
CUDA has a device; elsewhere the module is skipped before its cases are collected."""
import zlib

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
if not ctorch.cuda.is_available():
    pytest.skip("no CUDA device: the cuda differential suite needs one", allow_module_level=True)

from difftest import run_case_on_cuda  # noqa: E402
from test_vs_torch import CASES, FUNCTIONS  # noqa: E402


# Where cuda departs from ctorch's cpu on purpose, as PyTorch on cuda does (scripts/gpu_suite.sh
# checks these against torch on the GPU machine): cuBLAS multiplies floating matrices only, so
# integer matrix products raise there (torch: "addmm_cuda" not implemented for 'Long'); the int64
# average pool is the cpu's only; an integer division by zero raises ZeroDivisionError on the cpu,
# while on cuda, as in torch, nothing checks the divisors (the values are undefined); linalg.svd
# takes driver= on cuda only.
INTEGER_MATMUL = {"mm", "bmm", "mv", "dot", "outer", "kron", "matmul", "addmm", "addmv", "baddbmm", "einsum",
                  "tensordot", "linear"}


# Where ctorch's cuda does not reach yet, unlike torch's (said in docs/operators/complex.md): on
# cuda, complex tensors only move, copy, add, sum and go through torch.fft's transforms, so a
# complex case that needs other complex arithmetic is refused with that reason, whatever the cpu did.
def not_on_cuda_yet(cuda_error):
    return isinstance(cuda_error, NotImplementedError) and \
        "complex tensors only move, copy, add, sum" in str(cuda_error)


def departs_as_torch_on_cuda(op):
    def departs(cpu_error, cuda_error):
        if not_on_cuda_yet(cuda_error):
            return True
        if isinstance(cuda_error, NotImplementedError) and cpu_error is None:
            message = str(cuda_error)
            if op in INTEGER_MATMUL and "cuBLAS multiplies" in message:
                return True
            return op.startswith("avg_pool") and "average pool runs on the cpu only" in message
        # linalg.svd's driver= is cuSOLVER's: the cpu refuses it, cuda takes 'gesvd'.
        if op == "linalg_svd" and cuda_error is None and "driver=" in str(cpu_error):
            return True
        return (cuda_error is None and isinstance(cpu_error, ctorch.InvalidArgumentError)
                and "ZeroDivisionError" in str(cpu_error))
    return departs


@pytest.mark.parametrize("op,case", [pytest.param(op, case, id=f"{op}-{case.id}")
                                     for table in (CASES, FUNCTIONS) for op, cases in table.items()
                                     for case in cases if case.inputs])
def test_case_on_cuda_matches_cpu(op, case):
    run_case_on_cuda(case, np.random.default_rng(zlib.crc32(f"{op}-{case.id}".encode())), departs_as_torch_on_cuda(op))


def test_departures_are_torchs_on_cuda():
    """The departures declared above are what torch does on cuda too."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device here to compare with")
    a = torch.ones(2, 2, dtype=torch.int64, device="cuda")
    with pytest.raises(RuntimeError, match="not implemented"):
        a @ a
    with pytest.raises(RuntimeError, match="not implemented"):
        torch.nn.functional.avg_pool2d(torch.ones(1, 1, 4, 4, dtype=torch.int64, device="cuda"), 2)
    torch.remainder(a, torch.zeros_like(a))  # no ZeroDivisionError on cuda
    torch.linalg.svd(torch.eye(3, device="cuda"), driver="gesvd")  # the cpu refuses driver=
    torch.cuda.synchronize()
