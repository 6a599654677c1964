package org.ctorch;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.ctorch.distributed.ProcessGroup;
import org.ctorch.distributed.ReduceOp;
import org.ctorch.distributed.Work;

/**
 * The ranks DistributedTest launches: {@code java -cp ... org.ctorch.DistributedRanks SCENARIO}
 * with RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT set. Each checks the collectives' numbers on
 * its rank and exits non-zero (with the reason on stderr) when one is wrong.
 */
public final class DistributedRanks {
  /** Printed by a rank that finished its scenario; DistributedTest requires it. */
  static final String DONE = "ctorch-distributed-rank-finished";

  private DistributedRanks() {}

  public static void main(String[] args) {
    String scenario = args[0];
    Duration timeout = Duration.ofSeconds(scenario.equals("timeout") ? 3 : 60);
    try (TensorScope scope = new TensorScope(); ProcessGroup pg = ProcessGroup.init("gloo", null, -1, -1, timeout)) {
      switch (scenario) {
        case "two": two(pg); break;
        case "three": three(pg); break;
        case "timeout": timeout(pg); break;
        default: throw new IllegalArgumentException("unknown scenario " + scenario);
      }
    }
    System.out.println(DONE);
  }

  private static void expect(float[] want, Tensor t, String what) {
    float[] got = t.toFloatArray();
    if (!Arrays.equals(want, got)) {
      throw new AssertionError(what + ": expected " + Arrays.toString(want) + ", got " + Arrays.toString(got));
    }
  }

  private static void expect(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }

  private static Tensor f(float... v) {
    return Tensor.of(v);
  }

  private static void two(ProcessGroup pg) {
    int rank = pg.rank();
    float r = rank;
    expect(pg.worldSize() == 2 && pg.backend().equals("gloo") && pg.isMember(), "group " + pg);

    Tensor t = f(r + 1, 10 * (r + 1));
    pg.allReduce(t, ReduceOp.SUM);
    expect(new float[] {3, 30}, t, "all_reduce sum");
    t = f(r + 2);
    pg.allReduce(t, ReduceOp.PRODUCT);
    expect(new float[] {6}, t, "all_reduce product");
    t = f(r, -rank);
    pg.allReduce(t, ReduceOp.MAX);
    expect(new float[] {1, 0}, t, "all_reduce max");
    t = f(r, -rank);
    pg.allReduce(t, ReduceOp.MIN);
    expect(new float[] {0, -1}, t, "all_reduce min");
    t = f(r + 1);
    pg.allReduce(t, ReduceOp.AVG);
    expect(new float[] {1.5f}, t, "all_reduce avg");
    Tensor l = Tensor.of(new long[] {rank + 5});
    pg.allReduce(l, ReduceOp.SUM);
    expect(Arrays.equals(new long[] {11}, l.toLongArray()), "all_reduce int64: " + Arrays.toString(l.toLongArray()));

    t = f(r, r, r);
    try (Work w = pg.allReduceAsync(t, ReduceOp.SUM)) {
      w.waitFor();
      expect(w.isCompleted(), "the work is completed after waitFor");
    }
    expect(new float[] {1, 1, 1}, t, "all_reduce async");

    t = f(7 * r, 3);
    pg.broadcast(t, 1);
    expect(new float[] {7, 3}, t, "broadcast");
    t = f(r + 1);
    pg.reduce(t, 0, ReduceOp.SUM);
    expect(new float[] {rank == 0 ? 3 : 2}, t, "reduce");

    Tensor input = f(r, 2 * r + 1);
    List<Tensor> outs = List.of(Tensor.zeros(2), Tensor.zeros(2));
    pg.allGather(outs, input);
    expect(new float[] {0, 1}, outs.get(0), "all_gather[0]");
    expect(new float[] {1, 3}, outs.get(1), "all_gather[1]");
    Tensor out = Tensor.zeros(4);
    pg.allGatherIntoTensor(out, input);
    expect(new float[] {0, 1, 1, 3}, out, "all_gather_into_tensor");

    out = Tensor.zeros(1);
    pg.reduceScatter(out, List.of(f(r + 1), f(10 * (r + 1))), ReduceOp.SUM);
    expect(new float[] {rank == 0 ? 3 : 30}, out, "reduce_scatter");
    out = Tensor.zeros(1);
    pg.reduceScatterTensor(out, f(r + 1, 10 * (r + 1)), ReduceOp.SUM);
    expect(new float[] {rank == 0 ? 3 : 30}, out, "reduce_scatter_tensor");

    if (rank == 1) {
      List<Tensor> got = List.of(Tensor.zeros(1), Tensor.zeros(1));
      pg.gather(f(100 + r), got, 1);
      expect(new float[] {100}, got.get(0), "gather[0]");
      expect(new float[] {101}, got.get(1), "gather[1]");
    } else {
      pg.gather(f(100 + r), List.of(), 1);
    }
    out = Tensor.zeros(2);
    pg.scatter(out, rank == 0 ? List.of(f(1, 2), f(3, 4)) : List.of(), 0);
    expect(rank == 0 ? new float[] {1, 2} : new float[] {3, 4}, out, "scatter");

    outs = List.of(Tensor.zeros(1), Tensor.zeros(1));
    pg.allToAll(outs, List.of(f(10 * r), f(10 * r + 1)));
    expect(new float[] {r}, outs.get(0), "all_to_all[0]");
    expect(new float[] {10 + r}, outs.get(1), "all_to_all[1]");
    out = Tensor.zeros(2);
    pg.allToAllSingle(out, f(10 * r, 10 * r + 1));
    expect(new float[] {r, 10 + r}, out, "all_to_all_single");

    if (rank == 0) {
      pg.send(f(7, 8, 9), 1, 5);
      Tensor back = Tensor.zeros(3);
      try (Work w = pg.recvAsync(back, 1, 6)) {
        w.waitFor();
      }
      expect(new float[] {14, 16, 18}, back, "recv");
    } else {
      Tensor got = Tensor.zeros(3);
      pg.recv(got, 0, 5);
      expect(new float[] {7, 8, 9}, got, "recv");
      try (Work w = pg.sendAsync(got.mulScalar(2), 0, 6)) {
        w.waitFor();
      }
    }

    try {
      pg.broadcast(f(r), 2);
      throw new AssertionError("a broadcast from rank 2 of 2 did not fail");
    } catch (InvalidArgumentException expected) {
      // the caller's mistake, named as such
    }
    pg.barrier();
    try (Work w = pg.barrierAsync()) {
      w.waitFor();
    }
  }

