"""ctorch.backends.cuda: matmul.allow_tf32 is ctorch's float32 matmul precision ("high" allows TF32
on CUDA, "highest" does not), as torch ties the two."""

from .. import _runtime


class _Matmul:
    """backends.cuda.matmul: allow_tf32 reads and sets ctorch.set_float32_matmul_precision."""

    @property
    def allow_tf32(self):
        return _runtime.get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, allow):
        _runtime.set_float32_matmul_precision("high" if allow else "highest")

    def __repr__(self):
        return f"<ctorch.backends.cuda.matmul allow_tf32={self.allow_tf32}>"


matmul = _Matmul()
