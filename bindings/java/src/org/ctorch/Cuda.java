package org.ctorch;

import org.ctorch.jni.CTorchNative;

/** The CUDA backend, loaded on first use; without a GPU, CUDA devices simply do not exist. */
public final class Cuda {
  private Cuda() {}

  /**
   * Whether CUDA sees at least one device.
   *
   * @return whether CUDA sees at least one device
   */
  public static boolean isAvailable() {
    return deviceCount() > 0;
  }

  /**
   * The number of CUDA devices (0 without the library, a driver or a GPU).
   *
   * @return the number of CUDA devices (0 without the library, a driver or a GPU)
   */
  public static int deviceCount() {
    return CTorchNative.ct_cuda_device_count();
  }

  /**
   * @param device waits until the work queued on it has finished
   */
  public static void synchronize(int device) {
    CTorchNative.ct_cuda_synchronize(device);
  }

  /** Gives the caching allocator's unused device memory back to CUDA. */
  public static void emptyCache() {
    CTorchNative.ct_cuda_empty_cache();
  }
}
