"""ctorch.nn.parallel.DistributedDataParallel: torch's data-parallel wrapper over a process group
(ctorch.distributed). Each rank runs the module on its share of a batch; backward averages the
gradients over the ranks while it runs, so every rank's optimizer takes the same step.

Note [Gradient buckets]
The parameters are grouped into buckets of about bucket_cap_mb (the first of at most 1 MiB, as
torch does), in reverse registration order, since backward usually produces the last layer's
gradients first. A post-accumulate-grad hook on each parameter copies its gradient into its
bucket's flat buffer once backward has added it into .grad; when a bucket is full it is all-reduced
asynchronously while backward goes on. Buckets are launched strictly in bucket order, so every rank
issues the same sequence of collectives even when its hooks fire in another order. When the last
expected parameter's hook fires (still inside backward), the works are waited on, the buffers
divided by the world size and written back into .grad: backward returns with averaged gradients.

Note [Finding unused parameters]
torch walks the autograd graph from forward's outputs (grad_fn.next_functions) to find the
parameters they do not reach. ctorch's Python cannot walk the graph: the C ABI names a tensor's
grad_fn but does not expose its edges. So with find_unused_parameters=True forward asks autograd
directly: ctorch.autograd.grad(outputs, parameters, zero gradients, allow_unused=True) gives None
exactly for the parameters the outputs do not reach. That costs one extra backward pass per
iteration (torch's walk is cheaper), and gradient hooks a user registered on parameters see those
zero gradients too. Unreachable parameters are marked ready at once (their slot holds their
current .grad, or zeros); after the reduction, a parameter no rank used keeps its .grad as it was,
one some rank used gets the average, as in torch."""

import contextlib
import weakref

from ... import _tensor
from ...autograd import grad as _autograd_grad
from ...autograd import is_grad_enabled, no_grad
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]

_FIRST_BUCKET_BYTES = 1024 * 1024  # torch's dist._DEFAULT_FIRST_BUCKET_BYTES


class _Bucket:
    __slots__ = ("index", "params", "buffer", "pending", "work")

    def __init__(self, index, params, buffer):
        self.index = index
        self.params = params  # indices into DistributedDataParallel._params
        self.buffer = buffer  # flat, one dtype; each parameter's gradient at its offset
        self.pending = len(params)  # parameters not yet ready in this iteration
        self.work = None  # the all_reduce in flight


