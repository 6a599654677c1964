"""Programs written for torch, run unchanged with ctorch standing in for torch (every `import torch`
of the program gets ctorch, and `torch.nn`, `torch.utils.data` ... its namespaces), must print what
they print under torch. The programs are in tests/programs/; each prints numbers it computed, so a
difference shows where ctorch differs."""

import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))

# Runs a program with sys.modules' torch names bound to ctorch's, then as __main__.
STAND_IN = """
import runpy, sys
import ctorch
names = {"torch": ctorch, "torch.nn": ctorch.nn, "torch.nn.functional": ctorch.nn.functional,
         "torch.optim": ctorch.optim, "torch.fft": ctorch.fft, "torch.linalg": ctorch.linalg, "torch.optim.lr_scheduler": ctorch.optim.lr_scheduler,
         "torch.optim.optimizer": ctorch.optim.optimizer,
         "torch.utils": ctorch.utils, "torch.utils.data": ctorch.utils.data, "torch.backends": ctorch.backends,
         "torch.backends.cudnn": ctorch.backends.cudnn, "torch.cuda": ctorch.cuda, "torch.amp": ctorch.amp,
         "torch.jit": ctorch.jit, "torch.nn.utils": ctorch.nn.utils, "torch.nn.utils.rnn": ctorch.nn.utils.rnn}
sys.modules.update(names)
sys.argv = [sys.argv[1]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def run(program, stand_in):
    path = os.path.join(HERE, "programs", program)
    cmd = [sys.executable, "-c", STAND_IN, path] if stand_in else [sys.executable, path]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=dict(os.environ))
    assert done.returncode == 0, f"{program} {'with ctorch' if stand_in else 'with torch'} failed:\n{done.stderr}"
    return done.stdout


@pytest.mark.parametrize("program", ["classifier.py", "sequence_model.py", "word_language_model.py", "curve_fit.py",
                                     "char_transformer_lm.py", "conv_net.py", "gaussian_process.py",
                                     "spectral_methods.py"])
def test_program_prints_what_it_prints_with_torch(program):
    with_ctorch = run(program, stand_in=True)
    with_torch = run(program, stand_in=False)
    assert with_ctorch == with_torch, f"ctorch printed:\n{with_ctorch}\ntorch printed:\n{with_torch}"