  private static void three(ProcessGroup pg) {
    int rank = pg.rank();
    expect(pg.worldSize() == 3, "world size " + pg.worldSize());
    Tensor t = f(rank + 1, 1);
    pg.allReduce(t, ReduceOp.SUM);
    expect(new float[] {6, 3}, t, "all_reduce");
    t = f(rank * 3);
    pg.broadcast(t, 2);
    expect(new float[] {6}, t, "broadcast");
    List<Tensor> outs = List.of(Tensor.zeros(1), Tensor.zeros(1), Tensor.zeros(1));
    pg.allGather(outs, f(2 * rank));
    for (int i = 0; i < 3; i++) {
      expect(new float[] {2 * i}, outs.get(i), "all_gather[" + i + "]");
    }
    // A send waits for its receive and a group runs one operation at a time: even ranks send
    // first, odd ranks receive first (all sending first would wait on each other).
    Tensor got = Tensor.zeros(1);
    if (rank % 2 == 0) {
      pg.send(f(rank), (rank + 1) % 3, 0);
      pg.recv(got, (rank + 2) % 3, 0);
    } else {
      pg.recv(got, (rank + 2) % 3, 0);
      pg.send(f(rank), (rank + 1) % 3, 0);
    }
    expect(new float[] {(rank + 2) % 3}, got, "ring of sends");
    try (ProcessGroup sub = pg.newGroup(new int[] {2, 0}, null)) {
      if (rank == 1) {
        expect(!sub.isMember() && sub.rank() == -1, "rank 1 is not in the sub-group");
      } else {
        expect(sub.worldSize() == 2 && sub.rank() == (rank == 2 ? 0 : 1), "sub-group " + sub);
        t = f(rank + 1);
        sub.allReduce(t, ReduceOp.SUM);
        expect(new float[] {4}, t, "sub-group all_reduce");
      }
    }
    pg.barrier();
  }

  private static void timeout(ProcessGroup pg) {
    Tensor t = f(1);
    if (pg.rank() == 0) {
      try (Work w = pg.allReduceAsync(t, ReduceOp.SUM)) {
        try {
          w.waitFor(Duration.ofMillis(200));
          throw new AssertionError("a wait of 200 ms for a rank 2 s late did not time out");
        } catch (TimeoutException expected) {
          expect(!w.isCompleted(), "the late all_reduce is still running");
        }
        w.waitFor();
      }
      expect(new float[] {2}, t, "the late all_reduce");
      try {
        pg.allReduce(t, ReduceOp.SUM);
        throw new AssertionError("an all_reduce rank 1 never joins did not fail");
      } catch (TimeoutException expected) {
        expect(expected.status() == Status.TIMEOUT, "status " + expected.status());
      }
    } else {
      sleep(2000);
      pg.allReduce(t, ReduceOp.SUM);
      sleep(5000);
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
