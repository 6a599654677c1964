package org.ctorch;

import java.lang.ref.Reference;
import org.ctorch.jni.CTorchNative;

/**
 * A counter-based (Philox) random generator. The same seed gives the same numbers on every device
 * and for any thread count. Operators without an explicit generator draw from the device's
 * default one ({@link CTorch#manualSeed} seeds them all).
 */
public final class Generator extends NativeObject {
  private Generator(long handle) {
    super(handle, Kinds.GENERATOR);
  }

  /**
   * A new generator, independent of the default ones.
   *
   * @param device the device it draws for
   * @return the generator
   */
  public static Generator create(Device device) {
    return new Generator(CTorchNative.ct_generator_create(device == null ? null : device.toString()));
  }

  /**
   * The default generator of a device (a new reference to it).
   *
   * @param device the device
   * @return its default generator
   */
  public static Generator defaultGenerator(Device device) {
    return new Generator(CTorchNative.ct_default_generator(device == null ? null : device.toString()));
  }

  /**
   * Reseeds (and resets the offset).
   *
   * @param seed the seed
   * @return this
   */
  public Generator manualSeed(long seed) {
    try {
      CTorchNative.ct_generator_manual_seed(handle(), seed);
      return this;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The seed.
   *
   * @return the last seed set
   */
  public long initialSeed() {
    try {
      return CTorchNative.ct_generator_initial_seed(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The position in the stream of random blocks.
   *
   * @return the offset
   */
  public long offset() {
    try {
      return CTorchNative.ct_generator_get_offset(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Moves the position in the stream.
   *
   * @param offset the offset
   */
  public void setOffset(long offset) {
    try {
      CTorchNative.ct_generator_set_offset(handle(), offset);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The state (seed and offset) as bytes.
   *
   * @return the state {@link #setState} takes
   */
  public byte[] state() {
    byte[] out = new byte[org.ctorch.jni.CTorchNativeConstants.CT_GENERATOR_STATE_SIZE];
    try {
      CTorchNative.ct_generator_get_state(handle(), out);
    } finally {
      Reference.reachabilityFence(this);
    }
    return out;
  }

  /**
   * Restores a state.
   *
   * @param state bytes from {@link #state}
   */
  public void setState(byte[] state) {
    try {
      CTorchNative.ct_generator_set_state(handle(), state);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  private static int dtypeOr(DType dtype) {
    return dtype == null ? CTorch.getDefaultDtype().code() : dtype.code();
  }

  private static String deviceOr(Device device) {
    return device == null ? null : device.toString();
  }

  /**
   * Uniform numbers in [0, 1).
   *
   * @param sizes the sizes
   * @param dtype the dtype (null: the default dtype)
   * @param device the device (null: this thread's default)
   * @return a new tensor
   */
  public Tensor rand(long[] sizes, DType dtype, Device device) {
    try {
      return new Tensor(CTorchNative.ct_tensor_rand(sizes, dtypeOr(dtype), deviceOr(device), handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Standard normal numbers.
   *
   * @param sizes the sizes
   * @param dtype the dtype (null: the default dtype)
   * @param device the device (null: this thread's default)
   * @return a new tensor
   */
  public Tensor randn(long[] sizes, DType dtype, Device device) {
    try {
      return new Tensor(CTorchNative.ct_tensor_randn(sizes, dtypeOr(dtype), deviceOr(device), handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Integers in [low, high).
   *
   * @param low the least value
   * @param high one past the largest value
   * @param sizes the sizes
   * @param dtype the dtype (null: int64)
   * @param device the device (null: this thread's default)
   * @return a new tensor
   */
  public Tensor randint(long low, long high, long[] sizes, DType dtype, Device device) {
    try {
      return new Tensor(CTorchNative.ct_tensor_randint(low, high, sizes, dtype == null ? DType.INT64.code() : dtype.code(),
          deviceOr(device), handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * A random permutation of 0..n-1 (int64).
   *
   * @param n the length
   * @param device the device (null: this thread's default)
   * @return a new tensor
   */
  public Tensor randperm(long n, Device device) {
    try {
      return new Tensor(CTorchNative.ct_tensor_randperm(n, DType.INT64.code(), deviceOr(device), handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Fills t with uniform numbers in [from, to).
   *
   * @param t a floating tensor
   * @param from the least value
   * @param to the bound
   * @return t
   */
  public Tensor uniformInPlace(Tensor t, double from, double to) {
    try {
      CTorchNative.ct_tensor_uniform_(Native.handle(t, "t"), from, to, handle());
      return t;
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(t);
    }
  }

  /**
   * Fills t with normal numbers.
   *
   * @param t a floating tensor
   * @param mean the mean
   * @param std the standard deviation
   * @return t
   */
  public Tensor normalInPlace(Tensor t, double mean, double std) {
    try {
      CTorchNative.ct_tensor_normal_(Native.handle(t, "t"), mean, std, handle());
      return t;
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(t);
    }
  }

  /**
   * 1 with probability p[i], else 0.
   *
   * @param p probabilities in [0, 1]
   * @return a new tensor of p's sizes and dtype
   */
  public Tensor bernoulli(Tensor p) {
    try {
      return new Tensor(CTorchNative.ct_tensor_bernoulli(Native.handle(p, "p"), handle()));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(p);
    }
  }

  /**
   * Category indices drawn with probability proportional to probs' rows.
   *
   * @param probs 1-D or 2-D weights
   * @param numSamples samples per row
   * @param replacement whether a category may repeat
   * @return a new int64 tensor
   */
  public Tensor multinomial(Tensor probs, long numSamples, boolean replacement) {
    try {
      return new Tensor(CTorchNative.ct_tensor_multinomial(Native.handle(probs, "probs"), numSamples, replacement ? 1 : 0, handle()));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(probs);
    }
  }

  /**
   * Zeroes elements with probability p and scales the rest by 1 / (1 - p) when train is true.
   *
   * @param input the input
   * @param p the drop probability
   * @param train whether to drop (false returns the input's values)
   * @return a new tensor
   */
  public Tensor dropout(Tensor input, double p, boolean train) {
    try {
      return new Tensor(CTorchNative.ct_tensor_dropout(Native.handle(input, "input"), p, train ? 1 : 0, handle()));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(input);
    }
  }
}
