"""The connectionist temporal classification loss (torch.nn.functional.ctc_loss): the negative log
probability of a target sequence summed over every alignment of it to the input's time steps,
computed by the forward (alpha) and backward (beta) recursions in log space over the target
extended with blanks, all batch entries at once, one step per time step.

The gradient is torch's: with respect to log_probs it is exp(log_probs) minus the posterior of each
class at each step, which equals the exact gradient once it flows through the log_softmax that
makes log_probs (the rows of exp(log_probs) sum to one); steps past an input's length get none."""

import builtins

from ..autograd import Function


def _lse(*terms):
    """The elementwise log-sum-exp of tensors (of one shape) where -inf stays -inf, never NaN."""
    from .. import full_like, maximum, where
    m = terms[0]
    for t in terms[1:]:
        m = maximum(m, t)
    finite = where(m == float("-inf"), full_like(m, 0.0), m)
    total = (terms[0] - finite).exp()
    for t in terms[1:]:
        total = total + (t - finite).exp()
    return finite + total.log()


def _shift(x, by, fill):
    """x's last dim moved right by `by` positions (toward higher s), fill entering from the left."""
    from .. import cat, full_like
    if by == 0:
        return x
    pad = full_like(x.narrow(-1, 0, builtins.min(by, x.shape[-1])), fill)
    return cat([pad, x.narrow(-1, 0, x.shape[-1] - by)], -1) if x.shape[-1] > by else pad.narrow(-1, 0, x.shape[-1])


def _unshift(x, by, fill):
    """x's last dim moved left by `by` positions (toward lower s)."""
    from .. import cat, full_like
    n = x.shape[-1]
    if n <= by:
        return full_like(x, fill)
    return cat([x.narrow(-1, by, n - by), full_like(x.narrow(-1, 0, by), fill)], -1)


class _CTC(Function):
    @staticmethod
    def forward(ctx, log_probs, ext, skip, input_lengths, target_lengths, zero_infinity):
        from .. import arange, full_like, stack, where
        steps, batch, length = log_probs.shape[0], log_probs.shape[1], ext.shape[1]
        neg = float("-inf")
        em = log_probs.gather(2, ext.unsqueeze(0).expand(steps, batch, length))  # [T, N, L]
        s = arange(length, device=log_probs.device).unsqueeze(0)
        ends = (2 * target_lengths + 1).unsqueeze(1)  # the extended target's length per entry
        start = (s < 2) & (s < ends)
        t_len = input_lengths.unsqueeze(1)
        alpha = where(start, em[0], full_like(em[0], neg))
        alphas = [alpha]
        for t in builtins.range(1, steps):
            candidate = _lse(alpha, _shift(alpha, 1, neg), where(skip, _shift(alpha, 2, neg), full_like(alpha, neg))) + em[t]
            alpha = where((s < ends) & (t < t_len), candidate, full_like(alpha, neg))
            alphas.append(alpha)
        alphas = stack(alphas, 0)  # [T, N, L]
        last = alphas.gather(0, (input_lengths - 1).clamp_min(0).reshape(1, batch, 1).expand(1, batch, length))[0]
        final = last.gather(1, (ends - 1).clamp_min(0))[:, 0]
        before = last.gather(1, (ends - 2).clamp_min(0))[:, 0]
        before = where(target_lengths > 0, before, full_like(before, neg))
        nll = -_lse(final, before)
        nll = where(input_lengths > 0, nll, where(target_lengths > 0, full_like(nll, float("inf")), full_like(nll, 0.0)))
        ctx.save_for_backward(log_probs, ext, skip, input_lengths, target_lengths, em, alphas, nll)
        ctx.zero_infinity = zero_infinity
        if zero_infinity:
            nll = where(nll == float("inf"), full_like(nll, 0.0), nll)
        return nll

    @staticmethod
    def backward(ctx, grad_nll):
        from .. import arange, full_like, stack, where, zeros
        log_probs, ext, skip, input_lengths, target_lengths, em, alphas, nll = ctx.saved_tensors
        steps, batch, classes = log_probs.shape
        length = ext.shape[1]
        neg = float("-inf")
        s = arange(length, device=log_probs.device).unsqueeze(0)
        ends = (2 * target_lengths + 1).unsqueeze(1)
        t_len = input_lengths.unsqueeze(1)
        finals = (s == ends - 1) | ((s == ends - 2) & (ends > 1))
        skip_ahead = _unshift(skip.long(), 2, 0) != 0  # may s jump to s + 2
        beta = full_like(em[0], neg)
        betas = [None] * steps
        for t in builtins.range(steps - 1, -1, -1):
            candidate = _lse(beta, _unshift(beta, 1, neg), where(skip_ahead, _unshift(beta, 2, neg), full_like(beta, neg)))
            candidate = candidate + em[t]
            beta = where(t == t_len - 1, where(finals, em[t], full_like(em[t], neg)),
                         where((t < t_len - 1) & (s < ends), candidate, full_like(candidate, neg)))
            betas[t] = beta
        betas = stack(betas, 0)
        both = alphas + betas  # [T, N, L]: log of every alignment's probability through (t, s)
        top = both.amax(2, keepdim=True)
        top = where(top == neg, full_like(top, 0.0), top)
        sums = zeros(steps, batch, classes, dtype=log_probs.dtype, device=log_probs.device)
        sums = sums.scatter_add(2, ext.unsqueeze(0).expand(steps, batch, length), (both - top).exp())
        posterior = (sums.log() + top + nll.reshape(1, batch, 1) - log_probs).exp()
        grad = log_probs.exp() - posterior
        active = arange(steps, device=log_probs.device).reshape(steps, 1) < input_lengths.reshape(1, batch)
        keep = active.unsqueeze(2)
        if ctx.zero_infinity:
            keep = keep & (nll != float("inf")).reshape(1, batch, 1)
        grad = where(keep, grad, full_like(grad, 0.0)) * grad_nll.reshape(1, batch, 1)
        return grad, None, None, None, None, None


