"""ctorch.nn.utils.rnn: variable-length batches for the recurrent layers (torch.nn.utils.rnn's names).

A PackedSequence holds the rows of every time step in turn (data), how many sequences are still
running at each step (batch_sizes, int64 on the cpu, not increasing) and the permutation that sorted
the batch longest first. The recurrent operators (ctorch.ops.lstm's packed form) step through it
without computing on padding. Packing and unpacking are index, cat and stack operators, so gradients
flow through them.
"""

import collections

from ... import ops as _ops
from ..._tensor import Tensor

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence", "pack_sequence",
           "unpad_sequence", "unpack_sequence", "invert_permutation"]


def invert_permutation(permutation):
    """The permutation that undoes `permutation` (None stays None)."""
    if permutation is None:
        return None
    from ... import arange, empty_like

    output = empty_like(permutation)
    output.scatter_(0, permutation, arange(permutation.numel(), device=permutation.device))
    return output


class PackedSequence(collections.namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices",
                                                                 "unsorted_indices"])):
    """A batch of sequences packed step by step; build it with pack_padded_sequence or pack_sequence."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            raise TypeError("PackedSequence: batch_sizes is required; build one with pack_padded_sequence")
        if batch_sizes.device.type != "cpu":
            raise ValueError("PackedSequence: batch_sizes must be on the cpu, it is on " + str(batch_sizes.device))
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same packing with data (and the index tensors, to data's device) converted as Tensor.to."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        device = data.device
        index = (lambda t: None if t is None else t.to(device))
        return type(self)(data, self.batch_sizes, index(self.sorted_indices), index(self.unsorted_indices))

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else device)

    def double(self):
        from ... import float64
        return self.to(dtype=float64)

    def float(self):
        from ... import float32
        return self.to(dtype=float32)

    def half(self):
        from ... import float16
        return self.to(dtype=float16)

    def long(self):
        from ... import int64
        return self.to(dtype=int64)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def _lengths_list(lengths):
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise ValueError(f"pack_padded_sequence: lengths must be 1-D, got {tuple(lengths.shape)}")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch [T, B, *] ([B, T, *] with batch_first) whose sequence b has lengths[b]
    steps. With enforce_sorted the lengths must not increase; otherwise the batch is sorted here and
    the permutation kept so that the results come back in the caller's order."""
    from ... import tensor, int64

    lens = _lengths_list(lengths)
    batch_dim = 0 if batch_first else 1
    if len(lens) != input.shape[batch_dim]:
        raise ValueError(f"pack_padded_sequence: {len(lens)} lengths for a batch of {input.shape[batch_dim]}")
    if any(n <= 0 for n in lens):
        raise RuntimeError("pack_padded_sequence: every length must be at least 1, got " + str(lens))
    sorted_indices = None
    if enforce_sorted:
        if any(a < b for a, b in zip(lens, lens[1:])):
            raise RuntimeError("pack_padded_sequence: `lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` to pack_padded_sequence "
                               "and/or pack_sequence to sidestep this requirement if you do not need ONNX "
                               "exportability.")
    else:
        order = sorted(range(len(lens)), key=lambda b: -lens[b])
        sorted_indices = tensor(order, dtype=int64, device=input.device)
        input = input.index_select(batch_dim, sorted_indices)
        lens = [lens[b] for b in order]
    steps = lens[0]
    if steps > input.shape[1 - batch_dim]:
        raise RuntimeError(f"pack_padded_sequence: a length of {steps} exceeds the {input.shape[1 - batch_dim]} "
                           "steps of the input")
    if batch_first:
        input = input.transpose(0, 1)
    batch_sizes = [sum(1 for n in lens if n > t) for t in range(steps)]
    data = _ops.call("cat", [input[t, :b] for t, b in enumerate(batch_sizes)], 0)
    return PackedSequence(data, tensor(batch_sizes, dtype=int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Unpacks a PackedSequence into a padded batch and the lengths (int64, the caller's order)."""
    from ... import full, tensor, int64

    data, batch_sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    steps, batch = len(batch_sizes), batch_sizes[0]
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence "
                             f"({steps}), but got total_length={total_length}")
    rows, offset = [], 0
    tail = tuple(data.shape[1:])
    for b in batch_sizes:
        part = data[offset:offset + b]
        if b < batch:
            part = _ops.call("cat", [part, full((batch - b,) + tail, padding_value, dtype=data.dtype,
                                                device=data.device)], 0)
        rows.append(part)
        offset += b
    for _ in range(steps, total_length or steps):
        rows.append(full((batch,) + tail, padding_value, dtype=data.dtype, device=data.device))
    padded = _ops.call("stack", rows, 0)
    lengths = [sum(1 for b in batch_sizes if b > i) for i in range(batch)]
    lengths = tensor(lengths, dtype=int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices.to("cpu"))
    return (padded.transpose(0, 1) if batch_first else padded), lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks tensors [L_i, *] into [T, B, *] ([B, T, *] with batch_first), T the longest L_i, padding
    each on padding_side ('right' or 'left') with padding_value."""
    from ... import full

    if padding_side not in ("right", "left"):
        raise ValueError(f"pad_sequence: padding_side must be 'left' or 'right', got {padding_side!r}")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("pad_sequence: received an empty list of sequences")
    steps = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        if s.shape[0] < steps:
            pad = full((steps - s.shape[0],) + tuple(s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
            s = _ops.call("cat", [s, pad] if padding_side == "right" else [pad, s], 0)
        padded.append(s)
    return _ops.call("stack", padded, 0 if batch_first else 1)


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of tensors [L_i, *] (longest first unless enforce_sorted=False)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences, _lengths_list(lengths))]


def unpack_sequence(packed_sequences):
    """The list of sequences of a PackedSequence, in the order they were packed."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
