"""ctorch.backends.openmp: ctorch's CPU kernels run on OpenMP threads (ctorch.set_num_threads)."""


def is_available():
    return True