def _lengths(value, batch, name, device):
    from .. import int64, tensor
    from .._tensor import Tensor
    t = value.to(int64) if isinstance(value, Tensor) else tensor(list(value) if not isinstance(value, int) else [value],
                                                                 dtype=int64)
    t = t.reshape(-1)
    if t.numel() != batch:
        raise RuntimeError(f"ctc_loss: expected {name} to have {batch} values (one per batch entry), got {t.numel()}")
    return t.to(device)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """The CTC loss of log_probs [T, N, C] (log_softmax outputs; [T, C] unbatched) against targets,
    padded [N, S] or concatenated 1-D, with each entry's input and target length (tensors or
    sequences of ints), as torch.nn.functional.ctc_loss: reduction 'mean' divides each loss by its
    target length, then averages; zero_infinity turns impossible alignments' infinite losses (and
    their gradients) into zeros."""
    from .. import cat, full, int64, zeros
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        if targets.dim() == 1:
            targets = targets.unsqueeze(0)
    if log_probs.dim() != 3:
        raise RuntimeError(f"ctc_loss: log_probs must be [T, N, C] or [T, C], got {log_probs.dim()}-D")
    if not log_probs.is_floating_point():
        raise RuntimeError(f"ctc_loss: log_probs must be floating, got {log_probs.dtype}")
    steps, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    device = log_probs.device
    in_len = _lengths(input_lengths, batch, "input_lengths", device)
    tg_len = _lengths(target_lengths, batch, "target_lengths", device)
    lengths = tg_len.tolist()
    if builtins.any(v > steps or v < 0 for v in in_len.tolist()):
        raise RuntimeError(f"ctc_loss: Expected input_lengths to have value at most {steps}, but got value "
                           f"{builtins.max(in_len.tolist())}")
    if builtins.any(v < 0 for v in lengths):
        raise RuntimeError("ctc_loss: target lengths must be non-negative")
    longest = builtins.max(lengths) if lengths else 0
    targets = targets.to(int64).to(device)
    if targets.dim() == 2:  # padded
        if longest > targets.shape[1]:
            raise RuntimeError(f"ctc_loss: Expected tensor to have size at least {longest} at dimension 1, but got "
                               f"size {targets.shape[1]} for targets")
        padded = targets.narrow(1, 0, longest) if longest else zeros(batch, 0, dtype=int64, device=device)
    elif targets.dim() == 1:  # concatenated
        if targets.numel() < builtins.sum(lengths):
            raise RuntimeError(f"ctc_loss: targets hold {targets.numel()} labels, fewer than target_lengths' sum "
                               f"{builtins.sum(lengths)}")
        rows, at = [], 0
        for n in lengths:
            row = targets.narrow(0, at, n)
            rows.append(cat([row, full((longest - n,), blank, dtype=int64, device=device)]).unsqueeze(0))
            at += n
        padded = cat(rows, 0) if rows else zeros(0, longest, dtype=int64, device=device)
    else:
        raise RuntimeError(f"ctc_loss: targets must be 1-D or 2-D, got {targets.dim()}-D")
    if padded.numel() and (int(padded.min()) < 0 or int(padded.max()) >= classes):
        raise RuntimeError(f"ctc_loss: target labels must be in [0, {classes})")
    length = 2 * longest + 1
    ext = full((batch, length), blank, dtype=int64, device=device)
    if longest:
        ext[:, 1::2] = padded
    skip = (ext != blank) & (ext != _shift(ext, 2, blank))
    skip[:, :2] = False
    nll = _CTC.apply(log_probs, ext, skip, in_len, tg_len, zero_infinity)
    if unbatched and reduction == "none":
        return nll[0]
    if reduction == "none":
        return nll
    if reduction == "sum":
        return nll.sum()
    return (nll / tg_len.clamp_min(1).to(nll.dtype)).mean()
