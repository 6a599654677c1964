package org.ctorch;

/**
 * A function of tensors that {@link CTorch#compile} and {@link Program#export} trace. It runs on
 * proxies while tracing (reading their data is a graph break) and again on real tensors after a
 * break, so it should have no side effects. Tensors it creates and does not return are closed
 * when it returns; exceptions it throws fail the call that ran it, with their message.
 */
@FunctionalInterface
public interface TracedFunction {
  /**
   * Computes the outputs.
   *
   * @param inputs the inputs, borrowed for the call
   * @return exactly as many tensors as declared
   */
  Tensor[] apply(Tensor[] inputs);
}
