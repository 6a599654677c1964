"""ctorch.backends.mkldnn: ctorch's CPU kernels are its own and OpenBLAS's, not oneDNN's."""

enabled = True


def is_available():
    return False
