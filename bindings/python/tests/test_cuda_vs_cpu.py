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


@pytest.mark.parametrize("op,case", [pytest.param(op, case, id=f"{op}-{case.id}")
                                     for table in (CASES, FUNCTIONS) for op, cases in table.items()
                                     for case in cases if case.inputs])
def test_case_on_cuda_matches_cpu(op, case):
    run_case_on_cuda(case, np.random.default_rng(zlib.crc32(f"{op}-{case.id}".encode())))
