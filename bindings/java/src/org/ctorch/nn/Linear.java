package org.ctorch.nn;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.ctorch.DType;
import org.ctorch.Generator;
import org.ctorch.InvalidArgumentException;
import org.ctorch.Tensor;

/**
 * y = x W^T + b (torch.nn.Linear): weight [out, in] and bias [out], initialized as torch
 * initializes them ({@link Init#linearInPlace}: U(-1/sqrt(in), 1/sqrt(in)), the weight's draws
 * first) and requiring grad.
 */
public final class Linear implements NnModule {
  private final Tensor weight;
  private final Tensor bias;

  /**
   * A float32 layer with a bias, drawn from the default generator.
   *
   * @param inFeatures the input size
   * @param outFeatures the output size
   */
  public Linear(long inFeatures, long outFeatures) {
    this(inFeatures, outFeatures, true, DType.FLOAT32, null);
  }

  /**
   * A layer with every choice.
   *
   * @param inFeatures the input size
   * @param outFeatures the output size
   * @param bias whether the layer adds a bias
   * @param dtype the parameters' floating dtype
   * @param generator the generator of the initial values, or null for the default one
   */
  public Linear(long inFeatures, long outFeatures, boolean bias, DType dtype, Generator generator) {
    if (inFeatures < 0 || outFeatures < 0) {
      throw new InvalidArgumentException("Linear: sizes must be at least 0, got in " + inFeatures + ", out " + outFeatures);
    }
    Tensor w = Tensor.empty(new long[] {outFeatures, inFeatures}, dtype, null);
    Tensor b = null;
    try {
      b = bias ? Tensor.empty(new long[] {outFeatures}, dtype, null) : null;
      Init.linearInPlace(w, b, generator);
      w.setRequiresGrad(true);
      if (b != null) {
        b.setRequiresGrad(true);
      }
    } catch (RuntimeException e) {
      w.close();
      if (b != null) {
        b.close();
      }
      throw e;
    }
    this.weight = w;
    this.bias = b;
  }

  /**
   * The weight [out, in] (the layer's own tensor).
   *
   * @return the weight
   */
  public Tensor weight() {
    return weight;
  }

  /**
   * The bias [out], or null when the layer has none.
   *
   * @return the bias
   */
  public Tensor bias() {
    return bias;
  }

  @Override
  public Tensor forward(Tensor input) {
    return Tensor.linear(input, weight, bias);
  }

  @Override
  public Map<String, Tensor> namedParameters() {
    Map<String, Tensor> out = new LinkedHashMap<>();
    out.put("weight", weight);
    if (bias != null) {
      out.put("bias", bias);
    }
    return Collections.unmodifiableMap(out);
  }

  @Override
  public void close() {
    weight.close();
    if (bias != null) {
      bias.close();
    }
  }

  @Override
  public String toString() {
    return "Linear(in_features=" + weight.size(1) + ", out_features=" + weight.size(0) + ", bias=" + (bias != null) + ")";
  }
}
