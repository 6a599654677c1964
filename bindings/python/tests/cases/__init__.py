"""Differential cases of the operator library, one module per operator family; each defines
CASES = {registered operator name: [difftest.Case, ...]} and test_vs_torch.py runs them all."""
