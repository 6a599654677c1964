"""ctorch.compiler: what torch.compiler offers that concerns ctorch's compiler.

wait_kernels() is ctorch's own: ctorch.compile starts every fused CPU kernel on its loops and,
once a kernel has run for the option "cpp_kernels_hot_ms" (20 ms by default), builds it as C++ in
a background thread (option "cpp_kernels": "auto"; docs/compile.md, "C++ kernels"). Programs never
need to wait for that; a benchmark that times the steady state, or a test that inspects it, does."""

from . import _C

__all__ = ["wait_kernels"]


def wait_kernels():
    """Blocks until every C++ kernel the background builder was asked for so far is built (or
    failed to build, which a warning reports at the kernel's next call). ct_compile_wait_kernels."""
    _C.ct_compile_wait_kernels()
