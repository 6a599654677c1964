#!/usr/bin/env python3
"""api_coverage.py - how much of PyTorch's public Python API ctorch's package has, per namespace,
measured against the torch installed beside it; exits 1 when a figure falls below its floor.

Namespaces: Tensor's methods, the torch.* functions, torch.linalg, torch.nn.functional, torch.nn's
modules and torch.optim's optimizers and lr_schedulers. A name counts when the ctorch object has an attribute of
that name (dynamic operator methods included); whether it computes torch's numbers is the
differential suites' job. Left out, deliberately (ctorch has no such tensors, devices or backends):
sparse and quantized tensors, named tensors, storages, other vendors' devices, and torch internals
(names starting with "_"). See LEFT_OUT for the patterns and why; NOT_YET says, for each name the
package still lacks, why, and the report prints it.

Run it from the repository root with the built package on the path:
  PYTHONPATH=build/bindings/python /usr/bin/python3 tests/api_coverage.py [--missing NAMESPACE]
"""

import inspect
import re
import sys
import warnings

import ctorch
import torch

LEFT_OUT = {
    r"sparse|to_dense|coalesce|indices$|values$|crow_|col_indices|ccol_|row_indices|_nnz|nnz|^indices_copy$|"
    r"^values_copy$|^native_norm$|^(dsmm|hsmm|hspmm|saddmm|smm|spmm|sspaddmm)$": "sparse tensors",
    r"^q_|quantiz|dequantize|int_repr|qscheme|fake_quant|fbgemm|^quantized|^choose_qparams": "quantized tensors",
    r"^(names|rename|rename_|refine_names|align_to|align_as|align_tensors|has_names|unflatten_names)$": "named tensors",
    r"^(import_ir_module|import_ir_module_from_buffer|parse_ir|parse_schema|parse_type_comment|"
    r"merge_type_from_type_comment|unify_type_list|fork|wait)$": "TorchScript (ctorch.jit passes functions through)",
    r"^(Callable|Set|Union|candidate|obj|classproperty|read_vitals|set_vital|vitals_enabled|"
    r"prepare_multiprocessing_environment)$": "not torch's API: typing names, loop leftovers and internals in its namespace",
    r"^storage$|^storage_type$|typed_storage|^share_memory_$|^is_shared$|^set_$": "storages (ctorch exposes memory through numpy and DLPack)",
    r"xpu|ipu|hpu|mps|vulkan|mkldnn|miopen|cudnn|mtia|^is_ort|^ort|^is_xla|^xla|^is_ve$|^ve$|nested|^to_padded": "other devices and backends",
    r"^chalf$|complex32": "complex32 (ctorch's complex dtypes are complex64 and complex128)",
}

# torch.* functions and Tensor methods that torch 1.9 removed in favour of torch.linalg's: torch 1.13
# keeps the names only to raise saying so, and torch 2 has none. torch.linalg's are counted instead.
REMOVED_FOR_LINALG = {"eig", "lstsq", "solve", "matrix_rank"}

# What the package does not have yet, deliberately, and why: printed under each namespace's figure.
NOT_YET = {
    "name": "named tensors' attribute (named tensors are left out)",
    "record_stream": "CUDA stream bookkeeping of torch's caching allocator; ctorch's streams do not share tensors",
    "batch_norm_stats": "SyncBatchNorm's CUDA kernels (torch's CPU has only batch_norm_update_stats)",
    "batch_norm_elemt": "SyncBatchNorm's CUDA kernels",
    "batch_norm_gather_stats": "SyncBatchNorm's CUDA kernels",
    "batch_norm_gather_stats_with_counts": "SyncBatchNorm's CUDA kernels",
    "batch_norm_backward_reduce": "SyncBatchNorm's CUDA kernels",
    "batch_norm_backward_elemt": "SyncBatchNorm's CUDA kernels",
    "batch_norm_update_stats": "SyncBatchNorm's statistics helper; F.batch_norm updates running statistics itself",
    "embedding_bag": "torch.embedding_bag's 4-tuple (offset2bag, bag_size, max_indices); F.embedding_bag is there",
    "histogramdd": "not written yet: histogram in more than one dimension (torch.histogram is there)",
    "segment_reduce": "not written yet: a prototype in torch, undocumented",
    "lobpcg": "not written yet: torch's iterative generalized eigensolver",
    "get_num_interop_threads": "ctorch has one thread pool, no inter-op pool",
    "set_num_interop_threads": "ctorch has one thread pool, no inter-op pool",
    "init_num_threads": "ctorch's pool starts on first use",
}

