package org.ctorch.nn;

import java.lang.ref.Reference;
import org.ctorch.Generator;
import org.ctorch.Tensor;
import org.ctorch.jni.Access;
import org.ctorch.jni.CTorchNative;

/**
 * torch.nn.init's initializers, run by the library. Each fills a floating tensor in place with
 * grad mode off (so a parameter that requires grad can be initialized) and returns it. The numbers
 * come from the given generator, or the default generator of the tensor's device when it is null
 * (or omitted): ctorch's Philox stream, so a seed ({@link org.ctorch.CTorch#manualSeed}) gives the
 * same numbers on every machine, thread count and language (not the numbers torch draws).
 *
 * <p>{@code mode} is "fan_in" or "fan_out"; {@code nonlinearity} a name {@link #calculateGain}
 * knows. Errors: an {@link org.ctorch.InvalidArgumentException} for bad bounds, names or an
 * inference tensor, a {@link org.ctorch.ShapeException} for fans of a tensor of fewer than 2 dims,
 * a {@link org.ctorch.DTypeException} for an integral tensor.
 */
public final class Init {
  private Init() {}

  private static long t(Tensor t) {
    return Access.get().handle(t, "tensor");
  }

  private static long gen(Generator g) {
    return g == null ? 0 : Access.get().handle(g, "generator");
  }

  /**
   * Fills t from U(a, b) (nn.init.uniform_).
   *
   * @param t the tensor
   * @param a the least value
   * @param b the bound, at least a
   * @param generator the generator, or null for the default one
   * @return t
   */
  public static Tensor uniformInPlace(Tensor t, double a, double b, Generator generator) {
    try {
      CTorchNative.ct_init_uniform_(t(t), a, b, gen(generator));
      return t;
    } finally {
      Reference.reachabilityFence(t);
      Reference.reachabilityFence(generator);
    }
  }

  /**
   * Fills t from U(a, b) with the default generator.
   *
   * @param t the tensor
   * @param a the least value
   * @param b the bound
   * @return t
   */
  public static Tensor uniformInPlace(Tensor t, double a, double b) {
    return uniformInPlace(t, a, b, null);
  }

  /**
   * Fills t from N(mean, std^2) (nn.init.normal_).
   *
   * @param t the tensor
   * @param mean the mean
   * @param std the standard deviation, at least 0
   * @param generator the generator, or null for the default one
   * @return t
   */
  public static Tensor normalInPlace(Tensor t, double mean, double std, Generator generator) {
    try {
      CTorchNative.ct_init_normal_(t(t), mean, std, gen(generator));
      return t;
    } finally {
      Reference.reachabilityFence(t);
      Reference.reachabilityFence(generator);
    }
  }

  /**
   * Fills t from N(mean, std^2) with the default generator.
   *
   * @param t the tensor
   * @param mean the mean
   * @param std the standard deviation
   * @return t
   */
  public static Tensor normalInPlace(Tensor t, double mean, double std) {
    return normalInPlace(t, mean, std, null);
  }

  /**
   * Xavier (Glorot) uniform: U(-g sqrt(6 / (fan_in + fan_out)), +...) (nn.init.xavier_uniform_).
   *
   * @param t a tensor of at least 2 dims
   * @param gain the gain g (torch's default 1)
   * @param generator the generator, or null for the default one
   * @return t
   */
  public static Tensor xavierUniformInPlace(Tensor t, double gain, Generator generator) {
    try {
      CTorchNative.ct_init_xavier_uniform_(t(t), gain, gen(generator));
      return t;
    } finally {
      Reference.reachabilityFence(t);
      Reference.reachabilityFence(generator);
    }
  }

  /**
   * N(mean, std^2) restricted to [a, b] (nn.init.trunc_normal_; torch's defaults 0, 1, -2, 2).
   *
   * @param t a floating tensor
   * @param mean the mean
   * @param std the standard deviation, above 0
   * @param a the lower bound
   * @param b the upper bound, above a
   * @param generator the generator, or null for the default one
   * @return t
   */
  public static Tensor truncNormalInPlace(Tensor t, double mean, double std, double a, double b, Generator generator) {
    try {
      CTorchNative.ct_init_trunc_normal_(t(t), mean, std, a, b, gen(generator));
      return t;
    } finally {
      Reference.reachabilityFence(t);
      Reference.reachabilityFence(generator);
    }
  }

  /**
   * A (semi-)orthogonal matrix over the first dim and the rest flattened, times gain, uniformly
   * distributed (nn.init.orthogonal_).
   *
   * @param t a tensor of at least 2 dims
   * @param gain the gain (torch's default 1)
   * @param generator the generator, or null for the default one
   * @return t
   */
  public static Tensor orthogonalInPlace(Tensor t, double gain, Generator generator) {
    try {
      CTorchNative.ct_init_orthogonal_(t(t), gain, gen(generator));
      return t;
    } finally {
      Reference.reachabilityFence(t);
      Reference.reachabilityFence(generator);
    }
  }

  /**
   * N(0, std^2) with ceil(sparsity * rows) zeros in each column (nn.init.sparse_).
   *
   * @param t a 2-D tensor
   * @param sparsity the fraction of each column to zero, in [0, 1]
   * @param std the standard deviation (torch's default 0.01)
   * @param generator the generator, or null for the default one
   * @return t
   */
  public static Tensor sparseInPlace(Tensor t, double sparsity, double std, Generator generator) {
    try {
      CTorchNative.ct_init_sparse_(t(t), sparsity, std, gen(generator));
      return t;
    } finally {
      Reference.reachabilityFence(t);
      Reference.reachabilityFence(generator);
    }
  }

