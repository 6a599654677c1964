package org.ctorch.distributed;

import java.lang.ref.Reference;
import java.time.Duration;
import java.util.List;
import org.ctorch.InvalidArgumentException;
import org.ctorch.NativeObject;
import org.ctorch.Tensor;
import org.ctorch.jni.Access;
import org.ctorch.jni.CTorchNative;

/**
 * A group of processes and its connections (a torch.distributed process group) over one of the
 * engines of ctorch.h: "gloo" (CPU tensors over TCP), "mpi", "nccl". Every rank calls the same
 * collectives in the same order with tensors of the same sizes and dtype; each writes its results
 * in place into the tensors given. Each collective has an {@code ...Async} twin returning a
 * {@link Work} at once (torch's {@code async_op=True}).
 *
 * <pre>{@code
 * // under a launcher that sets MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE
 * try (ProcessGroup pg = ProcessGroup.init("gloo"); Tensor t = Tensor.of(new float[] {pg.rank() + 1f})) {
 *   pg.allReduce(t, ReduceOp.SUM);
 * }
 * }</pre>
 *
 * <p>A rank that never arrives or dies gives the others an {@link org.ctorch.TimeoutException} or
 * {@link org.ctorch.DistributedException} within the group's timeout, whose message names the
 * missing ranks where the engine can know them. {@link #close()} finishes the operations still
 * queued, closes the connections and frees the group (destroy_process_group); its {@link Work}s
 * stay valid. Threads: any thread may call a group's methods; they run in the order the group
 * received them.
 */
public final class ProcessGroup implements AutoCloseable {
  private final NativeObject owner;

  private ProcessGroup(long handle) {
    this.owner = Access.get().own(handle, "ProcessGroup", CTorchNative::ct_process_group_destroy);
  }

  /**
   * Whether the engine was built and its module loads (torch.distributed.is_gloo_available()...).
   *
   * @param backend "gloo", "mpi" or "nccl"
   * @return true when it can be used
   * @throws InvalidArgumentException for an unknown name
   */
  public static boolean isBackendAvailable(String backend) {
    return backendUnavailableReason(backend) == null;
  }

  /**
   * Why an engine cannot be used: not built (with the package to install), or its module's load
   * error.
   *
   * @param backend "gloo", "mpi" or "nccl"
   * @return null when it can be used, else the reason
   * @throws InvalidArgumentException for an unknown name
   */
  public static String backendUnavailableReason(String backend) {
    return CTorchNative.ct_dist_is_backend_available(backend) != 0 ? null : CTorchNative.ct_last_error();
  }

  /**
   * Joins this process into the world group of an engine as torchrun launches it: MASTER_ADDR and
   * MASTER_PORT (rank 0 serves the rendezvous store there), RANK and WORLD_SIZE from the
   * environment, a 30-minute timeout.
   *
   * @param backend "gloo", "mpi" or "nccl"
   * @return the group
   * @throws InvalidArgumentException for a missing or bad variable (named in the message)
   * @throws org.ctorch.BackendException when the engine is not built (the message says what to
   *     install)
   * @throws org.ctorch.TimeoutException when not every rank arrived (the message names them)
   * @throws org.ctorch.DistributedException when a connection failed or the port is taken
   */
  public static ProcessGroup init(String backend) {
    return init(backend, null, -1, -1, null);
  }

  /**
   * Joins this process into the world group (torch.distributed.init_process_group).
   *
   * @param backend "gloo", "mpi" or "nccl"
   * @param initMethod "env://" (null means the same), "tcp://HOST:PORT" or "file:///PATH" (an
   *     empty directory every rank sees); the mpi engine takes none
   * @param rank this process's rank, or -1 for RANK from the environment
   * @param worldSize the number of processes, or -1 for WORLD_SIZE from the environment
   * @param timeout the bound on the rendezvous and every later operation; null is 30 minutes
   * @return the group
   * @throws InvalidArgumentException for a bad argument or environment variable
   * @throws org.ctorch.BackendException when the engine is not built
   * @throws org.ctorch.TimeoutException when not every rank arrived in time
   * @throws org.ctorch.DistributedException when a connection failed or the port is taken
   */
  public static ProcessGroup init(String backend, String initMethod, int rank, int worldSize, Duration timeout) {
    return new ProcessGroup(CTorchNative.ct_dist_init_process_group(backend, initMethod, rank, worldSize, seconds(timeout)));
  }

