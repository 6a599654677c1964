package org.ctorch;

/**
 * The kernel of an operator registered with {@link Library#impl}. It may run on any thread.
 */
@FunctionalInterface
public interface Kernel {
  /**
   * Computes the operator's results.
   *
   * @param args the arguments in schema order, defaults filled in: Tensor, Long, Double,
   *     Boolean, long[], Tensor[], DType, Device, String, SymInt, SymInt[], or null for an
   *     omitted optional; tensors are borrowed for the call
   * @return one tensor per return of the schema
   */
  Tensor[] compute(Object[] args);
}
