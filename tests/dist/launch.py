#!/usr/bin/env python3
"""launch.py - start N ranks of a program on this machine the way torchrun does (RANK, LOCAL_RANK,
WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR=127.0.0.1, MASTER_PORT a free port), for the tests.

    launch.py --nproc 3 [--timeout 60] [--expect-fail RANKS] [--pass-code 77] -- PROGRAM ARGS...

Exits 0 when every rank exits 0 (or, with --expect-fail, when exactly the listed ranks fail and
the rest succeed), else 1. Past --timeout every rank still running is killed and the launch fails,
so a hang can never outlive the test. Each rank's output is printed prefixed with its rank."""
import argparse
import os
import signal
import socket
import subprocess
import sys
import threading
import time


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nproc", type=int, required=True)
    p.add_argument("--timeout", type=float, default=120)
    p.add_argument("--expect-fail", default="", help="comma-separated ranks that must exit non-zero")
    p.add_argument("--pass-code", type=int, action="append", default=[],
                   help="an exit code that counts as success too (77: the program skipped itself)")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        p.error("no program given")
    port = free_port()
    procs = []
    for rank in range(a.nproc):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(a.nproc),
                   LOCAL_WORLD_SIZE=str(a.nproc), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      start_new_session=True))

    def relay(rank, proc):
        for line in proc.stdout:
            sys.stdout.write(f"[rank {rank}] {line.decode(errors='replace')}")
            sys.stdout.flush()

    threads = [threading.Thread(target=relay, args=(r, pr), daemon=True) for r, pr in enumerate(procs)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + a.timeout
    timed_out = False
    while any(pr.poll() is None for pr in procs):
        if time.monotonic() > deadline:
            timed_out = True
            for pr in procs:
                if pr.poll() is None:
                    os.killpg(pr.pid, signal.SIGKILL)
            break
        time.sleep(0.05)
    for pr in procs:
        pr.wait()
    for t in threads:
        t.join(timeout=5)
    codes = [pr.returncode for pr in procs]
    print(f"launch.py: exit codes by rank: {codes}")
    if timed_out:
        print(f"launch.py: killed the ranks still running after {a.timeout} s")
        return 1
    expected = {int(r) for r in a.expect_fail.split(",") if r}
    failed = {r for r, c in enumerate(codes) if c != 0 and c not in a.pass_code}
    return 0 if failed == expected else 1


if __name__ == "__main__":
    sys.exit(main())