  /**
   * The identity matrix (nn.init.eye_).
   *
   * @param t a 2-D tensor
   * @return t
   */
  public static Tensor eyeInPlace(Tensor t) {
    try {
      CTorchNative.ct_init_eye_(t(t));
      return t;
    } finally {
      Reference.reachabilityFence(t);
    }
  }

  /**
   * The Dirac delta of a convolution weight, per group (nn.init.dirac_).
   *
   * @param t a 3- to 5-D tensor
   * @param groups a divisor of dim 0 (torch's default 1)
   * @return t
   */
  public static Tensor diracInPlace(Tensor t, long groups) {
    try {
      CTorchNative.ct_init_dirac_(t(t), groups);
      return t;
    } finally {
      Reference.reachabilityFence(t);
    }
  }

  /**
   * Xavier (Glorot) normal: N(0, g^2 * 2 / (fan_in + fan_out)) (nn.init.xavier_normal_).
   *
   * @param t a tensor of at least 2 dims
   * @param gain the gain g (torch's default 1)
   * @param generator the generator, or null for the default one
   * @return t
   */
  public static Tensor xavierNormalInPlace(Tensor t, double gain, Generator generator) {
    try {
      CTorchNative.ct_init_xavier_normal_(t(t), gain, gen(generator));
      return t;
    } finally {
      Reference.reachabilityFence(t);
      Reference.reachabilityFence(generator);
    }
  }

  /**
   * Kaiming (He) uniform: U(-bound, bound), bound = sqrt(3) gain(nonlinearity, a) / sqrt(fan)
   * (nn.init.kaiming_uniform_).
   *
   * @param t a tensor of at least 2 dims
   * @param a the negative slope of leaky_relu (torch's default 0)
   * @param mode "fan_in" or "fan_out" (null: "fan_in")
   * @param nonlinearity the nonlinearity after the layer (null: "leaky_relu")
   * @param generator the generator, or null for the default one
   * @return t
   */
  public static Tensor kaimingUniformInPlace(Tensor t, double a, String mode, String nonlinearity, Generator generator) {
    try {
      CTorchNative.ct_init_kaiming_uniform_(t(t), a, mode, nonlinearity, gen(generator));
      return t;
    } finally {
      Reference.reachabilityFence(t);
      Reference.reachabilityFence(generator);
    }
  }

  /**
   * Kaiming (He) normal: N(0, (gain(nonlinearity, a) / sqrt(fan))^2) (nn.init.kaiming_normal_).
   *
   * @param t a tensor of at least 2 dims
   * @param a the negative slope of leaky_relu (torch's default 0)
   * @param mode "fan_in" or "fan_out" (null: "fan_in")
   * @param nonlinearity the nonlinearity after the layer (null: "leaky_relu")
   * @param generator the generator, or null for the default one
   * @return t
   */
  public static Tensor kaimingNormalInPlace(Tensor t, double a, String mode, String nonlinearity, Generator generator) {
    try {
      CTorchNative.ct_init_kaiming_normal_(t(t), a, mode, nonlinearity, gen(generator));
      return t;
    } finally {
      Reference.reachabilityFence(t);
      Reference.reachabilityFence(generator);
    }
  }

  /**
   * torch.nn.Linear's (and Conv's) default initialization: weight from kaiming_uniform_ with
   * a = sqrt(5), so U(-1/sqrt(fan_in), 1/sqrt(fan_in)), then bias from the same range; the
   * weight's draws come first.
   *
   * @param weight [out, in] or [out, in / groups, *kernel]
   * @param bias [out], or null for none
   * @param generator the generator, or null for the default one
   */
  public static void linearInPlace(Tensor weight, Tensor bias, Generator generator) {
    try {
      CTorchNative.ct_init_linear_(t(weight), bias == null ? 0 : Access.get().handle(bias, "bias"), gen(generator));
    } finally {
      Reference.reachabilityFence(weight);
      Reference.reachabilityFence(bias);
      Reference.reachabilityFence(generator);
    }
  }

  /**
   * torch.nn.init.calculate_gain.
   *
   * @param nonlinearity "linear", "conv1d".."conv3d", "conv_transpose1d".."3d", "sigmoid",
   *     "tanh", "relu", "leaky_relu" or "selu"
   * @param param leaky_relu's negative slope (torch's default 0.01); ignored by the others
   * @return the gain
   */
  public static double calculateGain(String nonlinearity, double param) {
    return Double.longBitsToDouble(CTorchNative.ct_init_calculate_gain(nonlinearity, param));
  }

  /**
   * torch.nn.init._calculate_fan_in_and_fan_out: for sizes [out, in, *k], fan_in = in * prod(k)
   * and fan_out = out * prod(k).
   *
   * @param t a tensor of at least 2 dims
   * @return {fan_in, fan_out}
   */
  public static long[] fanInAndFanOut(Tensor t) {
    long[] out = new long[2];
    try {
      CTorchNative.ct_init_calculate_fan_in_and_fan_out(t(t), out);
    } finally {
      Reference.reachabilityFence(t);
    }
    return out;
  }
}
