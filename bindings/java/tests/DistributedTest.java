package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import java.io.File;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.ctorch.distributed.ProcessGroup;
import org.ctorch.distributed.ReduceOp;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * org.ctorch.distributed over the gloo engine: each test launches its ranks as JVMs of their own
 * (DistributedRanks, with RANK, WORLD_SIZE, MASTER_ADDR=127.0.0.1 and a free MASTER_PORT), which
 * check the numbers; a rank that fails or runs past two minutes fails the test. Where the gloo
 * module is not built the tests are skipped, unless CTORCH_REQUIRE_GLOO is set (CTest sets it when
 * it built the module).
 */
class DistributedTest {
  private static final long BOUND_SECONDS = 120;

  private static void assumeGloo() {
    String why = ProcessGroup.backendUnavailableReason("gloo");
    if (why != null && System.getenv("CTORCH_REQUIRE_GLOO") != null) {
      fail("gloo is required here: " + why);
    }
    Assumptions.assumeTrue(why == null, "the gloo engine is not available: " + why);
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  private static String jarOf(Class<?> c) throws URISyntaxException {
    return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
  }

  private static void launch(String scenario, int world) throws Exception {
    assumeGloo();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = jarOf(Tensor.class) + File.pathSeparator + jarOf(DistributedRanks.class);
    int port = freePort();
    List<Process> ranks = new ArrayList<>();
    List<Path> logs = new ArrayList<>();
    for (int r = 0; r < world; r++) {
      Path log = Files.createTempFile("ctorch-dist-" + scenario + "-" + r, ".log");
      ProcessBuilder pb = new ProcessBuilder(java, "-cp", cp, "org.ctorch.DistributedRanks", scenario);
      pb.environment().put("RANK", Integer.toString(r));
      pb.environment().put("WORLD_SIZE", Integer.toString(world));
      pb.environment().put("MASTER_ADDR", "127.0.0.1");
      pb.environment().put("MASTER_PORT", Integer.toString(port));
      pb.redirectErrorStream(true).redirectOutput(log.toFile());
      ranks.add(pb.start());
      logs.add(log);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
    StringBuilder report = new StringBuilder();
    for (int r = 0; r < world; r++) {
      Process p = ranks.get(r);
      boolean done = p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (!done) {
        p.destroyForcibly().waitFor();
      }
      String out = Files.readString(logs.get(r));
      Files.deleteIfExists(logs.get(r));
      if (!done || p.exitValue() != 0 || !out.contains(DistributedRanks.DONE)) {
        report.append("rank ").append(r).append(done ? ": exit " + p.exitValue() : ": did not finish in time")
            .append('\n').append(out).append('\n');
      }
    }
    assertEquals("", report.toString(), scenario + " on " + world + " ranks failed");
  }

  @Test
  void twoRanksGiveTorchNumbersForEveryCollective() throws Exception {
    launch("two", 2);
  }

  @Test
  void threeRanksAllReduceGatherAndASubGroup() throws Exception {
    launch("three", 3);
  }

  @Test
  void aCollectiveAPeerNeverJoinsIsATimeout() throws Exception {
    launch("timeout", 2);
  }

  @Test
  void aRankThatNeverArrivesIsATimeoutNamingIt() throws Exception {
    assumeGloo();
    long start = System.nanoTime();
    TimeoutException e = assertThrows(TimeoutException.class,
        () -> ProcessGroup.init("gloo", "tcp://127.0.0.1:" + freePort(), 0, 2, Duration.ofSeconds(1)).close());
    assertEquals(Status.TIMEOUT, e.status());
    assertTrue(e.getMessage().contains("1"), e.getMessage());
    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30), "the rendezvous outlived its timeout");
  }

  @Test
  void unknownBackendIsAnInvalidArgument() {
    assertThrows(InvalidArgumentException.class, () -> ProcessGroup.isBackendAvailable("carrier-pigeon"));
    assertThrows(InvalidArgumentException.class, () -> ProcessGroup.init("carrier-pigeon", null, 0, 1, null));
  }

  @Test
  void aNullReduceOpIsAnInvalidArgument() throws Exception {
    assumeGloo();
    try (ProcessGroup pg = ProcessGroup.init("gloo", "tcp://127.0.0.1:" + freePort(), 0, 1, Duration.ofSeconds(30));
        Tensor t = Tensor.of(new float[] {2})) {
      assertThrows(InvalidArgumentException.class, () -> pg.allReduce(t, null));
      assertThrows(InvalidArgumentException.class, () -> pg.newGroup(null, null));
      try (org.ctorch.distributed.Work w = pg.barrierAsync()) {
        assertThrows(InvalidArgumentException.class, () -> w.waitFor(null));
        w.waitFor();
        assertTrue(w.isCompleted());
      }
      pg.allReduce(t, ReduceOp.SUM);
      assertArrayEquals(new float[] {2}, t.toFloatArray());
      assertEquals("gloo", pg.backend());
      assertEquals(0, pg.rank());
      assertEquals(1, pg.worldSize());
    }
  }
}
