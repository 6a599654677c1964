package org.ctorch.optim;

import java.lang.ref.Reference;
import org.ctorch.Tensor;
import org.ctorch.jni.CTorchNative;

/**
 * Gradient clipping (torch.nn.utils.clip_grad_norm_ and clip_grad_value_), in place on the
 * parameters' grads; parameters without a grad are skipped. No other thread may use the grads
 * meanwhile. Bitwise deterministic for any thread count.
 */
public final class ClipGrad {
  private ClipGrad() {}

  /**
   * Scales the grads so that their combined normType-norm is at most maxNorm: each is multiplied
   * by min(maxNorm / (total + 1e-6), 1), in the grads' dtype.
   *
   * @param params the parameters (typically an optimizer's)
   * @param maxNorm the bound, at least 0
   * @param normType the p of the norm, positive, or {@code Double.POSITIVE_INFINITY} for the
   *     largest absolute value
   * @return the total norm before clipping (0 when no parameter has a grad)
   * @throws org.ctorch.InvalidArgumentException for a negative or NaN maxNorm or normType
   * @throws org.ctorch.DTypeException for grads of different dtypes
   */
  public static double norm(Iterable<Tensor> params, double maxNorm, double normType) {
    Tensor[] ps = Params.array(params);
    try {
      return Double.longBitsToDouble(CTorchNative.ct_clip_grad_norm(Params.handles(ps), maxNorm, normType));
    } finally {
      Reference.reachabilityFence(ps);
    }
  }

  /**
   * {@link #norm(Iterable, double, double)} with the 2-norm.
   *
   * @param params the parameters
   * @param maxNorm the bound
   * @return the total norm before clipping
   */
  public static double norm(Iterable<Tensor> params, double maxNorm) {
    return norm(params, maxNorm, 2.0);
  }

  /**
   * Clamps every element of the grads into [-clipValue, clipValue].
   *
   * @param params the parameters
   * @param clipValue the bound, at least 0
   */
  public static void value(Iterable<Tensor> params, double clipValue) {
    Tensor[] ps = Params.array(params);
    try {
      CTorchNative.ct_clip_grad_value(Params.handles(ps), clipValue);
    } finally {
      Reference.reachabilityFence(ps);
    }
  }
}