# How many names the package had when each floor was last raised (against torch 1.13): a change that
# removes a name fails, and an addition should raise its floor. The goal is 95% of each namespace.
FLOORS = {"Tensor methods": 533, "torch functions": 583, "torch.linalg": 42, "torch.nn.functional": 124,
          "torch.nn modules": 155, "torch.optim": 29}


def left_out(name):
    return next((why for pattern, why in LEFT_OUT.items() if re.search(pattern, name, re.IGNORECASE)), None)


def public(names):
    return sorted(n for n in names if not n.startswith("_") and not left_out(n))


def namespaces():
    x = ctorch.zeros(2, 2)
    tensor = public(n for n in dir(torch.Tensor) if n not in REMOVED_FOR_LINALG)
    functions = public(n for n in dir(torch) if callable(getattr(torch, n)) and not inspect.isclass(getattr(torch, n))
                       and n not in REMOVED_FOR_LINALG)
    linalg = public(n for n in dir(torch.linalg) if callable(getattr(torch.linalg, n)) and n != "Tensor")
    functional = public(n for n in dir(torch.nn.functional) if callable(getattr(torch.nn.functional, n))
                        and getattr(getattr(torch.nn.functional, n), "__module__", "").startswith("torch"))
    modules = public(n for n in dir(torch.nn) if inspect.isclass(getattr(torch.nn, n))
                     and issubclass(getattr(torch.nn, n), torch.nn.Module))
    optim = public(n for n in dir(torch.optim) if inspect.isclass(getattr(torch.optim, n))
                   and issubclass(getattr(torch.optim, n), torch.optim.Optimizer))
    sched = torch.optim.lr_scheduler
    optim += public("lr_scheduler." + n for n in dir(sched)
                    if inspect.isclass(getattr(sched, n)) and getattr(sched, n).__module__ == sched.__name__)

    def has(obj, dotted):
        with warnings.catch_warnings():  # reading a deprecated property (volatile) warns, as in torch
            warnings.simplefilter("ignore")
            return _has(obj, dotted)

    def _has(obj, dotted):
        for part in dotted.split("."):
            if part in dir(type(obj)) or part in getattr(obj, "__dict__", {}):
                try:
                    obj = getattr(obj, part, None)
                except Exception:  # noqa: BLE001 - a property refusing this tensor (x.imag of a real x), as torch's
                    obj = None
                continue
            try:  # names the package makes on demand (every operator: ctorch.erfinv, x.topk)
                obj = getattr(obj, part)
            except AttributeError:
                return False
        return True

    return {
        "Tensor methods": (tensor, lambda n: has(x, n)),
        "torch functions": (functions, lambda n: has(ctorch, n)),
        "torch.linalg": (linalg, lambda n: has(ctorch.linalg, n)),
        "torch.nn.functional": (functional, lambda n: has(ctorch.nn.functional, n)),
        "torch.nn modules": (modules, lambda n: has(ctorch.nn, n)),
        "torch.optim": (optim, lambda n: has(ctorch.optim, n)),
    }


def main():
    missing_of = sys.argv[sys.argv.index("--missing") + 1] if "--missing" in sys.argv else None
    print(f"ctorch's Python API against torch {torch.__version__} (left out: {', '.join(sorted(set(LEFT_OUT.values())))})")
    failed = False
    for name, (names, has) in namespaces().items():
        present = [n for n in names if has(n)]
        share = len(present) / len(names)
        floor = FLOORS[name]
        mark = "" if len(present) >= floor else f"  BELOW THE FLOOR OF {floor}"
        failed |= len(present) < floor
        print(f"  {name:22s} {len(present):4d} of {len(names):4d}  {share:6.1%}{mark}")
        missing = [n for n in names if not has(n)]
        if missing_of == name:
            print("    missing: " + " ".join(missing))
        for n in missing:
            print(f"    without {n}: {NOT_YET.get(n, 'not in NOT_YET: add it, with the reason')}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
