"""AdaptiveLogSoftmaxWithLoss (torch.nn's): the efficient softmax approximation of Grave et al. for
large vocabularies. Frequent classes (below cutoffs[0]) are scored by a head layer that also
scores one entry per cluster of rarer classes; a class in cluster i has the cluster's head
log-probability plus its log-probability within the cluster, from a smaller projection
(in_features / div_value ** (i + 1) features). Parameter names and initialization are torch's, so
its state dicts load."""

import collections

from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = collections.namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features, self.n_classes, self.div_value, self.head_bias = in_features, n_classes, div_value, head_bias
        self.cutoffs = cutoffs + [n_classes]
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, device=device, dtype=dtype),
                                        Linear(hidden, size, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for projection in self.tail:
            for layer in projection:
                layer.reset_parameters()

    def forward(self, input, target):
        """(output, loss): each target's log-probability [N] (or [] unbatched) and their negated mean."""
        from ... import int64, zeros
        unbatched = input.dim() == 1
        if unbatched:
            if target.dim() != 0:
                raise RuntimeError("1D target tensor expects 1D input tensors, but found inputs with size",
                                   tuple(input.shape))
            input, target = input.unsqueeze(0), target.unsqueeze(0)
        elif input.dim() != 2 or target.dim() != 1:
            raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with size",
                               tuple(input.shape))
        if input.shape[0] != target.shape[0]:
            raise RuntimeError("Input and target should have the same size in the batch dimension.")
        if input.shape[1] != self.in_features:
            raise RuntimeError(f"Input should have {self.in_features} features, got {input.shape[1]}")
        batch = input.shape[0]
        within = zeros(batch, dtype=input.dtype, device=input.device)  # log p(class | its cluster), 0 in the head
        head_column = zeros(batch, dtype=int64, device=input.device)
        covered = 0
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            low, high = bounds[i], bounds[i + 1]
            rows = ((target >= low) & (target < high)).nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            picked = target.index_select(0, rows)
            if i == 0:
                head_column = head_column.index_copy(0, rows, picked)
            else:
                cluster = self.tail[i - 1](input.index_select(0, rows)).log_softmax(1)
                local = cluster.gather(1, (picked - low).unsqueeze(1)).squeeze(1)
                within = within.index_add(0, rows, local)
                head_column = head_column.index_copy(0, rows, picked.new_full(picked.shape, self.shortlist_size + i - 1))
            covered += rows.numel()
        if covered != batch:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{int(target.min())}, {int(target.max())}] were found. ")
        head = self.head(input).log_softmax(1)
        output = within + head.gather(1, head_column.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output.squeeze(0) if unbatched else output, loss)

    def log_prob(self, input):
        """Every class's log-probability: [N, n_classes] (or [n_classes])."""
        from ... import cat
        unbatched = input.dim() == 1
        x = input.unsqueeze(0) if unbatched else input
        head = self.head(x).log_softmax(1)
        parts = [head.narrow(1, 0, self.shortlist_size)]
        for i in range(self.n_clusters):
            cluster = self.tail[i](x).log_softmax(1)
            parts.append(cluster + head.narrow(1, self.shortlist_size + i, 1))
        out = cat(parts, 1)
        return out.squeeze(0) if unbatched else out

    def predict(self, input):
        """The most likely class of each row (a head shortlist class outranks every cluster's)."""
        return self.log_prob(input).argmax(-1)
