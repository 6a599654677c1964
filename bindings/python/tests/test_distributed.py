"""ctorch.distributed, DistributedDataParallel and the launcher, across real processes: 2 and 3
ranks over gloo on 127.0.0.1 with env:// (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE), each job
bounded in time so that nothing here can hang the test run.

Every rank runs a script written into tmp_path; it prints one line `RESULT <json>`, which the
test reads back. Expected numbers are worked out in the comments; torch.distributed's own gloo
backend (torch 1.13 from Debian, when installed) is the oracle for the same collectives."""

import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import time

import pytest

ctorch = pytest.importorskip("ctorch")
dist = pytest.importorskip("ctorch.distributed")

if not dist.is_gloo_available():
    pytest.skip("the gloo engine is not built (install libgloo-dev and rebuild)", allow_module_level=True)

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "..", "..", "examples", "data", "digits.safetensors"))
JOB_TIMEOUT = 60  # seconds a whole job may take before it is killed and the test fails


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


PRELUDE = """\
import json, os, sys, time
from datetime import timedelta
import ctorch
import ctorch.distributed as dist

def result(obj):
    print("RESULT " + json.dumps(obj), flush=True)
"""


def run_job(tmp_path, world_size, body, name="job", timeout=JOB_TIMEOUT, env=None):
    """Starts world_size ranks of PRELUDE + body and waits for all of them (killing them all past
    timeout). Returns [(returncode, result or None, stderr)] by rank."""
    script = tmp_path / f"{name}.py"
    script.write_text(PRELUDE + textwrap.dedent(body))
    port = free_port()
    procs = []
    for rank in range(world_size):
        e = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(world_size), MASTER_ADDR="127.0.0.1",
                 MASTER_PORT=str(port), OMP_NUM_THREADS="1", **(env or {}))
        procs.append(subprocess.Popen([sys.executable, str(script)], env=e, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    deadline = time.monotonic() + timeout
    out = []
    try:
        for p in procs:
            stdout, stderr = p.communicate(timeout=max(0.1, deadline - time.monotonic()))
            lines = [l for l in stdout.splitlines() if l.startswith("RESULT ")]
            out.append((p.returncode, json.loads(lines[-1][7:]) if lines else None, stderr))
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
        pytest.fail(f"{name}: the ranks did not finish within {timeout} s")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return out


def results(out):
    for rank, (rc, res, err) in enumerate(out):
        assert rc == 0 and res is not None, f"rank {rank} exited with {rc}:\n{err}"
    return [res for _, res, _ in out]


# ---- Collectives ----

COLLECTIVES = """
dist.init_process_group("gloo", timeout=timedelta(seconds=30))
r, n = dist.get_rank(), dist.get_world_size()
f = lambda *v: ctorch.tensor([float(x) for x in v])
out = {"rank": r, "size": n, "backend": dist.get_backend(), "initialized": dist.is_initialized()}

for op in ("SUM", "PRODUCT", "MIN", "MAX", "AVG"):
    t = f(r + 1, 2 * (r + 1))
    dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
    out["all_reduce_" + op] = t.tolist()
t = ctorch.tensor([r + 1, 10 * (r + 1)], dtype=ctorch.int64)
dist.all_reduce(t)
out["all_reduce_int64"] = t.tolist()

t = f(r, r)
dist.broadcast(t, src=n - 1)
out["broadcast"] = t.tolist()

t = f(r + 1)
dist.reduce(t, dst=0)
out["reduce"] = t.tolist()

outs = [f(-1, -1) for _ in range(n)]
dist.all_gather(outs, f(r, 10 * r))
out["all_gather"] = [o.tolist() for o in outs]

o = ctorch.zeros(2 * n)
dist.all_gather_into_tensor(o, f(r, 10 * r))
out["all_gather_into_tensor"] = o.tolist()

o = f(0)
dist.reduce_scatter(o, [f(10 * r + j) for j in range(n)])
out["reduce_scatter"] = o.tolist()

o = f(0, 0)
dist.reduce_scatter_tensor(o, ctorch.tensor([float(10 * r + j) for j in range(2 * n)]))
out["reduce_scatter_tensor"] = o.tolist()

dst = 1
gl = [f(0, 0) for _ in range(n)] if r == dst else None
dist.gather(f(r, -r), gl, dst=dst)
out["gather"] = [g.tolist() for g in gl] if gl else None

o = f(0)
dist.scatter(o, [f(100 + j) for j in range(n)] if r == 0 else None, src=0)
out["scatter"] = o.tolist()

outs = [f(0) for _ in range(n)]
dist.all_to_all(outs, [f(100 * r + j) for j in range(n)])
out["all_to_all"] = [o.tolist() for o in outs]

o = ctorch.zeros(n)
dist.all_to_all_single(o, ctorch.tensor([float(100 * r + j) for j in range(n)]))
out["all_to_all_single"] = o.tolist()

# a ring of isend/irecv, then a blocking pair between ranks 0 and 1 (recv returns the source)
got = f(0, 0)
works = [dist.isend(f(r, r), dst=(r + 1) % n, tag=7), dist.irecv(got, src=(r - 1) % n, tag=7)]
for w in works:
    w.wait()
out["ring"] = got.tolist()
if r == 0:
    dist.send(f(42), dst=1)
elif r == 1:
    got = f(0)
    out["recv_source"] = dist.recv(got, src=0)
    out["recv"] = got.tolist()
dist.barrier()

t = f(r + 1)
w = dist.all_reduce(t, async_op=True)
out["async_type"] = type(w).__name__
out["async_wait"] = w.wait(timeout=timedelta(seconds=20))
out["async_completed"] = w.is_completed()
out["async_success"] = w.is_success()
out["async_result"] = [x.tolist() for x in w.result()]
out["async_value"] = t.tolist()
out["sync_returns"] = dist.all_reduce(f(1)) is None
b = dist.barrier(async_op=True)
b.wait()

# new_group: the first and the last rank
g = dist.new_group([n - 1, 0])
out["group_is_member"] = g is not dist.GroupMember.NON_GROUP_MEMBER
out["group_rank"] = dist.get_rank(g)
out["group_size"] = dist.get_world_size(g)
t = f(r + 1)
res = dist.all_reduce(t, group=g)
out["group_all_reduce"] = t.tolist()
t = f(r)
dist.broadcast(t, src=n - 1, group=g)
out["group_broadcast"] = t.tolist()
if out["group_is_member"]:
    out["group_ranks"] = dist.get_process_group_ranks(g)
    out["group_global_rank_1"] = dist.get_global_rank(g, 1)
    dist.destroy_process_group(g)
    try:
        dist.all_reduce(f(1), group=g)
        out["destroyed_group"] = None
    except ValueError as e:
        out["destroyed_group"] = str(e)
dist.barrier()

objs = [None] * n
dist.all_gather_object(objs, {"rank": r, "name": "r" * (r + 1)})
out["all_gather_object"] = objs
lst = [{"from": r}, [r] * 3] if r == 0 else [None, None]
dist.broadcast_object_list(lst, src=0)
out["broadcast_object_list"] = lst
out["world_is_default"] = dist.GroupMember.WORLD is not None
dist.destroy_process_group()
out["after_destroy"] = dist.is_initialized()
result(out)
"""


@pytest.fixture(scope="module", params=[2, 3])
def collectives(request, tmp_path_factory):
    n = request.param
    return n, results(run_job(tmp_path_factory.mktemp(f"coll{n}"), n, COLLECTIVES, name="collectives"))


def test_every_collective_gives_the_expected_numbers(collectives):
    n, res = collectives
    ranks = range(n)
    s1 = sum(r + 1 for r in ranks)
    prod = 1
    for r in ranks:
        prod *= r + 1
    for r, out in enumerate(res):
        assert (out["rank"], out["size"], out["backend"], out["initialized"]) == (r, n, "gloo", True)
        assert out["all_reduce_SUM"] == [s1, 2 * s1]
        assert out["all_reduce_PRODUCT"] == [prod, prod * 2 ** n]
        assert out["all_reduce_MIN"] == [1, 2]
        assert out["all_reduce_MAX"] == [n, 2 * n]
        assert out["all_reduce_AVG"] == pytest.approx([s1 / n, 2 * s1 / n])
        assert out["all_reduce_int64"] == [s1, 10 * s1]
        assert out["broadcast"] == [n - 1, n - 1]
        assert out["reduce"] == ([s1] if r == 0 else [r + 1])  # other ranks keep theirs
        assert out["all_gather"] == [[q, 10 * q] for q in ranks]
        assert out["all_gather_into_tensor"] == [v for q in ranks for v in (q, 10 * q)]
        # reduce_scatter: sum over ranks q of input[r] = 10 q + r
        assert out["reduce_scatter"] == [sum(10 * q + r for q in ranks)]
        # reduce_scatter_tensor: block r of [10 q + j for j < 2n] is j = 2r, 2r + 1
        assert out["reduce_scatter_tensor"] == [sum(10 * q + 2 * r for q in ranks), sum(10 * q + 2 * r + 1 for q in ranks)]
        assert out["gather"] == ([[q, -q] for q in ranks] if r == 1 else None)
        assert out["scatter"] == [100 + r]
        assert out["all_to_all"] == [[100 * q + r] for q in ranks]
        assert out["all_to_all_single"] == [100 * q + r for q in ranks]
        assert out["ring"] == [(r - 1) % n] * 2
        if r == 1:
            assert (out["recv_source"], out["recv"]) == (0, [42])


def test_async_op_returns_a_work_to_wait_on(collectives):
    n, res = collectives
    s1 = sum(r + 1 for r in range(n))
    for out in res:
        assert out["async_type"] == "Work"
        assert out["async_wait"] is True and out["async_completed"] and out["async_success"]
        assert out["async_result"] == [[s1]] and out["async_value"] == [s1]
        assert out["sync_returns"]


def test_new_group_numbers_its_members_and_leaves_others_out(collectives):
    n, res = collectives
    members = [0, n - 1]
    for r, out in enumerate(res):
        if r in members:
            assert out["group_is_member"]
            assert (out["group_rank"], out["group_size"]) == (members.index(r), 2)
            assert out["group_all_reduce"] == [1 + n]  # ranks 0 and n - 1: 1 + n
            assert out["group_broadcast"] == [n - 1]  # src is a global rank
            assert out["group_ranks"] == members and out["group_global_rank_1"] == n - 1
            assert "all_reduce: the process group was destroyed" in out["destroyed_group"]
        else:  # torch's GroupMember.NON_GROUP_MEMBER: rank -1, collectives do nothing
            assert not out["group_is_member"]
            assert (out["group_rank"], out["group_size"]) == (-1, -1)
            assert out["group_all_reduce"] == [r + 1] and out["group_broadcast"] == [r]


def test_object_collectives_and_destroy(collectives):
    n, res = collectives
    for out in res:
        assert out["all_gather_object"] == [{"rank": q, "name": "r" * (q + 1)} for q in range(n)]
        assert out["broadcast_object_list"] == [{"from": 0}, [0, 0, 0]]
        assert out["world_is_default"] and out["after_destroy"] is False


TORCH_ORACLE = """
import torch
import torch.distributed as tdist
tdist.init_process_group("gloo", timeout=timedelta(seconds=30))
dist.init_process_group("gloo", init_method="tcp://127.0.0.1:" + os.environ["CT_PORT"],
                        timeout=timedelta(seconds=30))
r, n = dist.get_rank(), dist.get_world_size()
vals = [1.5 * (r + 1), -2.25 * r, 3.0 ** r, 0.1 * (r + 2)]
out = {}
for op in ("SUM", "PRODUCT", "MIN", "MAX"):
    a, b = ctorch.tensor(vals), torch.tensor(vals)
    dist.all_reduce(a, op=getattr(dist.ReduceOp, op))
    tdist.all_reduce(b, op=getattr(tdist.ReduceOp, op))
    out[op] = [a.tolist(), b.tolist()]
a = [ctorch.zeros(4) for _ in range(n)]
b = [torch.zeros(4) for _ in range(n)]
dist.all_gather(a, ctorch.tensor(vals))
tdist.all_gather(b, torch.tensor(vals))
out["all_gather"] = [[x.tolist() for x in a], [x.tolist() for x in b]]
a, b = ctorch.tensor(vals), torch.tensor(vals)
dist.broadcast(a, src=1)
tdist.broadcast(b, src=1)
out["broadcast"] = [a.tolist(), b.tolist()]
a = [ctorch.zeros(4) for _ in range(n)]
b = [torch.zeros(4) for _ in range(n)]
dist.all_to_all(a, [ctorch.tensor(vals) * (j + 1) for j in range(n)])
ins = [torch.tensor(vals) * (j + 1) for j in range(n)]
# torch 1.13's gloo has no all_to_all: the same exchange as scatters from every rank
for src in range(n):
    tdist.scatter(b[src], ins if r == src else None, src=src)
out["all_to_all"] = [[x.tolist() for x in a], [x.tolist() for x in b]]
dist.destroy_process_group()
tdist.destroy_process_group()
result(out)
"""


def test_collectives_match_torch_distributed_gloo(tmp_path):
    pytest.importorskip("torch")
    res = results(run_job(tmp_path, 2, TORCH_ORACLE, name="oracle", env={"CT_PORT": str(free_port())}))
    for out in res:
        for key, (ours, theirs) in out.items():
            assert ours == theirs, key  # float32 sums of two values: the same bits


# ---- Faults ----

def missing_ranks(message):
    """The ranks a failure's message says are missing ("... Missing ranks: 1, 2 (...)")."""
    m = re.search(r"[Mm]issing ranks?:?\s*(\d+(?:,\s*\d+)*)", message)
    return re.split(r",\s*", m.group(1)) if m else []


EARLY_EXIT = """
r, n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
start = time.monotonic()
try:
    dist.init_process_group("gloo", timeout=timedelta(seconds=5))
    dist.barrier()
    if r == n - 1:
        os._exit(0)  # gone without a word, as a crashed rank
    t = ctorch.ones(4)
    dist.all_reduce(t)
    dist.all_reduce(t)
    outcome = {"raised": None}
except Exception as e:
    outcome = {"raised": [c.__name__ for c in type(e).__mro__], "message": str(e)}
outcome["seconds"] = time.monotonic() - start
result(outcome)
# Rank 0 serves the store the others ask who is missing: the survivors leave together.
sync = os.environ["CT_SYNC_DIR"]
open(os.path.join(sync, str(r)), "w").close()
deadline = time.monotonic() + 10
while len(os.listdir(sync)) < n - 1 and time.monotonic() < deadline:
    time.sleep(0.02)
"""


@pytest.mark.parametrize("n", [2, 3])
def test_a_rank_that_exits_makes_the_others_fail_naming_it(tmp_path, n):
    sync = tmp_path / "sync"
    sync.mkdir()
    out = run_job(tmp_path, n, EARLY_EXIT, name="early_exit", timeout=40, env={"CT_SYNC_DIR": str(sync)})
    assert out[n - 1][0] == 0
    for r in range(n - 1):
        rc, res, err = out[r]
        assert rc == 0 and res is not None, err
        assert res["raised"] is not None, "the collective with a missing rank succeeded"
        assert "DistBackendError" in res["raised"] and "RuntimeError" in res["raised"], res
        assert str(n - 1) in missing_ranks(res["message"]), res["message"]  # names the missing rank
        assert res["seconds"] < 30, res


INIT_TIMEOUT = """
r = int(os.environ["RANK"])
if r == 1:
    result({"raised": None})
    sys.exit(0)  # never joins
start = time.monotonic()
try:
    dist.init_process_group("gloo", timeout=timedelta(seconds=3))
    outcome = {"raised": None}
except Exception as e:
    outcome = {"raised": [c.__name__ for c in type(e).__mro__], "message": str(e)}
outcome["seconds"] = time.monotonic() - start
result(outcome)
"""


def test_a_rank_that_never_arrives_times_out_the_rendezvous(tmp_path):
    out = run_job(tmp_path, 2, INIT_TIMEOUT, name="init_timeout", timeout=40)
    rc, res, err = out[0]
    assert rc == 0 and res is not None, err
    assert res["raised"] and "DistTimeoutError" in res["raised"] and "TimeoutError" in res["raised"], res
    assert missing_ranks(res["message"]) == ["1"], res["message"]
    assert res["seconds"] < 20


def test_usage_errors_without_a_group():
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="init_process_group"):
        dist.get_rank()
    with pytest.raises(RuntimeError, match="process group"):
        ctorch.nn.parallel.DistributedDataParallel(ctorch.nn.Linear(2, 2))
    with pytest.raises(NotImplementedError, match="store"):
        dist.init_process_group("gloo", store=object())
    assert dist.Backend("GLOO") == "gloo" and dist.Backend.NCCL == "nccl"
    with pytest.raises(ValueError):
        dist.Backend("carrier-pigeon")
    assert dist.is_available() and dist.is_gloo_available()
    assert isinstance(dist.is_nccl_available(), bool) and isinstance(dist.is_mpi_available(), bool)
    assert issubclass(dist.DistBackendError, dist.DistError) and issubclass(dist.DistError, RuntimeError)
    assert issubclass(dist.DistTimeoutError, dist.DistBackendError) and issubclass(dist.DistTimeoutError, TimeoutError)


def test_nccl_without_a_gpu_is_refused_saying_why(tmp_path):
    if ctorch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    body = """
try:
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:%d" % int(os.environ["MASTER_PORT"]),
                            rank=0, world_size=1, timeout=timedelta(seconds=5))
    result({"raised": None})
except Exception as e:
    result({"raised": type(e).__name__, "runtime": isinstance(e, RuntimeError), "message": str(e)})
"""
    (rc, res, err), = run_job(tmp_path, 1, body, name="nccl", timeout=30)
    assert rc == 0 and res is not None, err
    assert res["raised"] and res["runtime"], res
    assert "nccl" in res["message"].lower() or "cuda" in res["message"].lower(), res["message"]


# ---- DistributedDataParallel ----

DDP_DIGITS = """
import struct
import ctorch.nn as nn
import ctorch.nn.functional as F
from ctorch.nn.parallel import DistributedDataParallel as DDP

if os.environ.get("CT_DETERMINISTIC"):
    ctorch.use_deterministic_algorithms(True)
distributed = "RANK" in os.environ and os.environ.get("CT_SINGLE") is None
if distributed:
    dist.init_process_group("gloo", timeout=timedelta(seconds=30))
    r, n = dist.get_rank(), dist.get_world_size()
else:
    r, n = 0, 1
TRAIN, BATCH, EPOCHS = 1408, 64, 2   # 22 full batches: every rank's share is BATCH / n rows
data = ctorch.load_file(os.environ["CT_DATA"])
x, labels = data["pixels"].to(ctorch.float32) / 16, data["labels"]
ctorch.manual_seed(0)
perm = ctorch.randperm(x.shape[0]).narrow(0, 0, TRAIN)
ctorch.manual_seed(100 + r)          # different weights on every rank: DDP makes them rank 0's
model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
if distributed:
    model = DDP(model, bucket_cap_mb=0.002)  # 2 KB buckets: [b2, W2] and [b1, W1]
opt = ctorch.optim.Adam(model.parameters(), lr=0.01)
share = BATCH // n
for epoch in range(EPOCHS):
    for b in range(0, TRAIN, BATCH):
        idx = perm.narrow(0, b + r * share, share)
        loss = F.cross_entropy(model(x.index_select(0, idx)), labels.index_select(0, idx))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
state = (model.module if distributed else model).state_dict()
out = {k: v.numpy().tobytes().hex() for k, v in state.items()}
out["_keys"] = list(model.state_dict())
out["_buckets"] = len(model._buckets) if distributed else 0
if distributed:
    dist.destroy_process_group()
result(out)
"""


TORCH_DDP_DIGITS = """
import numpy as np
import torch
import torch.distributed as tdist
import torch.nn.functional as TF

tdist.init_process_group("gloo", timeout=timedelta(seconds=30))
r, n = tdist.get_rank(), tdist.get_world_size()
TRAIN, BATCH, EPOCHS = 1408, 64, 2
data = ctorch.load_file(os.environ["CT_DATA"])
x = torch.from_numpy(np.array((data["pixels"].to(ctorch.float32) / 16).numpy()))
labels = torch.from_numpy(np.array(data["labels"].numpy()))
ctorch.manual_seed(0)
perm = np.array(ctorch.randperm(x.shape[0]).narrow(0, 0, TRAIN).numpy())   # the ctorch job's batches
ctorch.manual_seed(100 + r)                                                 # and its initial weights
init = ctorch.nn.Sequential(ctorch.nn.Linear(64, 64), ctorch.nn.ReLU(), ctorch.nn.Linear(64, 10)).state_dict()
model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
with torch.no_grad():
    for k, v in model.state_dict().items():
        v.copy_(torch.from_numpy(np.array(init[k].numpy())))
model = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.002)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
share = BATCH // n
for epoch in range(EPOCHS):
    for b in range(0, TRAIN, BATCH):
        idx = torch.from_numpy(perm[b + r * share:b + (r + 1) * share])
        loss = TF.cross_entropy(model(x.index_select(0, idx)), labels.index_select(0, idx))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
result({k: v.detach().numpy().tobytes().hex() for k, v in model.module.state_dict().items()})
tdist.destroy_process_group()
"""


def _weights(res):
    import numpy as np

    return {k: np.frombuffer(bytes.fromhex(v), dtype=np.float32) for k, v in res.items() if not k.startswith("_")}


def test_ddp_on_two_ranks_reaches_the_single_process_weights(tmp_path):
    import numpy as np

    env = {"CT_DATA": DATA}
    ddp = results(run_job(tmp_path, 2, DDP_DIGITS, name="ddp", env=env))
    (single,) = results(run_job(tmp_path, 1, DDP_DIGITS, name="single", env=dict(env, CT_SINGLE="1")))
    assert ddp[0]["_keys"] == ["module.0.weight", "module.0.bias", "module.2.weight", "module.2.bias"]  # as torch
    assert ddp[0]["_buckets"] == 2
    w0, w1, ws = _weights(ddp[0]), _weights(ddp[1]), _weights(single)
    for k in ws:
        assert np.array_equal(w0[k], w1[k]), k  # every rank took the same steps
        assert np.allclose(w0[k], ws[k], rtol=0, atol=1e-6), (k, np.abs(w0[k] - ws[k]).max())


def test_ddp_matches_torchs_ddp(tmp_path):
    """torch 1.13's DistributedDataParallel over its own gloo, from the same weights on the same
    batches: the same training within float32 noise (the kernels differ, not the algorithm)."""
    import numpy as np

    pytest.importorskip("torch")
    env = {"CT_DATA": DATA}
    ours = results(run_job(tmp_path, 2, DDP_DIGITS, name="ddp", env=env))[0]
    theirs = results(run_job(tmp_path, 2, TORCH_DDP_DIGITS, name="torch_ddp", env=env))
    w, t0, t1 = _weights(ours), _weights(theirs[0]), _weights(theirs[1])
    for k in w:
        assert np.array_equal(t0[k], t1[k]), k
        assert np.allclose(w[k], t0[k], rtol=0, atol=1e-6), (k, np.abs(w[k] - t0[k]).max())


def test_ddp_with_deterministic_algorithms_is_bitwise_the_same_run_to_run(tmp_path):
    # 3 ranks, where the order of a sum matters: (a + b) + c is not a + (b + c) in float32
    env = {"CT_DATA": DATA, "CT_DETERMINISTIC": "1"}
    first = results(run_job(tmp_path, 3, DDP_DIGITS, name="det1", env=env))
    second = results(run_job(tmp_path, 3, DDP_DIGITS, name="det2", env=env))
    assert first[0] == second[0] and first[0] == first[1] == first[2]


DDP_SYNC = """
import copy
import ctorch.nn as nn
from ctorch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=timedelta(seconds=30))
r, n = dist.get_rank(), dist.get_world_size()
out = {}

def grads(m):
    return {k: (None if p.grad is None else p.grad.tolist()) for k, p in m.named_parameters()}

def mean_over_ranks(g):
    every = [None] * n
    dist.all_gather_object(every, g)
    return {k: (sum(ctorch.tensor(e[k]) for e in every) / n).tolist() for k in g}

# no_sync: local accumulation, then one averaged step
ctorch.manual_seed(1)
base = nn.Linear(3, 2)
ref = copy.deepcopy(base)
model = DDP(base)
xa = ctorch.tensor([[1.0, 2.0, 3.0]]) * (r + 1)
xb = ctorch.tensor([[0.5, -1.0, 2.0]]) * (r + 2)
with model.no_sync():
    model(xa).sum().backward()
out["after_no_sync"] = grads(model.module)
ref(xa).sum().backward()
out["local_a"] = grads(ref)
model(xb).sum().backward()
out["after_sync"] = grads(model.module)
ref(xb).sum().backward()
out["expected_sync"] = mean_over_ranks(grads(ref))

# find_unused_parameters: rank 0 uses branch a, the others branch b; c is never used
class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Linear(2, 2)
        self.a = nn.Linear(2, 1)
        self.b = nn.Linear(2, 1)
        self.c = nn.Linear(2, 1)
    def forward(self, x, use_a):
        h = self.shared(x)
        return self.a(h) if use_a else self.b(h)

ctorch.manual_seed(2)
net = Branchy()
ref = copy.deepcopy(net)
model = DDP(net, find_unused_parameters=True)
x = ctorch.tensor([[1.0, -2.0]]) * (r + 1)
model(x, r == 0).sum().backward()
out["unused"] = grads(model.module)
ref(x, r == 0).sum().backward()
g = grads(ref)
out["unused_expected"] = mean_over_ranks({k: v if v is not None else ctorch.zeros_like(p).tolist()
                                          for (k, v), p in zip(g.items(), ref.parameters())})
# a second iteration: the same, so the hooks' state was reset
model.module.zero_grad()
model(x, r == 0).sum().backward()
out["unused_again"] = grads(model.module)

# buckets are all-reduced while backward runs: [b2, W2] is launched before W1's gradient exists
ctorch.manual_seed(4)
net = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
launched, real_all_reduce = [], dist.all_reduce
def counting(*args, **kwargs):
    launched.append(kwargs.get("async_op", False))
    return real_all_reduce(*args, **kwargs)
seen = []
net[0].weight.register_post_accumulate_grad_hook(lambda p: seen.append(list(launched)))  # runs before DDP's
model = DDP(net, bucket_cap_mb=0.002)
dist.all_reduce = counting
model(ctorch.randn(4, 64)).sum().backward()
dist.all_reduce = real_all_reduce
out["launched_when_first_layer_ready"] = seen
out["launched"] = launched

# gradient_as_bucket_view: .grad is a view of the bucket, with the same values as the copies
ctorch.manual_seed(5)
base = nn.Linear(3, 2)
mv, mc = DDP(base, gradient_as_bucket_view=True), DDP(copy.deepcopy(base))
xv = ctorch.tensor([[1.0, 2.0, 3.0]]) * (r + 1)
for step in range(2):  # the second backward accumulates into the views
    mv(xv).sum().backward()
    mc(xv).sum().backward()
    out[f"view_grads{step}"], out[f"copy_grads{step}"] = grads(mv.module), grads(mc.module)
buf = mv._buckets[0].buffer
lo, hi = buf.data_ptr(), buf.data_ptr() + buf.numel() * buf.element_size()
out["view_in_bucket"] = all(lo <= p.grad.data_ptr() < hi for p in mv.module.parameters())

# broadcast_buffers: rank 0's buffers before each forward (BatchNorm in eval mode reads them)
def bn_after_forward(broadcast):
    bn = nn.BatchNorm1d(2).eval()
    m = DDP(nn.Sequential(nn.Linear(2, 2), bn), broadcast_buffers=broadcast)
    with ctorch.no_grad():
        bn.running_mean.fill_(float(r))
    m(ctorch.ones(1, 2))
    return bn.running_mean.tolist()
out["buffers_broadcast"] = bn_after_forward(True)
out["buffers_local"] = bn_after_forward(False)

# without find_unused_parameters, the unused c stops the next forward, as in torch
ctorch.manual_seed(3)
model = DDP(Branchy())
model(x, True).sum().backward()
try:
    model(x, True)
    out["unfinished"] = None
except RuntimeError as e:
    out["unfinished"] = str(e)
dist.destroy_process_group()
result(out)
"""


@pytest.fixture(scope="module")
def ddp_sync(tmp_path_factory):
    return results(run_job(tmp_path_factory.mktemp("ddp_sync"), 2, DDP_SYNC, name="ddp_sync"))


def _close(a, b):
    import numpy as np

    return np.allclose(np.array(a, dtype=np.float64), np.array(b, dtype=np.float64), rtol=1e-6, atol=1e-6)


def test_ddp_no_sync_accumulates_locally_then_averages(ddp_sync):
    for out in ddp_sync:
        for k in out["after_no_sync"]:
            assert out["after_no_sync"][k] == out["local_a"][k], k  # no communication
            assert _close(out["after_sync"][k], out["expected_sync"][k]), (k, out["after_sync"][k], out["expected_sync"][k])
    assert ddp_sync[0]["after_no_sync"] != ddp_sync[1]["after_no_sync"]  # the ranks really differed
    assert ddp_sync[0]["after_sync"] == ddp_sync[1]["after_sync"]


def test_ddp_find_unused_parameters_averages_what_some_rank_used(ddp_sync):
    for out in ddp_sync:
        got, want = out["unused"], out["unused_expected"]
        for k in ("shared.weight", "shared.bias", "a.weight", "a.bias", "b.weight", "b.bias"):
            assert got[k] is not None and _close(got[k], want[k]), (k, got[k], want[k])
        assert got["c.weight"] is None and got["c.bias"] is None  # no rank used c: left alone
        assert out["unused_again"] == got
    assert ddp_sync[0]["unused"] == ddp_sync[1]["unused"]


def test_ddp_all_reduces_a_full_bucket_while_backward_runs(ddp_sync):
    for out in ddp_sync:
        assert out["launched_when_first_layer_ready"] == [[True]]  # bucket [b2, W2], asynchronously
        assert out["launched"] == [True, True]


def test_ddp_gradient_as_bucket_view_gives_the_same_gradients(ddp_sync):
    for out in ddp_sync:
        assert out["view_grads0"] == out["copy_grads0"] and out["view_grads1"] == out["copy_grads1"]
        assert out["view_grads1"] != out["view_grads0"]  # accumulated
        assert out["view_in_bucket"]


def test_ddp_broadcasts_rank_0s_buffers_before_forward(ddp_sync):
    for r, out in enumerate(ddp_sync):
        assert out["buffers_broadcast"] == [0.0, 0.0]
        assert out["buffers_local"] == [float(r), float(r)]


def test_ddp_unused_parameter_without_detection_fails_the_next_forward(ddp_sync):
    for out in ddp_sync:
        assert out["unfinished"] and "find_unused_parameters=True" in out["unfinished"]
        assert "c.weight" in out["unfinished"]


DDP_RANK_DIES = """
import ctorch.nn as nn
from ctorch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=timedelta(seconds=5))
r = dist.get_rank()
model = DDP(nn.Linear(4, 2))
model(ctorch.ones(2, 4)).sum().backward()
if r == 1:
    os._exit(0)  # dies between two steps
start = time.monotonic()
try:
    model(ctorch.ones(2, 4)).sum().backward()
    outcome = {"raised": None}
except Exception as e:
    outcome = {"raised": [c.__name__ for c in type(e).__mro__], "message": str(e)}
outcome["seconds"] = time.monotonic() - start
result(outcome)
"""


def test_ddp_backward_fails_with_the_dead_ranks_name(tmp_path):
    """The all_reduce a post-accumulate hook waits on fails inside backward: backward raises that
    DistBackendError itself, within the group's timeout."""
    out = run_job(tmp_path, 2, DDP_RANK_DIES, name="ddp_dies", timeout=40)
    rc, res, err = out[0]
    assert rc == 0 and res is not None, err
    assert res["raised"] and "DistBackendError" in res["raised"], res
    assert "1" in missing_ranks(res["message"]), res["message"]
    assert res["seconds"] < 20


# ---- SyncBatchNorm ----

# One batch of 8 rows, [N, C, L] = [8, 3, 4], with channel means apart, and the gradient a loss
# sum(y * G) sends back (a constant G would make the input gradient vanish).
SYNC_BN_BATCH = """
N, C, L = 8, 3, 4
WEIGHT, BIAS = [0.5, 1.5, -2.0], [0.1, -0.2, 0.3]

def batch():
    i = ctorch.arange(N * C * L, dtype=ctorch.float32).reshape(N, C, L)
    x = (i * 0.37).sin() * 2 + ctorch.arange(C, dtype=ctorch.float32).reshape(1, C, 1) * 1.5 - 1
    x = x + (ctorch.arange(N, dtype=ctorch.float32) * 0.25).reshape(N, 1, 1)  # later rows drift up
    return x, (i * 0.11 + 0.5).cos()
"""

# Each case: the rows of the batch each rank gets, and the momentum (None: a cumulative average).
SYNC_BN_CASES = {"uneven": ((5, 3), 0.3), "empty": ((8, 0), None)}

SYNC_BN = SYNC_BN_BATCH + """
import ctorch.nn as nn
dist.init_process_group("gloo", timeout=timedelta(seconds=30))
r = dist.get_rank()
X, G = batch()
out = {}
for name, (split, momentum) in %r.items():
    lo = sum(split[:r])
    hi = lo + split[r]
    bn = nn.SyncBatchNorm(C, momentum=momentum)
    with ctorch.no_grad():
        bn.weight.copy_(ctorch.tensor(WEIGHT))
        bn.bias.copy_(ctorch.tensor(BIAS))
    x = X[lo:hi].clone().requires_grad_()
    y = bn(x)
    (y * G[lo:hi]).sum().backward()
    bn.eval()
    out[name] = {"y": y.tolist(), "dx": x.grad.tolist(), "dw": bn.weight.grad.tolist(), "db": bn.bias.grad.tolist(),
                 "mean": bn.running_mean.tolist(), "var": bn.running_var.tolist(),
                 "tracked": int(bn.num_batches_tracked), "eval": bn(X[lo:hi]).tolist()}
dist.destroy_process_group()
result(out)
""" % (SYNC_BN_CASES,)


def _full_batch_norm(m, x, g, momentum, weight, bias):
    """BatchNorm1d of m (ctorch or torch) in one process over the whole batch: what every rank's
    slice of SyncBatchNorm must give."""
    import numpy as np

    bn = m.nn.BatchNorm1d(x.shape[1], momentum=momentum)
    with m.no_grad():
        bn.weight.copy_(m.tensor(weight))
        bn.bias.copy_(m.tensor(bias))
    x = m.tensor(x).requires_grad_()
    y = bn(x)
    (y * m.tensor(g)).sum().backward()
    bn.eval()
    arr = lambda t: np.array(t.detach().tolist(), dtype=np.float64)
    return {"y": arr(y), "dx": arr(x.grad), "dw": arr(bn.weight.grad), "db": arr(bn.bias.grad),
            "mean": arr(bn.running_mean), "var": arr(bn.running_var), "tracked": int(bn.num_batches_tracked),
            "eval": arr(bn(x))}


def test_sync_batch_norm_on_two_ranks_is_batch_norm_of_the_whole_batch(tmp_path):
    """Two ranks hold rows 0-4 and 5-7 of a batch (and, second case, all 8 and none): each rank's
    output and input gradient are its rows of one process's BatchNorm over all 8, the weight and
    bias gradients add up over the ranks to that one's (DDP averages them, over the same rows),
    and every rank's running statistics are the whole batch's. torch's BatchNorm1d too, if there."""
    import numpy as np

    ns = {"ctorch": ctorch}
    exec(SYNC_BN_BATCH, ns)
    x, g = (t.numpy() for t in ns["batch"]())
    oracles = [ctorch]
    try:
        import torch

        oracles.append(torch)
    except ImportError:
        pass
    ranks = results(run_job(tmp_path, 2, SYNC_BN, name="sync_bn", timeout=30))
    for name, (split, momentum) in SYNC_BN_CASES.items():
        got = [res[name] for res in ranks]
        for rank, res in enumerate(got):
            assert len(res["y"]) == len(res["dx"]) == split[rank], (name, rank)
        joined = {k: np.concatenate([np.array(res[k], dtype=np.float64).reshape(-1, *x.shape[1:]) for res in got])
                  for k in ("y", "dx", "eval")}
        summed = {k: sum(np.array(res[k], dtype=np.float64) for res in got) for k in ("dw", "db")}
        for m in oracles:
            want = _full_batch_norm(m, x, g, momentum, ns["WEIGHT"], ns["BIAS"])
            for k, v in list(joined.items()) + list(summed.items()):
                assert np.allclose(v, want[k], rtol=0, atol=1e-5), (name, m.__name__, k, np.abs(v - want[k]).max())
            for rank, res in enumerate(got):
                for k in ("mean", "var"):
                    assert np.allclose(res[k], want[k], rtol=0, atol=1e-5), (name, m.__name__, rank, k, res[k])
                assert res["tracked"] == want["tracked"] == 1
    # The rows 0-4 alone give other statistics: matching the whole batch took the other rank's rows.
    alone = _full_batch_norm(ctorch, x[:5], g[:5], 0.3, ns["WEIGHT"], ns["BIAS"])
    assert np.abs(alone["y"] - np.array(ranks[0]["uneven"]["y"])).max() > 0.1


# ---- The launcher ----

LAUNCHED = """
import os, sys
import ctorch, ctorch.distributed as dist
env = {k: os.environ[k] for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")}
dist.init_process_group("gloo")
t = ctorch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
line = " ".join(str(v) for v in ("RANK_LINE", env["RANK"], env["LOCAL_RANK"], env["WORLD_SIZE"], env["LOCAL_WORLD_SIZE"],
                                 env["MASTER_ADDR"], int(t.item()), sys.argv[1:]))
os.write(1, (line + "\\n").encode())  # one write: the ranks share the launcher's stdout
if os.environ.get("CT_FAIL_RANK") == env["RANK"]:
    sys.exit(3)
dist.destroy_process_group()
if os.environ.get("CT_FAIL_RANK") is not None:
    time.sleep(60)  # the launcher must stop this one
"""


def _launch(tmp_path, args, env=None, timeout=JOB_TIMEOUT):
    script = tmp_path / "launched.py"
    script.write_text("import time\n" + LAUNCHED)
    cmd = [sys.executable, "-m", "ctorch.distributed.run"] + args + [str(script), "--lr", "0.1"]
    start = time.monotonic()
    p = subprocess.run(cmd, env=dict(os.environ, **(env or {})), capture_output=True, text=True, timeout=timeout)
    return p, time.monotonic() - start


def test_launcher_starts_every_rank_with_torchruns_variables(tmp_path):
    p, _ = _launch(tmp_path, ["--nproc-per-node", "3"])
    assert p.returncode == 0, p.stderr
    lines = sorted(l.split(" ", 1)[1] for l in p.stdout.splitlines() if l.startswith("RANK_LINE"))
    assert lines == [f"{r} {r} 3 3 127.0.0.1 6 ['--lr', '0.1']" for r in range(3)]
    p, _ = _launch(tmp_path, ["--nproc_per_node=2", "--nnodes", "1", "--node_rank", "0", "--rdzv-backend", "c10d",
                              "--rdzv-endpoint", f"127.0.0.1:{free_port()}"])
    assert p.returncode == 0, p.stderr
    assert len([l for l in p.stdout.splitlines() if l.startswith("RANK_LINE")]) == 2


def test_launcher_stops_the_others_when_a_rank_fails_and_names_it(tmp_path):
    p, seconds = _launch(tmp_path, ["--nproc-per-node", "3", "--stop-timeout", "2"], env={"CT_FAIL_RANK": "1"})
    assert p.returncode == 3, (p.returncode, p.stderr)
    assert "rank 1 " in p.stderr and "exited with code 3" in p.stderr, p.stderr
    assert seconds < 30  # the sleeping ranks were stopped, not waited for


def test_launcher_on_two_nodes_numbers_the_ranks_across_them(tmp_path):
    """Two launchers standing for two hosts (--nnodes 2, --node-rank 0 and 1, one rank each) make one
    job of world size 2, as torchrun's would."""
    script = tmp_path / "launched.py"
    script.write_text("import time\n" + LAUNCHED)
    port = str(free_port())
    procs = [subprocess.Popen([sys.executable, "-m", "ctorch.distributed.run", "--nnodes", "2", "--node-rank",
                               str(node), "--nproc-per-node", "1", "--master-addr", "127.0.0.1", "--master-port", port,
                               str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for node in range(2)]
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=JOB_TIMEOUT))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for node, (p, (stdout, stderr)) in enumerate(zip(procs, outs)):
        assert p.returncode == 0, stderr
        assert f"RANK_LINE {node} 0 2 1 127.0.0.1 3 []" in stdout, stdout

