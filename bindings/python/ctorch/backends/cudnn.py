"""ctorch.backends.cudnn: ctorch has no cuDNN (its CUDA convolutions are its own kernels), so
is_available() is False and the flags are kept for code that reads them back, selecting nothing,
as torch's do on a machine without cuDNN."""

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None
