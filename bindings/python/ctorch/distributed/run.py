"""python -m ctorch.distributed.run: start the ranks of a job on this machine (torchrun's flags).

    python -m ctorch.distributed.run --nproc-per-node 2 train.py --epochs 3
    python -m ctorch.distributed.run --nnodes 2 --node-rank 0 --nproc-per-node 4 \\
        --master-addr 10.0.0.1 --master-port 29500 train.py           # and --node-rank 1 on the other host

Starts nproc-per-node processes of `python script args...` (or `python -m module` with -m), each
with torchrun's variables: RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK,
MASTER_ADDR, MASTER_PORT (and TORCHELASTIC_RUN_ID), so that init_process_group() with its
defaults (env://) joins them. On one node without --master-port it picks a free port. It waits for
all of them; when one fails it stops the others (SIGTERM, then SIGKILL after --stop-timeout
seconds) and exits non-zero, naming the rank that failed first. --rdzv-endpoint HOST:PORT with
--rdzv-backend static or c10d is the same as --master-addr and --master-port. There are no restarts
and no elastic membership: --nnodes takes one number, --max-restarts only 0."""

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import uuid


def _parser():
    p = argparse.ArgumentParser(prog="python -m ctorch.distributed.run",
                                description="Start the ranks of a ctorch.distributed job on this node.")
    p.add_argument("--nproc-per-node", "--nproc_per_node", dest="nproc_per_node", type=int, default=1,
                   help="processes (ranks) to start on this node (default 1)")
    p.add_argument("--nnodes", type=int, default=1, help="number of nodes in the job (default 1)")
    p.add_argument("--node-rank", "--node_rank", dest="node_rank", type=int, default=0,
                   help="this node's index among the nodes (default 0)")
    p.add_argument("--master-addr", "--master_addr", dest="master_addr", default="127.0.0.1",
                   help="address of the node running rank 0 (default 127.0.0.1)")
    p.add_argument("--master-port", "--master_port", dest="master_port", type=int, default=None,
                   help="port of rank 0's store (default: a free port on one node, 29500 on several)")
    p.add_argument("--standalone", action="store_true", help="one node, a free port (the default on one node)")
    p.add_argument("--rdzv-endpoint", "--rdzv_endpoint", dest="rdzv_endpoint", default=None,
                   help="HOST:PORT of rank 0's store (torchrun's spelling of --master-addr and --master-port)")
    p.add_argument("--rdzv-backend", "--rdzv_backend", dest="rdzv_backend", default="static",
                   help="static or c10d: both mean rank 0 serves the store at the endpoint")
    p.add_argument("--rdzv-id", "--rdzv_id", dest="rdzv_id", default=None, help="the job's id (TORCHELASTIC_RUN_ID)")
    p.add_argument("--max-restarts", "--max_restarts", dest="max_restarts", type=int, default=0,
                   help="only 0: a failed job is not restarted")
    p.add_argument("--stop-timeout", "--stop_timeout", dest="stop_timeout", type=float, default=5.0,
                   help="seconds the other ranks get to exit after one failed, before SIGKILL (default 5)")
    p.add_argument("-m", "--module", action="store_true", help="run the script argument as a module (python -m)")
    p.add_argument("--no-python", "--no_python", dest="no_python", action="store_true",
                   help="run the script argument as a program, not with python")
    p.add_argument("script", help="the training script (or module, or program)")
    p.add_argument("script_args", nargs=argparse.REMAINDER, help="its arguments")
    return p


def free_port(addr="127.0.0.1"):
    """A TCP port nothing listens on at addr now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((addr, 0))
        return s.getsockname()[1]


def _die_with_parent():
    """In the child before exec: receive SIGTERM when the launcher dies, so no rank outlives it."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _describe(code):
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def _stop(procs, timeout):
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for p in procs:
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def launch(args):
    """Starts the ranks and waits for them; returns the launcher's exit status."""
    if args.nproc_per_node < 1 or args.nnodes < 1 or not 0 <= args.node_rank < args.nnodes:
        print(f"ctorch.distributed.run: bad sizes: --nproc-per-node {args.nproc_per_node} --nnodes {args.nnodes} "
              f"--node-rank {args.node_rank}", file=sys.stderr)
        return 2
    if args.rdzv_backend not in ("static", "c10d") or args.max_restarts != 0:
        print(f"ctorch.distributed.run: --rdzv-backend {args.rdzv_backend} --max-restarts {args.max_restarts} is not "
              "supported (static or c10d rendezvous, no restarts)", file=sys.stderr)
        return 2
    if args.rdzv_endpoint:
        host, _, endpoint_port = args.rdzv_endpoint.rpartition(":")
        args.master_addr = host or args.master_addr
        if endpoint_port:
            args.master_port = int(endpoint_port)
    port = args.master_port
    if port is None:
        port = free_port(args.master_addr) if args.nnodes == 1 or args.standalone else 29500
    world_size = args.nnodes * args.nproc_per_node
    if args.no_python:
        cmd = [args.script]
    else:
        cmd = [sys.executable, "-u"] + (["-m"] if args.module else [])
        cmd.append(args.script)
    cmd += args.script_args
    run_id = args.rdzv_id or os.environ.get("TORCHELASTIC_RUN_ID", uuid.uuid4().hex)
    procs, ranks = [], {}
    for local_rank in range(args.nproc_per_node):
        rank = args.node_rank * args.nproc_per_node + local_rank
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(local_rank), WORLD_SIZE=str(world_size),
                   LOCAL_WORLD_SIZE=str(args.nproc_per_node), GROUP_RANK=str(args.node_rank),
                   MASTER_ADDR=args.master_addr, MASTER_PORT=str(port), TORCHELASTIC_RUN_ID=run_id)
        if args.nproc_per_node > 1 and "OMP_NUM_THREADS" not in os.environ:
            env["OMP_NUM_THREADS"] = "1"  # as torchrun: the ranks share this node's cores
        p = subprocess.Popen(cmd, env=env, preexec_fn=_die_with_parent)
        procs.append(p)
        ranks[p.pid] = (rank, local_rank)

    def forward(signum, frame):
        _stop(procs, args.stop_timeout)
        sys.exit(128 + signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while True:
            failed = next((p for p in procs if p.poll() not in (None, 0)), None)
            if failed is not None:
                rank, local_rank = ranks[failed.pid]
                others = [p for p in procs if p is not failed]
                _stop(others, args.stop_timeout)
                print(f"ctorch.distributed.run: rank {rank} (local rank {local_rank}, pid {failed.pid}) "
                      f"{_describe(failed.returncode)}; stopped the other ranks", file=sys.stderr, flush=True)
                code = failed.returncode
                return code if 0 < code < 256 else 1
            if all(p.poll() == 0 for p in procs):
                return 0
            time.sleep(0.05)
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def main(argv=None):
    args = _parser().parse_args(argv)
    sys.exit(launch(args))


if __name__ == "__main__":
    main()
