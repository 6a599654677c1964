"""torch.distributed's process groups and collectives over the C ABI's ct_dist_* (ctorch.h,
"Distributed: process groups and collectives"): the default group, sub-groups, and every
collective with group= and async_op=, with torch's names, arguments and rank conventions.

Ranks given to a collective (src=, dst=) are global ranks, as in torch; each group translates them
to its own numbering. A rank that is not a member of a group gets GroupMember.NON_GROUP_MEMBER from
new_group, and collectives on it do nothing (torch warns and returns None the same way)."""

import io
import pickle
import warnings
from datetime import timedelta
from enum import IntEnum

from .. import _C
from .._errors import refuse_copies
from .._tensor import Tensor

__all__ = ["Backend", "ReduceOp", "ProcessGroup", "Work", "GroupMember", "group", "default_pg_timeout",
           "is_available", "is_initialized", "is_gloo_available", "is_mpi_available", "is_nccl_available",
           "is_torchelastic_launched", "init_process_group", "destroy_process_group", "new_group", "get_rank",
           "get_world_size", "get_backend", "get_global_rank", "get_group_rank", "get_process_group_ranks",
           "all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor", "reduce_scatter",
           "reduce_scatter_tensor", "gather", "scatter", "all_to_all", "all_to_all_single", "send", "recv", "isend",
           "irecv", "barrier", "all_gather_object", "broadcast_object_list", "gather_object"]

# torch's default for gloo (and every backend but nccl): 30 minutes.
default_pg_timeout = timedelta(minutes=30)


def is_available():
    """True: the process-group API is there. Whether an engine is: is_gloo_available() ..."""
    return True


def _backend_available(name):
    return bool(_C.ct_dist_is_backend_available(name))


def is_gloo_available():
    return _backend_available("gloo")


def is_mpi_available():
    return _backend_available("mpi")


def is_nccl_available():
    return _backend_available("nccl")


def is_torchelastic_launched():
    """Whether this process was started by a launcher that set torchrun's variables
    (ctorch.distributed.run sets TORCHELASTIC_RUN_ID, as torchrun does)."""
    import os

    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


class Backend(str):
    """A backend's name, lower case (torch.distributed.Backend): Backend("GLOO") == "gloo"."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    MPI = "mpi"
    NCCL = "nccl"
    backend_list = [UNDEFINED, GLOO, NCCL, MPI]

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend name must be a string, but got: {name!r}")
        value = name.lower()
        if value not in (cls.GLOO, cls.MPI, cls.NCCL, cls.UNDEFINED):
            raise ValueError(f"Invalid backend: '{name}'. ctorch.distributed knows gloo, mpi and nccl")
        return str.__new__(cls, value)


class ReduceOp(IntEnum):
    """How a reduction combines the ranks' values (the C ABI's ct_reduce_op). AVG divides the sum
    by the group's size (floating dtypes only)."""

    SUM = _C.CT_REDUCE_SUM
    PRODUCT = _C.CT_REDUCE_PRODUCT
    MIN = _C.CT_REDUCE_MIN
    MAX = _C.CT_REDUCE_MAX
    AVG = _C.CT_REDUCE_AVG


class ProcessGroup:
    """One ct_process_group: rank() and size() in it, its backend, and its members' global ranks."""

    __slots__ = ("_h", "_ranks", "_backend", "_rank", "_size", "__weakref__")

    def __init__(self, handle, ranks):
        self._h = handle
        self._ranks = ranks  # global ranks in this group's order; None for the default group
        self._backend = Backend(_C.ct_dist_get_backend(handle))
        self._rank = _C.ct_dist_get_rank(handle)
        self._size = _C.ct_dist_get_world_size(handle)

    __copy__, __deepcopy__, __reduce_ex__ = refuse_copies(
        "ctorch.distributed.ProcessGroup", "it owns a connection to the other ranks; pass the group itself")

    def rank(self):
        return self._rank

    def size(self):
        return self._size

    def name(self):
        return str(self._backend)

    def _handle(self, what):
        if self._h is None:
            raise ValueError(f"ctorch.distributed.{what}: the process group was destroyed")
        return self._h

    def _destroy(self):
        h, self._h = self._h, None
        if h is not None:
            _C.ct_process_group_destroy(h)

    def __repr__(self):
        return f"<ctorch.distributed.ProcessGroup {self._backend} rank {self._rank} of {self._size}>"