  private static double seconds(Duration timeout) {
    return timeout == null ? 0 : timeout.toNanos() / 1e9;
  }

  /**
   * A group of some of this group's ranks (torch.distributed.new_group). Every rank calls it with
   * the same ranks, members or not, in the same order as its other newGroup calls. A member's new
   * group numbers the ranks 0, 1, ... in the order given; on a rank not listed,
   * {@link #isMember()} is false and collectives throw {@link InvalidArgumentException}.
   *
   * @param ranks distinct ranks of this group
   * @param timeout the new group's timeout; null takes this group's
   * @return the new group
   */
  public ProcessGroup newGroup(int[] ranks, Duration timeout) {
    if (ranks == null) {
      throw new InvalidArgumentException("argument ranks is null. Pass the member ranks (new int[] {0, 1})");
    }
    try {
      return new ProcessGroup(CTorchNative.ct_dist_new_group(handle(), ranks, seconds(timeout)));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  private long handle() {
    return Access.get().handle(owner, "process group");
  }

  /**
   * This process's rank in the group.
   *
   * @return 0 .. worldSize() - 1, or -1 when this process is not a member
   */
  public int rank() {
    try {
      return (int) CTorchNative.ct_dist_get_rank(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The number of ranks in the group.
   *
   * @return the group's size
   */
  public int worldSize() {
    try {
      return (int) CTorchNative.ct_dist_get_world_size(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Whether this process is one of the group's ranks.
   *
   * @return false for a {@link #newGroup} that did not list it
   */
  public boolean isMember() {
    return rank() >= 0;
  }

  /**
   * The engine's name.
   *
   * @return "gloo", "mpi" or "nccl"
   */
  public String backend() {
    try {
      return CTorchNative.ct_java_static_string(CTorchNative.ct_dist_get_backend(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** One collective's C call: returns the work handle when async, else 0. */
  private interface Call {
    long run(long pg, boolean async);
  }

  private void sync(Call c, Object... keep) {
    try {
      c.run(handle(), false);
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(keep);
    }
  }

  private Work async(Call c, Object... keep) {
    try {
      return new Work(c.run(handle(), true));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(keep);
    }
  }

  private static long h(Tensor t, String what) {
    return Access.get().handle(t, what);
  }

  private static long[] hs(List<Tensor> ts, String what) {
    if (ts == null) {
      throw new InvalidArgumentException("argument " + what + " is null. Pass a list (empty where this rank has none)");
    }
    long[] out = new long[ts.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = h(ts.get(i), what + "[" + i + "]");
    }
    return out;
  }

  private static int op(ReduceOp op) {
    if (op == null) {
      throw new InvalidArgumentException("argument op is null. Pass a ReduceOp (ReduceOp.SUM)");
    }
    return op.code;
  }

  /**
   * t := op over every rank's t (torch.distributed.all_reduce).
   *
   * @param t a contiguous tensor on the engine's device
   * @param op how values combine
   */
  public void allReduce(Tensor t, ReduceOp op) {
    sync((pg, a) -> CTorchNative.ct_dist_all_reduce(pg, h(t, "t"), op(op), a), t);
  }

  /**
   * {@link #allReduce}, queued: read t after {@link Work#waitFor()}.
   *
   * @param t a contiguous tensor on the engine's device
   * @param op how values combine
   * @return the operation
   */
  public Work allReduceAsync(Tensor t, ReduceOp op) {
    return async((pg, a) -> CTorchNative.ct_dist_all_reduce(pg, h(t, "t"), op(op), a), t);
  }

  /**
   * t := rank src's t on every rank (torch.distributed.broadcast).
   *
   * @param t the tensor sent (on src) or overwritten
   * @param src the sending rank
   */
  public void broadcast(Tensor t, int src) {
    sync((pg, a) -> CTorchNative.ct_dist_broadcast(pg, h(t, "t"), src, a), t);
  }

  /**
   * {@link #broadcast}, queued.
   *
   * @param t the tensor sent (on src) or overwritten
   * @param src the sending rank
   * @return the operation
   */
  public Work broadcastAsync(Tensor t, int src) {
    return async((pg, a) -> CTorchNative.ct_dist_broadcast(pg, h(t, "t"), src, a), t);
  }

  /**
   * On rank dst, t := op over every rank's t; other ranks' t is left as it was.
   *
   * @param t the tensor
   * @param dst the rank that receives the result
   * @param op how values combine
   */
  public void reduce(Tensor t, int dst, ReduceOp op) {
    sync((pg, a) -> CTorchNative.ct_dist_reduce(pg, h(t, "t"), dst, op(op), a), t);
  }

  /**
   * {@link #reduce}, queued.
   *
   * @param t the tensor
   * @param dst the rank that receives the result
   * @param op how values combine
   * @return the operation
   */
  public Work reduceAsync(Tensor t, int dst, ReduceOp op) {
    return async((pg, a) -> CTorchNative.ct_dist_reduce(pg, h(t, "t"), dst, op(op), a), t);
  }

  /**
   * outputs[r] := rank r's input, on every rank (torch.distributed.all_gather).
   *
   * @param outputs one tensor per rank, each of input's sizes and dtype
   * @param input this rank's tensor
   */
  public void allGather(List<Tensor> outputs, Tensor input) {
    long[] outs = hs(outputs, "outputs");
    sync((pg, a) -> CTorchNative.ct_dist_all_gather(pg, outs, h(input, "input"), a), outputs, input);
  }

  /**
   * {@link #allGather}, queued.
   *
   * @param outputs one tensor per rank
   * @param input this rank's tensor
   * @return the operation
   */
  public Work allGatherAsync(List<Tensor> outputs, Tensor input) {
    long[] outs = hs(outputs, "outputs");
    return async((pg, a) -> CTorchNative.ct_dist_all_gather(pg, outs, h(input, "input"), a), outputs, input);
  }

  /**
   * output := the ranks' inputs concatenated in rank order (all_gather_into_tensor).
   *
   * @param output worldSize() times input's first dim, or [worldSize(), *input.sizes]
   * @param input this rank's tensor
   */
  public void allGatherIntoTensor(Tensor output, Tensor input) {
    sync((pg, a) -> CTorchNative.ct_dist_all_gather_into_tensor(pg, h(output, "output"), h(input, "input"), a), output, input);
  }

  /**
   * {@link #allGatherIntoTensor}, queued.
   *
   * @param output the gathered tensor
   * @param input this rank's tensor
   * @return the operation
   */
  public Work allGatherIntoTensorAsync(Tensor output, Tensor input) {
    return async((pg, a) -> CTorchNative.ct_dist_all_gather_into_tensor(pg, h(output, "output"), h(input, "input"), a), output, input);
  }

  /**
   * output := op over every rank's inputs[this rank] (torch.distributed.reduce_scatter).
   *
   * @param output this rank's result
   * @param inputs one tensor per rank
   * @param op how values combine
   */
  public void reduceScatter(Tensor output, List<Tensor> inputs, ReduceOp op) {
    long[] ins = hs(inputs, "inputs");
    sync((pg, a) -> CTorchNative.ct_dist_reduce_scatter(pg, h(output, "output"), ins, op(op), a), output, inputs);
  }

  /**
   * {@link #reduceScatter}, queued.
   *
   * @param output this rank's result
   * @param inputs one tensor per rank
   * @param op how values combine
   * @return the operation
   */
  public Work reduceScatterAsync(Tensor output, List<Tensor> inputs, ReduceOp op) {
    long[] ins = hs(inputs, "inputs");
    return async((pg, a) -> CTorchNative.ct_dist_reduce_scatter(pg, h(output, "output"), ins, op(op), a), output, inputs);
  }

  /**
   * output := op over every rank's block {@code this rank} of input, input being worldSize()
   * blocks of output's elements in rank order (reduce_scatter_tensor).
   *
   * @param output this rank's result
   * @param input worldSize() blocks
   * @param op how values combine
   */
  public void reduceScatterTensor(Tensor output, Tensor input, ReduceOp op) {
    sync((pg, a) -> CTorchNative.ct_dist_reduce_scatter_tensor(pg, h(output, "output"), h(input, "input"), op(op), a), output, input);
  }

  /**
   * {@link #reduceScatterTensor}, queued.
   *
   * @param output this rank's result
   * @param input worldSize() blocks
   * @param op how values combine
   * @return the operation
   */
  public Work reduceScatterTensorAsync(Tensor output, Tensor input, ReduceOp op) {
    return async((pg, a) -> CTorchNative.ct_dist_reduce_scatter_tensor(pg, h(output, "output"), h(input, "input"), op(op), a), output, input);
  }

  /**
   * On rank dst, outputs[r] := rank r's input (torch.distributed.gather).
   *
   * @param input this rank's tensor
   * @param outputs on dst one tensor per rank; elsewhere an empty list
   * @param dst the gathering rank
   */
  public void gather(Tensor input, List<Tensor> outputs, int dst) {
    long[] outs = hs(outputs, "outputs");
    sync((pg, a) -> CTorchNative.ct_dist_gather(pg, h(input, "input"), outs, dst, a), input, outputs);
  }

  /**
   * {@link #gather}, queued.
   *
   * @param input this rank's tensor
   * @param outputs on dst one tensor per rank; elsewhere an empty list
   * @param dst the gathering rank
   * @return the operation
   */
  public Work gatherAsync(Tensor input, List<Tensor> outputs, int dst) {
    long[] outs = hs(outputs, "outputs");
    return async((pg, a) -> CTorchNative.ct_dist_gather(pg, h(input, "input"), outs, dst, a), input, outputs);
  }

  /**
   * output := rank src's inputs[this rank] (torch.distributed.scatter).
   *
   * @param output this rank's tensor
   * @param inputs on src one tensor per rank; elsewhere an empty list
   * @param src the scattering rank
   */
  public void scatter(Tensor output, List<Tensor> inputs, int src) {
    long[] ins = hs(inputs, "inputs");
    sync((pg, a) -> CTorchNative.ct_dist_scatter(pg, h(output, "output"), ins, src, a), output, inputs);
  }

  /**
   * {@link #scatter}, queued.
   *
   * @param output this rank's tensor
   * @param inputs on src one tensor per rank; elsewhere an empty list
   * @param src the scattering rank
   * @return the operation
   */
  public Work scatterAsync(Tensor output, List<Tensor> inputs, int src) {
    long[] ins = hs(inputs, "inputs");
    return async((pg, a) -> CTorchNative.ct_dist_scatter(pg, h(output, "output"), ins, src, a), output, inputs);
  }

  private static long[][] allToAllHandles(List<Tensor> outputs, List<Tensor> inputs) {
    long[] outs = hs(outputs, "outputs");
    long[] ins = hs(inputs, "inputs");
    if (outs.length != ins.length) {
      throw new InvalidArgumentException(
          "all_to_all: " + outs.length + " outputs and " + ins.length + " inputs. Give one of each per rank.");
    }
    return new long[][] {outs, ins};
  }

  /**
   * outputs[r] := rank r's inputs[this rank] (torch.distributed.all_to_all).
   *
   * @param outputs one tensor per rank
   * @param inputs one tensor per rank, of the outputs' sizes
   */
  public void allToAll(List<Tensor> outputs, List<Tensor> inputs) {
    long[][] hh = allToAllHandles(outputs, inputs);
    sync((pg, a) -> CTorchNative.ct_dist_all_to_all(pg, hh[0], hh[1], a), outputs, inputs);
  }

  /**
   * {@link #allToAll}, queued.
   *
   * @param outputs one tensor per rank
   * @param inputs one tensor per rank
   * @return the operation
   */
  public Work allToAllAsync(List<Tensor> outputs, List<Tensor> inputs) {
    long[][] hh = allToAllHandles(outputs, inputs);
    return async((pg, a) -> CTorchNative.ct_dist_all_to_all(pg, hh[0], hh[1], a), outputs, inputs);
  }

  /**
   * output's block r := rank r's input block {@code this rank}, blocks being equal splits of the
   * first dim (all_to_all_single without split sizes).
   *
   * @param output the received blocks
   * @param input the blocks sent
   */
  public void allToAllSingle(Tensor output, Tensor input) {
    sync((pg, a) -> CTorchNative.ct_dist_all_to_all_single(pg, h(output, "output"), h(input, "input"), a), output, input);
  }

  /**
   * {@link #allToAllSingle}, queued.
   *
   * @param output the received blocks
   * @param input the blocks sent
   * @return the operation
   */
  public Work allToAllSingleAsync(Tensor output, Tensor input) {
    return async((pg, a) -> CTorchNative.ct_dist_all_to_all_single(pg, h(output, "output"), h(input, "input"), a), output, input);
  }

  /**
   * Sends t to rank dst, which receives it with {@link #recv} from this rank and the same tag.
   *
   * @param t the tensor
   * @param dst the receiving rank
   * @param tag tells apart messages between the same two ranks
   */
  public void send(Tensor t, int dst, int tag) {
    sync((pg, a) -> CTorchNative.ct_dist_send(pg, h(t, "t"), dst, tag, a), t);
  }

  /**
   * {@link #send}, queued (torch.distributed.isend).
   *
   * @param t the tensor
   * @param dst the receiving rank
   * @param tag the message's tag
   * @return the operation
   */
  public Work sendAsync(Tensor t, int dst, int tag) {
    return async((pg, a) -> CTorchNative.ct_dist_send(pg, h(t, "t"), dst, tag, a), t);
  }

  /**
   * Receives into t what rank src sent with tag.
   *
   * @param t a tensor of the sent one's sizes and dtype
   * @param src the sending rank
   * @param tag the message's tag
   */
  public void recv(Tensor t, int src, int tag) {
    sync((pg, a) -> CTorchNative.ct_dist_recv(pg, h(t, "t"), src, tag, a), t);
  }

  /**
   * {@link #recv}, queued (torch.distributed.irecv).
   *
   * @param t a tensor of the sent one's sizes and dtype
   * @param src the sending rank
   * @param tag the message's tag
   * @return the operation
   */
  public Work recvAsync(Tensor t, int src, int tag) {
    return async((pg, a) -> CTorchNative.ct_dist_recv(pg, h(t, "t"), src, tag, a), t);
  }

  /** Returns once every rank of the group has called it (torch.distributed.barrier). */
  public void barrier() {
    sync(CTorchNative::ct_dist_barrier);
  }

  /**
   * {@link #barrier}, queued.
   *
   * @return the operation
   */
  public Work barrierAsync() {
    return async(CTorchNative::ct_dist_barrier);
  }

  /**
   * Whether {@link #close()} ran.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return owner.isClosed();
  }

  /** Finishes the queued operations, closes the connections and frees the group (idempotent). */
  @Override
  public void close() {
    owner.close();
  }

  @Override
  public String toString() {
    return isClosed() ? "ProcessGroup(closed)" : "ProcessGroup(" + backend() + ", rank " + rank() + " of " + worldSize() + ")";
  }
}