def _tensors_in(obj):
    """Every Tensor in a forward's output (nested tuples, lists, dicts)."""
    if isinstance(obj, _tensor.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _tensors_in(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _tensors_in(o)]
    return []


class DistributedDataParallel(Module):
    """DistributedDataParallel(module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
    process_group=None, bucket_cap_mb=25, find_unused_parameters=False, check_reduction=False,
    gradient_as_bucket_view=False, static_graph=False): module replicated over the ranks of
    process_group (the default group for None).

    At construction every rank's parameters and buffers become rank 0's. Each forward broadcasts
    rank 0's buffers first (broadcast_buffers), and backward averages the gradients over the ranks
    (see Note [Gradient buckets]). no_sync() skips the averaging, to accumulate gradients locally.
    The wrapped module is .module, so state_dict() keys start with "module.", as in torch."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True, process_group=None,
                 bucket_cap_mb=25, find_unused_parameters=False, check_reduction=False, gradient_as_bucket_view=False,
                 static_graph=False, delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None):
        super().__init__()
        from ... import distributed as dist

        for name, value in (("static_graph", static_graph), ("mixed_precision", mixed_precision),
                            ("delay_all_reduce_named_params", delay_all_reduce_named_params),
                            ("param_to_hook_all_reduce", param_to_hook_all_reduce), ("device_mesh", device_mesh)):
            if value not in (None, False):
                raise NotImplementedError(f"ctorch.nn.parallel.DistributedDataParallel: {name}= is not supported")
        if device_ids is not None and len(list(device_ids)) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        if process_group is dist.GroupMember.NON_GROUP_MEMBER:
            raise ValueError("DistributedDataParallel: this rank is not a member of process_group")
        self.process_group = process_group if process_group is not None else dist.distributed_c10d._default_group(
            "ctorch.nn.parallel.DistributedDataParallel")
        self.module = module
        self.device_ids = list(device_ids) if device_ids is not None else None
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.bucket_bytes_cap = int(bucket_cap_mb * 1024 * 1024)
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter that "
                               "requires a gradient.")
        object.__setattr__(self, "_param_names", [n for n, _ in named])
        object.__setattr__(self, "_params", [p for _, p in named])
        self._verify_params_across_ranks()
        self._sync_module_states()
        self._build_buckets()
        self._reset_iteration(expect=False)
        ref = weakref.ref(self)
        handles = []
        for i, p in enumerate(self._params):
            def hook(param, i=i):
                ddp = ref()
                if ddp is not None:
                    ddp._on_grad_ready(i, param)

            handles.append(p.register_post_accumulate_grad_hook(hook))
        object.__setattr__(self, "_hook_handles", handles)

    # ---- construction ----
    def _verify_params_across_ranks(self):
        """Every rank must wrap the same parameters (count, sizes, dtypes): checked with one small all_gather."""
        import ctorch
        from ... import distributed as dist

        sizes = [p.numel() for p in self._params]
        local = ctorch.tensor([len(sizes), sum(sizes), sum((i + 1) * n for i, n in enumerate(sizes)),
                               sum((i + 1) * p.dtype.itemsize for i, p in enumerate(self._params))], dtype=ctorch.int64)
        world = self.process_group.size()
        every = [ctorch.zeros(4, dtype=ctorch.int64) for _ in range(world)]
        dist.all_gather(every, local, group=self.process_group)
        mine = local.tolist()
        for r, t in enumerate(every):
            if t.tolist() != mine:
                raise RuntimeError(f"DistributedDataParallel: rank {r} wraps other parameters than rank "
                                   f"{self.process_group.rank()} ({len(sizes)} parameters, {sum(sizes)} elements "
                                   "here). Every rank must wrap the same model")

    def _broadcast_coalesced(self, tensors):
        """Each tensor := the group's rank 0's, one broadcast per dtype."""
        import ctorch
        from ... import distributed as dist

        src = dist.get_global_rank(self.process_group, 0)
        by_dtype = {}
        for t in tensors:
            by_dtype.setdefault((t.dtype, str(t.device)), []).append(t)
        with no_grad():
            for group in by_dtype.values():
                flat = ctorch.cat([t.detach().reshape(-1) for t in group])
                dist.broadcast(flat, src, group=self.process_group)
                at = 0
                for t in group:
                    n = t.numel()
                    t.copy_(flat.narrow(0, at, n).view(t.shape))
                    at += n

    def _sync_module_states(self):
        states = list(self.module.parameters()) + list(self.module.buffers())
        if states:
            self._broadcast_coalesced(states)

    def _sync_buffers(self):
        buffers = list(self.module.buffers())
        if buffers:
            self._broadcast_coalesced(buffers)

    def _build_buckets(self):
        """See Note [Gradient buckets]: reverse registration order, one dtype and device per bucket."""
        import ctorch

        open_, done = {}, []
        for i in reversed(range(len(self._params))):
            p = self._params[i]
            key = (p.dtype, str(p.device))
            members, nbytes = open_.get(key, ([], 0))
            members.append(i)
            nbytes += p.numel() * p.dtype.itemsize
            limit = _FIRST_BUCKET_BYTES if not done else self.bucket_bytes_cap
            limit = min(limit, self.bucket_bytes_cap)
            if nbytes >= limit:
                done.append(members)
                open_.pop(key, None)
            else:
                open_[key] = (members, nbytes)
        done += [members for members, _ in open_.values()]
        buckets, slots = [], [None] * len(self._params)
        for b, members in enumerate(done):
            total = 0
            for i in members:
                slots[i] = (b, total, self._params[i].numel())
                total += self._params[i].numel()
            p0 = self._params[members[0]]
            buckets.append(_Bucket(b, members, ctorch.zeros(total, dtype=p0.dtype, device=p0.device)))
        object.__setattr__(self, "_buckets", buckets)
        object.__setattr__(self, "_slots", slots)

    # ---- one iteration ----
    def _reset_iteration(self, expect):
        for b in self._buckets:
            b.pending = len(b.params)
            b.work = None
        object.__setattr__(self, "_ready", [False] * len(self._params))
        object.__setattr__(self, "_used", [True] * len(self._params))
        object.__setattr__(self, "_n_ready", 0)
        object.__setattr__(self, "_next_bucket", 0)
        object.__setattr__(self, "_started", False)  # a hook fired in this iteration's backward
        object.__setattr__(self, "_expect", expect)

    def forward(self, *inputs, **kwargs):
        if self._expect and self._started:
            unready = [self._param_names[i] for i, r in enumerate(self._ready) if not r]
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. This error "
                "indicates that your module has parameters that were not used in producing loss. You can enable "
                "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
                "`ctorch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
                "participate in calculating loss. Parameters which did not receive grad for rank "
                f"{self.process_group.rank()}: {', '.join(unready)}")
        if self.require_forward_param_sync and self.broadcast_buffers:
            self._sync_buffers()
        output = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            self.require_forward_param_sync = True
            self._prepare_for_backward(output)
        else:
            self.require_forward_param_sync = False
            self._reset_iteration(expect=False)
        return output

    def _prepare_for_backward(self, output):
        unused = []
        if self.find_unused_parameters:
            roots = [t for t in _tensors_in(output) if t.requires_grad]
            if roots:
                import ctorch

                grads = _autograd_grad(roots, self._params, grad_outputs=[ctorch.zeros_like(t) for t in roots],
                                       retain_graph=True, allow_unused=True)
                unused = [i for i, g in enumerate(grads) if g is None]
            else:
                unused = list(range(len(self._params)))
        self._reset_iteration(expect=True)
        for i in unused:
            self._used[i] = False
            self._mark_ready(i, self._params[i].grad)
        if self._n_ready == len(self._params):  # nothing reaches a parameter: no backward will come here
            self._finalize()

    def _on_grad_ready(self, i, param):
        if not self._expect:
            return
        if self._ready[i]:
            raise RuntimeError(
                f"Expected to mark a variable ready only once. Parameter {self._param_names[i]} received its gradient "
                "twice in one iteration (reentrant backward, or a parameter the forward's outputs were marked unused "
                "for), or it was used in a second forward before this backward")
        object.__setattr__(self, "_started", True)
        self._mark_ready(i, param.grad)
        self._launch_ready_buckets()
        if self._n_ready == len(self._params):
            self._finalize()

    def _mark_ready(self, i, grad):
        b, off, n = self._slots[i]
        bucket = self._buckets[b]
        dst = bucket.buffer.narrow(0, off, n)
        if grad is None:
            dst.zero_()
        elif grad.data_ptr() != dst.data_ptr():
            dst.copy_(grad.reshape(-1))
        self._ready[i] = True
        self._n_ready += 1
        bucket.pending -= 1

    def _launch_ready_buckets(self):
        from ... import distributed as dist

        while self._next_bucket < len(self._buckets) and self._buckets[self._next_bucket].pending == 0:
            bucket = self._buckets[self._next_bucket]
            bucket.work = dist.all_reduce(bucket.buffer, group=self.process_group, async_op=True)
            self._next_bucket += 1

    def _finalize(self):
        """Still inside backward: waits for every bucket, averages, writes .grad."""
        import ctorch
        from ... import distributed as dist

        self._launch_ready_buckets()
        object.__setattr__(self, "_expect", False)
        used = None
        if self.find_unused_parameters:
            used = ctorch.tensor([1 if u else 0 for u in self._used], dtype=ctorch.int32)
            dist.all_reduce(used, op=dist.ReduceOp.MAX, group=self.process_group)
            used = used.tolist()
        world = self.process_group.size()
        for bucket in self._buckets:
            if bucket.work is not None:
                bucket.work.wait()
                bucket.work = None
            bucket.buffer.div_(world)
        with no_grad():
            for i, p in enumerate(self._params):
                if used is not None and not used[i]:
                    continue
                b, off, n = self._slots[i]
                view = self._buckets[b].buffer.narrow(0, off, n).view(p.shape)
                g = p.grad
                if self.gradient_as_bucket_view:
                    if g is None or g.data_ptr() != view.data_ptr():
                        p.grad = view
                elif g is None:
                    p.grad = view.clone()
                else:
                    g.copy_(view)

    @contextlib.contextmanager
    def no_sync(self):
        """Within it, forward and backward accumulate gradients locally without communicating; the
        first backward after it averages the accumulated gradients."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def __del__(self):
        for h in self.__dict__.get("_hook_handles", ()):
            h.remove()