class Work:
    """An asynchronous operation (what a collective returns with async_op=True): wait() for it,
    is_completed() to poll it, result() for the tensors it writes."""

    __slots__ = ("_h", "_tensors", "_outputs", "_then", "_done", "__weakref__")

    def __init__(self, handle, tensors, outputs, then=None):
        self._h = handle
        self._tensors = tensors  # every tensor the operation reads or writes, kept until it is waited on
        self._outputs = outputs
        self._then = then  # runs once after a successful wait (a recv's source rank, an object's bytes)
        self._done = False

    __copy__, __deepcopy__, __reduce_ex__ = refuse_copies(
        "ctorch.distributed.Work", "it stands for one operation in flight; wait on the Work itself")

    def wait(self, timeout=None):
        """Blocks until the operation has finished, at most timeout (a timedelta or seconds; None:
        the group's timeout), and returns True. Raises the operation's error (DistBackendError,
        DistTimeoutError ...), on every later wait too."""
        if self._h is None:
            raise ValueError("ctorch.distributed.Work.wait: this work was released")
        _C.ct_work_wait(self._h, _seconds(timeout, 0.0))
        if not self._done:
            self._done = True
            if self._then is not None:
                self._then()
        return True

    def synchronize(self):
        self.wait()

    def is_completed(self):
        """Whether the operation has finished, successfully or not; never blocks."""
        return self._h is None or bool(_C.ct_work_is_completed(self._h))

    def is_success(self):
        """Whether the operation finished without error (False while it runs)."""
        return self.is_completed() and self.exception() is None

    def exception(self):
        """The error the operation finished with, or None (also while it runs)."""
        if not self.is_completed():
            return None
        try:
            self.wait()
        except Exception as e:  # noqa: BLE001 - the operation's own error is the answer
            return e
        return None

    def result(self):
        """The tensors the operation writes (its outputs)."""
        return list(self._outputs)

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h is not None and _C is not None:
            _C.ct_work_release(h)


class _NonGroupMember:
    """What new_group returns on a rank that is not one of its members."""

    def __repr__(self):
        return "GroupMember.NON_GROUP_MEMBER"


class _World:
    """The state torch keeps in its _world: the default group and every group made since."""

    default_pg = None
    groups = []  # every ProcessGroup made by new_group on this rank, members' and not
    non_members = []  # the C groups of new_group calls this rank is not in, destroyed with the default group


class _GroupMemberMeta(type):
    @property
    def WORLD(cls):
        return _World.default_pg


class GroupMember(metaclass=_GroupMemberMeta):
    """GroupMember.WORLD is the default group (None before init_process_group);
    GroupMember.NON_GROUP_MEMBER is what new_group gives a rank outside the group."""

    NON_GROUP_MEMBER = _NonGroupMember()


class group(metaclass=_GroupMemberMeta):
    """torch.distributed.group.WORLD: the default group."""


def _seconds(timeout, default):
    if timeout is None:
        return default
    if isinstance(timeout, timedelta):
        return timeout.total_seconds()
    return float(timeout)


def is_initialized():
    """Whether init_process_group has made the default group (and it was not destroyed)."""
    return _World.default_pg is not None


def _default_group(what):
    if _World.default_pg is None:
        where = what if what.startswith("ctorch.") else "ctorch.distributed." + what
        raise RuntimeError(f"{where}: Default process group has not been initialized, please make sure to call "
                           "init_process_group.")
    return _World.default_pg


def init_process_group(backend=None, init_method=None, timeout=default_pg_timeout, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None):
    """Joins this process to the job's default group (torch.distributed.init_process_group).

    backend "gloo" (the default), "mpi" or "nccl"; init_method "env://" (the default: MASTER_ADDR,
    MASTER_PORT, and RANK and WORLD_SIZE unless given), "tcp://HOST:PORT" or "file:///PATH". A store
    object is not supported: ctorch's rendezvous is given by init_method."""
    if _World.default_pg is not None:
        raise RuntimeError("trying to initialize the default process group twice!")
    if store is not None:
        raise NotImplementedError("ctorch.distributed.init_process_group: store= is not supported (ctorch has no Store "
                                  "objects); give the rendezvous as init_method ('env://', 'tcp://HOST:PORT' or "
                                  "'file:///PATH')")
    if pg_options is not None:
        raise NotImplementedError("ctorch.distributed.init_process_group: pg_options= is not supported")
    name = _backend_name(backend)
    h = _C.ct_dist_init_process_group(name, init_method, int(rank), int(world_size), _seconds(timeout, 0.0))
    try:
        _World.default_pg = ProcessGroup(h, None)
    except BaseException:
        _C.ct_process_group_destroy(h)
        raise


