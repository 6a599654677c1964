package org.ctorch;

/**
 * Called when an allocation fails, before the library gives up with an
 * {@link OutOfMemoryException} ({@link CTorch#setMemoryPressureHandler}). Called on the
 * allocating thread; it must not create tensors.
 */
@FunctionalInterface
public interface MemoryPressureHandler {
  /**
   * Frees what it can.
   *
   * @param device the device type that ran out
   * @param nbytes the size of the failed allocation
   * @return true to retry the allocation, false to fail it
   */
  boolean onMemoryPressure(Device.Type device, long nbytes);
}
