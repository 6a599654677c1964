#!/usr/bin/env python3
"""Writes the PyTorch files the bindings' tests load, with torch itself (torch.save), so that each
binding shows it reads what PyTorch writes. Run from the repository root with torch installed:

    python3 tests/data/make_torch_files.py

checkpoint.pt: {"model": the state dict of Linear(3, 2) with weight arange(6).reshape(2, 3) / 4 and
bias [0.5, -0.5], "epoch": 5, "history": [0.25, 0.125]} (torch.save's zip format).
"""

import collections
import os

import torch

here = os.path.dirname(os.path.abspath(__file__))
model = collections.OrderedDict([("weight", torch.arange(6.0).reshape(2, 3) / 4), ("bias", torch.tensor([0.5, -0.5]))])
torch.save({"model": model, "epoch": 5, "history": [0.25, 0.125]}, os.path.join(here, "checkpoint.pt"))