def _backend_name(backend):
    if backend is None:
        return Backend.GLOO
    name = str(backend).lower()
    if ":" in name:  # torch's "cpu:gloo,cuda:nccl": ctorch's processes compute on one device type
        pairs = dict(p.split(":", 1) for p in name.split(","))
        name = pairs.get("cpu") or next(iter(pairs.values()))
    return name


def destroy_process_group(group=None):
    """Destroys group, or with None every group and the default one (torch's behavior); the
    operations a group still has queued finish first."""
    if group is None or group is _World.default_pg:
        for pg in list(_World.groups):
            pg._destroy()
        for h in _World.non_members:
            _C.ct_process_group_destroy(h)
        _World.groups, _World.non_members = [], []
        pg, _World.default_pg = _World.default_pg, None
        if pg is not None:
            pg._destroy()
        elif group is None:
            raise RuntimeError("ctorch.distributed.destroy_process_group: Default process group has not been "
                               "initialized, please make sure to call init_process_group.")
        return
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    group._destroy()
    if group in _World.groups:
        _World.groups.remove(group)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None):
    """A group of the given global ranks (all of them when None), made from the default group; every
    rank calls it with the same ranks, members or not. Members get the group, numbered in ascending
    global rank as torch does; others get GroupMember.NON_GROUP_MEMBER."""
    world = _default_group("new_group")
    if backend is not None and _backend_name(backend) != world._backend:
        raise NotImplementedError(f"ctorch.distributed.new_group: a {backend} group inside a {world._backend} job is not "
                                  "supported; new groups use the default group's backend")
    if pg_options is not None:
        raise NotImplementedError("ctorch.distributed.new_group: pg_options= is not supported")
    members = sorted(int(r) for r in (range(world.size()) if ranks is None else ranks))
    if len(set(members)) != len(members):
        raise ValueError(f"ctorch.distributed.new_group: ranks {list(ranks)} repeat a rank")
    for r in members:
        if not 0 <= r < world.size():
            raise ValueError(f"ctorch.distributed.new_group: rank {r} is not in the default group (size {world.size()})")
    h = _C.ct_dist_new_group(world._handle("new_group"), members, _seconds(timeout, 0.0))
    if world.rank() not in members:
        _World.non_members.append(h)
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(h, members)
    _World.groups.append(pg)
    return pg


def _group(group, what):
    """The ProcessGroup a collective runs on: the default one for None."""
    if group is None:
        return _default_group(what)
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"ctorch.distributed.{what}: group must be a ProcessGroup from new_group (or None for the "
                        f"default group), got {type(group).__name__}")
    group._handle(what)  # refuses a destroyed group, naming what was called
    return group


def _not_member(group, what):
    if group is GroupMember.NON_GROUP_MEMBER:
        warnings.warn(f"Running {what} on global rank {get_rank()} which does not belong to the given group.")
        return True
    return False


def get_rank(group=None):
    """This process's rank in group (the default group for None); -1 when not a member."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group, "get_rank").rank()


def get_world_size(group=None):
    """The number of ranks of group (the default group for None); -1 when not a member."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group, "get_world_size").size()


def get_backend(group=None):
    """The backend of group (the default group for None), as a Backend string."""
    if group is GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return _group(group, "get_backend")._backend


def get_process_group_ranks(group):
    """The global ranks of group's members, in its rank order."""
    pg = _group(group, "get_process_group_ranks")
    return list(range(pg.size())) if pg._ranks is None else list(pg._ranks)


def get_group_rank(group, global_rank):
    """global_rank's rank in group; ValueError when it is not a member."""
    pg = _group(group, "get_group_rank")
    if pg._ranks is None:
        if not 0 <= global_rank < pg.size():
            raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
        return global_rank
    try:
        return pg._ranks.index(global_rank)
    except ValueError:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}") from None


def get_global_rank(group, group_rank):
    """The global rank of group's rank group_rank."""
    pg = _group(group, "get_global_rank")
    if not 0 <= group_rank < pg.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {pg}")
    return group_rank if pg._ranks is None else pg._ranks[group_rank]


