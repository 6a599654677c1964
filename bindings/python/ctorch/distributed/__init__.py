"""ctorch.distributed: torch.distributed's process groups and collectives over ctorch's engines
(gloo over TCP for CPU tensors, MPI, NCCL for CUDA tensors; see docs/distributed.md).

    import ctorch.distributed as dist
    dist.init_process_group("gloo")          # MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE from the environment
    dist.all_reduce(t)                       # t := the sum over the ranks, in place
    work = dist.all_reduce(t, async_op=True) # ... work.wait()

Start the processes with the launcher: python -m ctorch.distributed.run --nproc-per-node 2 train.py.
Data-parallel training: ctorch.nn.parallel.DistributedDataParallel."""

from .._errors import DistBackendError, DistError, DistTimeoutError
from .distributed_c10d import *  # noqa: F401,F403
from .distributed_c10d import __all__ as _c10d_all

__all__ = list(_c10d_all) + ["DistError", "DistBackendError", "DistTimeoutError"]
