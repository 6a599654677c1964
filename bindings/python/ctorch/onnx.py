"""ctorch.onnx: ctorch does not write ONNX files. export raises, saying what ctorch writes instead
(ctorch.export.export saves a program that ctorch's C ABI and every binding load)."""

__all__ = ["export", "is_in_onnx_export"]


def is_in_onnx_export():
    return False


def export(model, args=(), f=None, *rest, **kwargs):
    raise NotImplementedError("ctorch.onnx.export: ctorch does not write ONNX. ctorch.export.export(fn, args) "
                              "saves a ctorch program, which C, Rust, Java and Julia load")