def _h(t, what, name):
    if not isinstance(t, Tensor):
        raise TypeError(f"ctorch.distributed.{what}: {name} must be a Tensor, got {type(t).__name__}")
    return t._h


def _hs(ts, what, name):
    if ts is None:
        return []
    return [_h(t, what, f"{name}[{i}]") for i, t in enumerate(ts)]


def _op(op, what):
    try:
        return int(ReduceOp(op))
    except ValueError:
        raise ValueError(f"ctorch.distributed.{what}: unknown reduce op {op!r}; use ReduceOp.SUM, PRODUCT, MIN, MAX "
                         "or AVG") from None


def _issue(pg, async_op, tensors, outputs, call, then=None):
    """Runs call(handle, async_op); with async_op a Work over what it returned, else None."""
    w = call(pg._h, bool(async_op))
    if not async_op:
        if then is not None:
            then()
        return None
    return Work(w, tensors, outputs, then)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """tensor := op over every rank's tensor, in place."""
    if _not_member(group, "all_reduce"):
        return None
    pg = _group(group, "all_reduce")
    h, o = _h(tensor, "all_reduce", "tensor"), _op(op, "all_reduce")
    return _issue(pg, async_op, [tensor], [tensor], lambda g, a: _C.ct_dist_all_reduce(g, h, o, a))


