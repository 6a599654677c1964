"""torch_allreduce.py - torch.distributed's gloo all_reduce bandwidth, the torch column of
bench_allreduce (which runs it): float32 sum, 2 ranks on this machine over loopback, the same
sizes, iterations and timing as bench_allreduce.cpp.

    python torch_allreduce.py OUT MIN_BYTES MAX_BYTES

Starts its two ranks itself (torchrun's variables, MASTER_ADDR=127.0.0.1). Rank 0 writes one line
per size to OUT, "bytes seconds_per_call", and torch's version to OUT.version.
"""
import os
import socket
import subprocess
import sys
import time


def iterations(nbytes):
    return max(3, min(200, (32 << 20) // nbytes))


def repetitions(nbytes):
    return 2 if nbytes >= (64 << 20) else 3 if nbytes >= (4 << 20) else 5


def worker(out, min_bytes, max_bytes):
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method="env://")
    rank = dist.get_rank()
    rows = []
    nbytes = min_bytes
    while nbytes <= max_bytes:
        t = torch.zeros(nbytes // 4, dtype=torch.float32)
        dist.all_reduce(t)  # warm-up
        iters = iterations(nbytes)
        best = float("inf")
        for _ in range(repetitions(nbytes)):
            dist.barrier()
            t0 = time.perf_counter()
            for _ in range(iters):
                dist.all_reduce(t)
            best = min(best, (time.perf_counter() - t0) / iters)
        rows.append((nbytes, best))
        nbytes *= 4
    if rank == 0:
        with open(out, "w") as f:
            for b, s in rows:
                f.write(f"{b} {s:.9g}\n")
        with open(out + ".version", "w") as f:
            f.write(torch.__version__ + "\n")
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    out, min_bytes, max_bytes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if os.environ.get("CTORCH_TORCH_BENCH_WORKER"):
        worker(out, min_bytes, max_bytes)
        return 0
    env = dict(os.environ, CTORCH_TORCH_BENCH_WORKER="1", WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
               MASTER_PORT=str(free_port()))
    procs = [subprocess.Popen([sys.executable, __file__] + sys.argv[1:], env=dict(env, RANK=str(r)))
             for r in range(2)]
    try:
        codes = [p.wait(timeout=140) for p in procs]
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
        print("torch_allreduce.py: the ranks did not finish within 140 s", file=sys.stderr)
        return 1
    return 0 if all(c == 0 for c in codes) else 1


if __name__ == "__main__":
    sys.exit(main())