def broadcast(tensor, src, group=None, async_op=False):
    """tensor := global rank src's tensor, on every rank of group."""
    if _not_member(group, "broadcast"):
        return None
    pg = _group(group, "broadcast")
    h, s = _h(tensor, "broadcast", "tensor"), get_group_rank(pg, src)
    return _issue(pg, async_op, [tensor], [tensor], lambda g, a: _C.ct_dist_broadcast(g, h, s, a))


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    """On global rank dst, tensor := op over every rank's tensor; elsewhere tensor is unchanged."""
    if _not_member(group, "reduce"):
        return None
    pg = _group(group, "reduce")
    h, d, o = _h(tensor, "reduce", "tensor"), get_group_rank(pg, dst), _op(op, "reduce")
    return _issue(pg, async_op, [tensor], [tensor], lambda g, a: _C.ct_dist_reduce(g, h, d, o, a))


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[r] := rank r's tensor, on every rank."""
    if _not_member(group, "all_gather"):
        return None
    pg = _group(group, "all_gather")
    outs, h = _hs(tensor_list, "all_gather", "tensor_list"), _h(tensor, "all_gather", "tensor")
    return _issue(pg, async_op, list(tensor_list) + [tensor], list(tensor_list),
                  lambda g, a: _C.ct_dist_all_gather(g, outs, h, a))


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """output_tensor := every rank's input_tensor concatenated in rank order (along dim 0, or
    stacked: output of [size, *input.shape])."""
    if _not_member(group, "all_gather_into_tensor"):
        return None
    pg = _group(group, "all_gather_into_tensor")
    o = _h(output_tensor, "all_gather_into_tensor", "output_tensor")
    i = _h(input_tensor, "all_gather_into_tensor", "input_tensor")
    return _issue(pg, async_op, [output_tensor, input_tensor], [output_tensor],
                  lambda g, a: _C.ct_dist_all_gather_into_tensor(g, o, i, a))


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """output := op over every rank's input_list[this rank]."""
    if _not_member(group, "reduce_scatter"):
        return None
    pg = _group(group, "reduce_scatter")
    o, ins = _h(output, "reduce_scatter", "output"), _hs(input_list, "reduce_scatter", "input_list")
    r = _op(op, "reduce_scatter")
    return _issue(pg, async_op, [output] + list(input_list), [output],
                  lambda g, a: _C.ct_dist_reduce_scatter(g, o, ins, r, a))


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """output := op over every rank's block `this rank` of input (size blocks of output's elements)."""
    if _not_member(group, "reduce_scatter_tensor"):
        return None
    pg = _group(group, "reduce_scatter_tensor")
    o, i = _h(output, "reduce_scatter_tensor", "output"), _h(input, "reduce_scatter_tensor", "input")
    r = _op(op, "reduce_scatter_tensor")
    return _issue(pg, async_op, [output, input], [output],
                  lambda g, a: _C.ct_dist_reduce_scatter_tensor(g, o, i, r, a))


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """On global rank dst, gather_list[r] := rank r's tensor; the other ranks pass no gather_list."""
    if _not_member(group, "gather"):
        return None
    pg = _group(group, "gather")
    d = get_group_rank(pg, dst)
    if pg.rank() == d and gather_list is None:
        raise ValueError("ctorch.distributed.gather: the destination rank needs a gather_list, one tensor per rank")
    if pg.rank() != d and gather_list:
        raise ValueError("ctorch.distributed.gather: Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    h, outs = _h(tensor, "gather", "tensor"), _hs(gather_list, "gather", "gather_list")
    kept = list(gather_list or [])
    return _issue(pg, async_op, [tensor] + kept, kept, lambda g, a: _C.ct_dist_gather(g, h, outs, d, a))


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """tensor := global rank src's scatter_list[this rank]; the other ranks pass no scatter_list."""
    if _not_member(group, "scatter"):
        return None
    pg = _group(group, "scatter")
    s = get_group_rank(pg, src)
    if pg.rank() == s and scatter_list is None:
        raise ValueError("ctorch.distributed.scatter: the source rank needs a scatter_list, one tensor per rank")
    if pg.rank() != s and scatter_list:
        raise ValueError("ctorch.distributed.scatter: Argument ``scatter_list`` must NOT be specified on non-source "
                         "ranks.")
    h, ins = _h(tensor, "scatter", "tensor"), _hs(scatter_list, "scatter", "scatter_list")
    return _issue(pg, async_op, [tensor] + list(scatter_list or []), [tensor],
                  lambda g, a: _C.ct_dist_scatter(g, h, ins, s, a))


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """output_tensor_list[r] := rank r's input_tensor_list[this rank]."""
    if _not_member(group, "all_to_all"):
        return None
    pg = _group(group, "all_to_all")
    outs = _hs(output_tensor_list, "all_to_all", "output_tensor_list")
    ins = _hs(input_tensor_list, "all_to_all", "input_tensor_list")
    return _issue(pg, async_op, list(output_tensor_list) + list(input_tensor_list), list(output_tensor_list),
                  lambda g, a: _C.ct_dist_all_to_all(g, (outs, ins), a))


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    """output's block r := rank r's input block `this rank`, the blocks being equal splits of dim 0.
    Uneven split sizes are not supported (NotImplementedError)."""
    if _not_member(group, "all_to_all_single"):
        return None
    pg = _group(group, "all_to_all_single")
    for name, splits, t in (("output_split_sizes", output_split_sizes, output),
                            ("input_split_sizes", input_split_sizes, input)):
        if splits is not None and len(splits) and any(s * pg.size() != t.shape[0] for s in splits):
            raise NotImplementedError(f"ctorch.distributed.all_to_all_single: {name}={list(splits)} is not an equal "
                                      "split of dim 0; only equal splits are supported")
    o, i = _h(output, "all_to_all_single", "output"), _h(input, "all_to_all_single", "input")
    return _issue(pg, async_op, [output, input], [output], lambda g, a: _C.ct_dist_all_to_all_single(g, o, i, a))


def isend(tensor, dst, group=None, tag=0):
    """Sends tensor to global rank dst; returns a Work (None on a non-member)."""
    if _not_member(group, "isend"):
        return None
    pg = _group(group, "isend")
    h, d = _h(tensor, "isend", "tensor"), get_group_rank(pg, dst)
    return _issue(pg, True, [tensor], [tensor], lambda g, a: _C.ct_dist_send(g, h, d, int(tag), a))


def irecv(tensor, src=None, group=None, tag=0):
    """Receives into tensor from global rank src; returns a Work (None on a non-member)."""
    if _not_member(group, "irecv"):
        return None
    pg = _group(group, "irecv")
    h, s = _h(tensor, "irecv", "tensor"), _recv_src(pg, src, "irecv")
    return _issue(pg, True, [tensor], [tensor], lambda g, a: _C.ct_dist_recv(g, h, s, int(tag), a))


def send(tensor, dst, group=None, tag=0):
    """Sends tensor to global rank dst and waits until it is sent."""
    if _not_member(group, "send"):
        return None
    pg = _group(group, "send")
    h, d = _h(tensor, "send", "tensor"), get_group_rank(pg, dst)
    _issue(pg, False, [tensor], [tensor], lambda g, a: _C.ct_dist_send(g, h, d, int(tag), a))


def recv(tensor, src=None, group=None, tag=0):
    """Receives into tensor from global rank src; returns src (-1 on a non-member)."""
    if _not_member(group, "recv"):
        return -1
    pg = _group(group, "recv")
    h, s = _h(tensor, "recv", "tensor"), _recv_src(pg, src, "recv")
    _issue(pg, False, [tensor], [tensor], lambda g, a: _C.ct_dist_recv(g, h, s, int(tag), a))
    return src


def _recv_src(pg, src, what):
    if src is None:
        raise NotImplementedError(f"ctorch.distributed.{what}: src=None (receive from any rank) is not supported; "
                                  "pass the sender's rank")
    return get_group_rank(pg, src)


def barrier(group=None, async_op=False, device_ids=None):
    """Returns once every rank of group has called it."""
    if _not_member(group, "barrier"):
        return None
    pg = _group(group, "barrier")
    return _issue(pg, async_op, [], [], lambda g, a: _C.ct_dist_barrier(g, a))


# ---- Objects: pickled into uint8 tensors ----

def _to_bytes_tensor(obj):
    import ctorch

    buf = io.BytesIO()
    pickle.Pickler(buf).dump(obj)
    data = buf.getvalue()
    t = ctorch.frombuffer(bytearray(data), dtype=ctorch.uint8).clone()
    return t, ctorch.tensor([len(data)], dtype=ctorch.int64)


def _from_bytes_tensor(t, n):
    return pickle.loads(bytes(t.narrow(0, 0, n).numpy().tobytes()))


def _gather_sizes(pg, local_size):
    import ctorch

    sizes = [ctorch.zeros(1, dtype=ctorch.int64) for _ in range(pg.size())]
    all_gather(sizes, local_size, group=pg)
    return [int(s.item()) for s in sizes]


def all_gather_object(object_list, obj, group=None):
    """object_list[r] := rank r's obj (pickled; object_list has one slot per rank)."""
    import ctorch

    if _not_member(group, "all_gather_object"):
        return
    pg = _group(group, "all_gather_object")
    t, n = _to_bytes_tensor(obj)
    sizes = _gather_sizes(pg, n)
    width = max(sizes)
    padded = ctorch.zeros(width, dtype=ctorch.uint8)
    padded.narrow(0, 0, t.shape[0]).copy_(t)
    outs = [ctorch.zeros(width, dtype=ctorch.uint8) for _ in range(pg.size())]
    all_gather(outs, padded, group=pg)
    for r in range(pg.size()):
        object_list[r] = _from_bytes_tensor(outs[r], sizes[r])


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    """On global rank dst, object_gather_list[r] := rank r's obj (pickled); other ranks pass None."""
    import ctorch

    if _not_member(group, "gather_object"):
        return
    pg = _group(group, "gather_object")
    t, n = _to_bytes_tensor(obj)
    sizes = _gather_sizes(pg, n)
    width = max(sizes)
    padded = ctorch.zeros(width, dtype=ctorch.uint8)
    padded.narrow(0, 0, t.shape[0]).copy_(t)
    mine = pg.rank() == get_group_rank(pg, dst)
    outs = [ctorch.zeros(width, dtype=ctorch.uint8) for _ in range(pg.size())] if mine else None
    gather(padded, outs, dst=dst, group=pg)
    if mine:
        for r in range(pg.size()):
            object_gather_list[r] = _from_bytes_tensor(outs[r], sizes[r])


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """object_list := global rank src's object_list (pickled), in place, on every rank of group."""
    import ctorch

    if _not_member(group, "broadcast_object_list"):
        return
    pg = _group(group, "broadcast_object_list")
    mine = pg.rank() == get_group_rank(pg, src)
    n = len(object_list)
    if n == 0:
        return
    if mine:
        pieces = [_to_bytes_tensor(o) for o in object_list]
        sizes = ctorch.cat([s for _, s in pieces]) if pieces else ctorch.zeros(0, dtype=ctorch.int64)
    else:
        sizes = ctorch.zeros(n, dtype=ctorch.int64)
    broadcast(sizes, src, group=pg)
    counts = [int(v) for v in sizes.tolist()]
    total = sum(counts)
    data = ctorch.cat([t for t, _ in pieces]) if mine and total else ctorch.zeros(total, dtype=ctorch.uint8)
    if total:
        broadcast(data, src, group=pg)
    if not mine:
        at = 0
        for i, c in enumerate(counts):
            object_list[i] = _from_bytes_tensor(data.narrow(0, at, c), c)
            at += c
